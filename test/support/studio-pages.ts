/**
 * For the studio's browser tests (test/browser/studio.browser.test.ts): `service-serve` on a
 * project with the scripted model, polling, the catalog as the API gives it, and readings of
 * the pages (a chat turn's pieces in order, a screenshot from the top).
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Locator, Page } from 'playwright-core';
import { type ServerProcess, startServer } from './server-process.js';

export interface Catalog {
  agents: { name: string; tools: { name: string }[] }[];
  workflows: {
    name: string;
    graph: {
      nodes: { id: string }[];
      edges: { source: string; target: string; conditional: boolean; guessed: boolean }[];
    };
  }[];
  mcp_servers: { name: string; status: string; tools: { name: string }[] }[];
}

/** `service-serve <project>` in a fresh directory, its agents on the model at `modelUrl`. */
export function serveWithModel(
  project: string,
  modelUrl: string,
  env: Record<string, string> = {},
): ServerProcess {
  const dir = mkdtempSync(join(tmpdir(), 'agentdeck-studio-'));
  return startServer(
    project,
    { OPENAI_BASE_URL: modelUrl, OPENAI_API_KEY: 'sk-test', OPENAI_USE_RESPONSES: 'false', ...env },
    dir,
  );
}

export async function waitFor(check: () => boolean | Promise<boolean>, timeoutMs = 15_000) {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms`);
    await new Promise((wait) => setTimeout(wait, 50));
  }
}

/** A run's status, read from `GET /runs/{run_id}`. */
export async function runStatus(server: string, runId: string): Promise<string> {
  const body = (await (await fetch(`${server}/runs/${runId}`)).json()) as { status: string };
  return body.status;
}

export async function catalogOf(server: string): Promise<Catalog> {
  return (await (await fetch(`${server}/catalog`)).json()) as Catalog;
}

/** What a chat turn's answer shows, in order: text pieces, tool calls, approvals. */
export async function answerPieces(turn: Locator): Promise<(string | undefined)[]> {
  return turn
    .locator('.bubble.assistant > :is(.part-text, .tool-call, .approval)')
    .evaluateAll((nodes) => nodes.map((node) => node.className.split(' ').at(-1)));
}

/** A full-page screenshot from the top (the sticky top bar stays where it belongs). */
export async function screenshotFromTop(page: Page, path: string): Promise<void> {
  await page.evaluate(() => window.scrollTo(0, 0));
  await page.screenshot({ path, fullPage: true });
}
