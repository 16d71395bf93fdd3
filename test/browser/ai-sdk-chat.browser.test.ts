/**
 * The AI SDK sample (`examples/ai-sdk-chat/`) in a real Chromium (Playwright, Debian's
 * `chromium`): the page is bundled with esbuild and served on an origin of its own, as its
 * README says, and talks through `useChat` to a real `service-serve` of the example project
 * (its origin allowed by `SERVICE_CORS_ORIGINS`), whose concierge answers from the scripted
 * model server. The page shows an answer's text, a tool call with its input and output, a
 * call held for approval that Approve continues (and Reject refuses) in the same message, Stop
 * cancelling the run behind an answer, and a reload in the middle of a slow answer that
 * resumes it to the complete message. Every test fails on any console error. Its screenshot
 * goes to build/screenshots/ (docs/ under `npm run docs:screenshots`).
 */
import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildSample } from '../../examples/ai-sdk-chat/build.js';
import { type SampleServer, serveSample } from '../../examples/ai-sdk-chat/serve.js';
import { type ScriptedModelServer, scriptedModelServer } from '../../src/testing/index.js';
import {
  type BrowserSession,
  CHROMIUM,
  openBrowserPage,
  screenshotPath,
} from '../support/browser.js';
import { killServers, type ServerProcess, startServer } from '../support/server-process.js';
import { waitFor } from '../support/studio-pages.js';

const ROOT = resolve(import.meta.dirname, '../..');
const EXAMPLE = join(ROOT, 'examples/project/.agentdeck');
const skip = existsSync(CHROMIUM)
  ? null
  : `(skipped: no Chromium at ${CHROMIUM}; apt-get install chromium)`;

let session: BrowserSession;
let page: Page;
let model: ScriptedModelServer;
let sample: SampleServer;
let server: ServerProcess | undefined;
let service: string;

beforeAll(async () => {
  if (skip) return;
  // The page's server reads its folder per request, so it listens (and the service learns its
  // origin) while the page is still being built: the three start side by side.
  const built = mkdtempSync(join(tmpdir(), 'agentdeck-ai-sdk-chat-'));
  [model, sample] = await Promise.all([
    scriptedModelServer([]),
    serveSample({ port: 0, dir: built }),
  ]);
  server = startServer(
    EXAMPLE,
    {
      OPENAI_BASE_URL: model.url,
      OPENAI_API_KEY: 'sk-test',
      SERVICE_CORS_ORIGINS: sample.origin,
    },
    mkdtempSync(join(tmpdir(), 'agentdeck-ai-sdk-chat-state-')),
  );
  [service, session] = await Promise.all([server.url, openBrowserPage(), buildSample(built)]);
  page = session.page;
}, 60_000);

afterAll(async () => {
  await session?.close();
  if (server) await killServers([server]);
  await model?.close();
  await sample?.close();
});

/** Open the sample on chat `chat` and send `text` from its form. */
async function chat(chatId: string, text: string): Promise<void> {
  await page.goto(`${sample.origin}/?service=${service}&agent=concierge&chat=${chatId}`);
  await page.locator('input[name="message"]').fill(text);
  await page.locator('button[type="submit"]').click();
  await page.locator('li.message.user').last().waitFor();
}

/** The last assistant message's text parts, joined, once its stream has ended (status ready). */
async function answerText(): Promise<string> {
  await page.locator('li.message.assistant').last().waitFor();
  await page.locator('p.status[data-status="ready"]').waitFor();
  return texts(page.locator('li.message.assistant').last());
}

async function texts(message: Locator): Promise<string> {
  return (await message.locator(':scope > p').allTextContents()).join('');
}

function consoleErrors(): string[] {
  return session.consoleErrors.splice(0);
}

