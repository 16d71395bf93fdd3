/**
 * The run inspector shows only what the caller may do (#39), in a real Chromium against a
 * real `service-serve` whose API keys map to roles: a reader (`read`) sees the runs, a run's
 * timeline and the inbox, but no button that changes anything, and the top bar says
 * read-only; an operator (`read`, `answer`, `control`) answers a waiting workflow from the
 * inbox and cancels a run from its page; a front end on another origin follows a run with a
 * real `EventSource` and the events token its backend asked for. Fails on any console error
 * it did not expect.
 */
import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ScriptedModelServer, scriptedModelServer } from '../../src/testing/index.js';
import { type BrowserSession, CHROMIUM, openBrowserPage } from '../support/browser.js';
import { postJson } from '../support/http.js';
import { killServers, type ServerProcess, startServer } from '../support/server-process.js';

const PROJECT = join(resolve(import.meta.dirname, '../..'), 'test/fixtures/ui/.agentdeck');
const READER = 'reader-key-7c1e';
const OPERATOR = 'operator-key-7c1e';
const ADMIN = 'admin-key-7c1e';
const skip = existsSync(CHROMIUM)
  ? null
  : `(skipped: no Chromium at ${CHROMIUM}; apt-get install chromium)`;

let session: BrowserSession;
let page: Page;
let model: ScriptedModelServer;
let server: ServerProcess;
let url: string;

beforeAll(async () => {
  if (skip) return;
  model = await scriptedModelServer([]);
  const env = {
    OPENAI_BASE_URL: model.url,
    OPENAI_API_KEY: 'sk-test',
    OPENAI_USE_RESPONSES: 'false',
    SERVICE_API_KEYS: `${READER}=:read,${OPERATOR}=:read+answer+control,${ADMIN}=:*`,
  };
  session = await openBrowserPage();
  // The page server's origin is a front end's: allowed, for its EventSource.
  const cors = { SERVICE_CORS_ORIGINS: session.origin };
  const dir = mkdtempSync(join(tmpdir(), 'agentdeck-roles-'));
  server = startServer(PROJECT, { ...env, ...cors }, dir);
  url = await server.url;
  page = session.page;
  await page.setViewportSize({ width: 1280, height: 800 });
}, 90_000);

afterAll(async () => {
  await killServers(server ? [server] : []);
  await model?.close();
  await session?.close();
});

/** Start the `approval` workflow as the admin; its run id once it waits for an answer. */
async function startApproval(thread: string): Promise<string> {
  const response = await fetch(
    `${url}/workflows/approval?thread_id=${thread}`,
    postJson({ amount: 3 }, { authorization: `Bearer ${ADMIN}` }),
  );
  await response.text();
  return response.headers.get('x-run-id') ?? '';
}

async function runStatus(runId: string): Promise<string> {
  const response = await fetch(`${url}/runs/${runId}`, {
    headers: { authorization: `Bearer ${ADMIN}` },
  });
  return ((await response.json()) as { status: string }).status;
}

/** Type `key` into the prompt the inspector shows, as a user would. */
async function signIn(key: string) {
  await page.goto(`${url}/health`);
  await page.evaluate(() => sessionStorage.clear()); // the tab forgets the key it held
  await page.goto(`${url}/ui`);
  const dialog = page.getByRole('dialog', { name: 'API key' });
  await dialog.getByLabel('Key').fill(key);
  await dialog.getByRole('button', { name: 'Use this key' }).click();
  await page.locator('header nav').waitFor();
  await page.getByRole('dialog').waitFor({ state: 'detached' });
}

const unexpectedErrors = () =>
  session.consoleErrors.splice(0).filter((text) => !/status of 401/.test(text));

describe.skipIf(skip !== null)(`the inspector by role ${skip ?? ''}`, () => {
  it('shows a reader the runs, a run and the inbox, with no button that acts', async () => {
    const runId = await startApproval('reader-1');
    await signIn(READER);
    await page.locator(`a[href="/ui/runs/${runId}"]`).first().waitFor();
    expect(await page.locator('header .mode').textContent()).toBe('read-only');
    // No run can be ticked into a dataset (that needs `run`).
    expect(await page.getByRole('checkbox').count()).toBe(0);
    expect(await page.getByRole('button', { name: 'Add to dataset' }).count()).toBe(0);
    await page.goto(`${url}/ui/runs/${runId}`);
    await page.locator('[data-kind="run.interrupted"]').waitFor();
    for (const name of ['Cancel', 'Pause', 'Resume']) {
      expect(await page.getByRole('button', { name, exact: true }).count(), name).toBe(0);
    }
    await page.goto(`${url}/ui/inbox`);
    await page.locator(`article.card[data-run-id="${runId}"]`).waitFor();
    expect(await page.locator('textarea').count()).toBe(0);
    expect(await page.getByRole('button', { name: 'Answer' }).count()).toBe(0);
    await page.getByText('Read-only: answer through the API.').first().waitFor();
    expect(unexpectedErrors()).toEqual([]);
  }, 40_000);

  it('lets an operator answer from the inbox and cancel a run', async () => {
    const answered = await startApproval('operator-1');
    const cancelled = await startApproval('operator-2');
    await signIn(OPERATOR);
    expect(await page.locator('header .mode').count()).toBe(0);
    await page.goto(`${url}/ui/inbox`);
    const card = page.locator(`article.card[data-run-id="${answered}"]`);
    await card.getByLabel('Answer (JSON)').fill('{"approved": true}');
    await card.getByRole('button', { name: 'Answer' }).click();
    await page
      .locator(`article.answered[data-run-id="${answered}"][data-outcome="completed"]`)
      .waitFor({ timeout: 15_000 });
    expect(await runStatus(answered)).toBe('completed');

    await page.goto(`${url}/ui/runs/${cancelled}`);
    await page.getByRole('button', { name: 'Cancel', exact: true }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Cancel run' }).click();
    await page.locator('[data-kind="control.requested"]').waitFor({ timeout: 15_000 });
    expect(unexpectedErrors()).toEqual([]);
  }, 40_000);

  it("follows a run from a front end's EventSource with the events token its backend got", async () => {
    const runId = await startApproval('event-source-1');
    // The front end's backend, holding a key, asks for the token; the page never sees the key.
    const issued = await fetch(`${url}/runs/${runId}/events-token`, {
      method: 'POST',
      headers: { authorization: `Bearer ${READER}` },
    });
    const { events_url } = (await issued.json()) as { events_url: string };
    await page.goto(session.origin);
    const kinds = await page.evaluate(
      (source) =>
        new Promise<string[]>((resolve, reject) => {
          const events = new EventSource(source);
          const seen: string[] = [];
          events.onmessage = (frame) => {
            seen.push((JSON.parse(frame.data) as { kind: string }).kind);
            if (seen.at(-1) === 'run.interrupted') {
              events.close();
              resolve(seen);
            }
          };
          events.onerror = () => {
            events.close();
            reject(new Error(`EventSource failed after ${seen.join(', ')}`));
          };
        }),
      `${url}${events_url}`,
    );
    expect(kinds[0]).toBe('run.started');
    expect(kinds.at(-1)).toBe('run.interrupted');
    expect(unexpectedErrors()).toEqual([]);
  }, 30_000);
});