describe.skipIf(skip !== null)(`the AI SDK sample page ${skip ?? ''}`, () => {
  it('chats with the concierge: the question and the answer appear', async () => {
    model.push({ text: 'Rooms are booked in 30-minute slots.' });
    await chat('sample-text', 'How are rooms booked?');
    expect(await answerText()).toBe('Rooms are booked in 30-minute slots.');
    expect(await page.locator('li.message.user').textContent()).toBe('How are rooms booked?');
    expect(JSON.stringify(model.requests.at(-1)?.body)).toContain('How are rooms booked?');
    expect(consoleErrors()).toEqual([]);
  });

  it('shows a tool call with its name, input and output, then the answer', async () => {
    model.push(
      { toolCalls: [{ name: 'local_time', arguments: { timeZone: 'Europe/Paris' } }] },
      { text: 'It is tea time in Paris.' },
    );
    await chat('sample-tool', 'What time is it in Paris?');
    expect(await answerText()).toBe('It is tea time in Paris.');
    const call = page.locator('.tool[data-tool="local_time"]');
    expect(await call.getAttribute('data-state')).toBe('output-available');
    expect(await call.locator('.name').textContent()).toBe('local_time');
    expect(JSON.parse((await call.locator('.input').textContent()) ?? '')).toEqual({
      timeZone: 'Europe/Paris',
    });
    expect(await call.locator('.output').textContent()).toMatch(/\d{2}:\d{2}/);
    expect(consoleErrors()).toEqual([]);
  });

  it('holds a booking for approval; Approve runs it and the turn goes on in the same message', async () => {
    model.push({
      toolCalls: [{ name: 'book_room', arguments: { room: 'Orion', start: '2026-12-01 14:30' } }],
    });
    await chat('sample-approve', 'Book Orion at 14:30 on 1 December.');
    const call = page.locator('.tool[data-tool="book_room"]');
    await page.locator('.tool[data-state="approval-requested"] .approval').waitFor();
    expect(JSON.parse((await call.locator('.input').textContent()) ?? '')).toEqual({
      room: 'Orion',
      start: '2026-12-01 14:30',
    });
    await page.screenshot({
      path: screenshotPath('ai-sdk-chat-approval.png'),
      clip: { x: 270, y: 0, width: 740, height: 340 },
    });
    model.push({ text: 'Orion is yours at 14:30.' });
    await page.getByRole('button', { name: 'Approve' }).click();
    await page.locator('.tool[data-state="output-available"]').waitFor();
    expect(await answerText()).toBe('Orion is yours at 14:30.');
    expect(await call.locator('.output').textContent()).toBe(
      JSON.stringify('Booked Orion from 2026-12-01 14:30 for 30 minutes.'),
    );
    // One assistant message, one call: the answer continued the message that asked.
    expect(await page.locator('li.message.assistant').count()).toBe(1);
    expect(await call.count()).toBe(1);
    expect(consoleErrors()).toEqual([]);
  });

  it('refuses a booking on Reject: the call shows rejected and the agent answers without it', async () => {
    model.push({
      toolCalls: [{ name: 'book_room', arguments: { room: 'Vega', start: '2026-12-02 09:00' } }],
    });
    await chat('sample-reject', 'Book Vega at 9:00 on 2 December.');
    await page.locator('.tool[data-state="approval-requested"] .approval').waitFor();
    model.push({ text: 'I did not book Vega.' });
    await page.getByRole('button', { name: 'Reject' }).click();
    await page.locator('.tool[data-state="output-denied"]').waitFor();
    expect(await answerText()).toBe('I did not book Vega.');
    expect(await page.locator('.tool[data-tool="book_room"] .denied').textContent()).toBe(
      'rejected',
    );
    expect(consoleErrors()).toEqual([]);
  });

  it('stops an answer with Stop: its run is cancelled and the message keeps what was said', async () => {
    const words = Array.from({ length: 20 }, (_, i) => `word${i} `);
    model.push({ text: words, delayMs: 100 });
    await chat('sample-stop', 'Tell me a story, then stop.');
    const assistant = page.locator('li.message.assistant').last();
    await waitFor(
      async () => (await assistant.count()) === 1 && (await texts(assistant)).includes('word2 '),
    );
    await page.getByRole('button', { name: 'Stop' }).click();
    const told = await answerText();
    expect(told.startsWith('word0 word1 word2 ')).toBe(true);
    expect(told).not.toContain('word19');
    expect(await page.getByRole('button', { name: 'Stop' }).count()).toBe(0);
    const runs = (await (await fetch(`${service}/runs?session_id=sample-stop`)).json()) as {
      runs: { status: string }[];
    };
    expect(runs.runs.map((run) => run.status)).toEqual(['cancelled']);
    expect(consoleErrors()).toEqual([]);
  });

  it('resumes a slow answer after a reload in its middle, to the complete message', async () => {
    const words = Array.from({ length: 20 }, (_, i) => `word${i} `);
    model.push({ text: words, delayMs: 100 });
    await chat('sample-resume', 'Tell me a long story.');
    const assistant = page.locator('li.message.assistant').last();
    await waitFor(
      async () => (await assistant.count()) === 1 && (await texts(assistant)).includes('word3 '),
    );
    expect(await texts(assistant)).not.toContain('word19');
    await page.reload();
    // The question comes back from sessionStorage; the answer from the service's event log.
    // (The page shows the stored partial answer, status ready, before its resume request
    // starts: wait for the text itself.)
    const resumed = page.locator('li.message.assistant');
    await waitFor(async () => (await texts(resumed.last())) === words.join(''));
    expect(await page.locator('li.message.user').textContent()).toBe('Tell me a long story.');
    expect(await answerText()).toBe(words.join(''));
    expect(await page.locator('li.message').count()).toBe(2);
    expect(consoleErrors()).toEqual([]);
  });
});
