/**
 * The run inspector (`/ui`) in a real Chromium (Playwright, Debian's `chromium`) against real
 * `service-serve` processes and the scripted model server: a run appears in the list without
 * a reload, its timeline fills while it streams and a reload mid-run loses nothing, filters
 * and paging, pause then resume, cancel, why a run failed (#41), the inbox answering a waiting
 * workflow, queued runs (ui-queue-tests.ts), the trace waterfall (ui-trace-tests.ts),
 * datasets from selected runs and two experiments compared (ui-evals-tests.ts), the API-key
 * prompt, and read-only mode. Every test fails on a console error it did not expect.
 * Screenshots of each page go to build/screenshots/ui-*.png (docs/ under
 * `npm run docs:screenshots`).
 */
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type ScriptedModelServer, scriptedModelServer } from '../../src/testing/index.js';
import {
  type BrowserSession,
  CHROMIUM,
  openBrowserPage,
  screenshotPath,
} from '../support/browser.js';
import { cuttableProxy } from '../support/cuttable-proxy.js';
import { postJson } from '../support/http.js';
import { killServers, type ServerProcess, startServer } from '../support/server-process.js';
import { runStatus, waitFor } from '../support/studio-pages.js';
import { evalsTests } from './ui-evals-tests.js';
import { failureTests } from './ui-failure-tests.js';
import { inboxTests } from './ui-inbox-tests.js';
import { queueTests } from './ui-queue-tests.js';
import { replayTests } from './ui-replay-tests.js';
import { traceTests } from './ui-trace-tests.js';

const ROOT = resolve(import.meta.dirname, '../..');
const PROJECT = join(ROOT, 'test/fixtures/ui/.agentdeck');
const KEY = 'ui-test-key-4b1d';
const skip = existsSync(CHROMIUM)
  ? null
  : `(skipped: no Chromium at ${CHROMIUM}; apt-get install chromium)`;

let session: BrowserSession;
let page: Page;
let model: ScriptedModelServer;
const servers: ServerProcess[] = [];
let served: ServerProcess; // SERVICE_UI on, no keys
let url: string;
let readOnlyServer: ServerProcess;
let keyed: ServerProcess; // SERVICE_API_KEYS set
let readOnly: string; // SERVICE_UI=read-only
let bookerLog: string;
const dirs = new Map<ServerProcess, string>(); // each server's directory: its SQLite log

async function serve(env: Record<string, string>): Promise<ServerProcess> {
  const dir = mkdtempSync(join(tmpdir(), 'agentdeck-ui-'));
  const server = startServer(
    PROJECT,
    {
      OPENAI_BASE_URL: model.url,
      OPENAI_API_KEY: 'sk-test',
      OPENAI_USE_RESPONSES: 'false',
      ...env,
    },
    dir,
  );
  servers.push(server);
  dirs.set(server, dir);
  await server.url;
  return server;
}

beforeAll(async () => {
  if (skip) return;
  model = await scriptedModelServer([]);
  bookerLog = join(mkdtempSync(join(tmpdir(), 'agentdeck-ui-booker-')), 'booker.log');
  const [main, withKeys, reading] = await Promise.all([
    // No queue worker: a background run stays queued (ui-queue-tests.ts).
    serve({ BOOKER_LOG: bookerLog, BOOKER_MS: '4000', SERVICE_QUEUE_CONCURRENCY: '0' }),
    serve({ SERVICE_API_KEYS: KEY }),
    serve({ SERVICE_UI: 'read-only' }),
    openBrowserPage().then((opened) => {
      session = opened;
    }),
  ]);
  served = main as ServerProcess;
  url = await served.url;
  keyed = withKeys as ServerProcess;
  readOnlyServer = reading as ServerProcess;
  readOnly = await readOnlyServer.url;
  page = session.page;
  await page.setViewportSize({ width: 1280, height: 800 });
}, 90_000);

afterAll(async () => {
  await killServers(servers);
  await model?.close();
  await session?.close();
});

beforeEach(() => {
  session?.consoleErrors.splice(0);
});

/** Console errors, minus those a test expects. */
function unexpectedErrors(expected: RegExp[] = []): string[] {
  return session.consoleErrors.splice(0).filter((text) => !expected.some((re) => re.test(text)));
}

/** Start an agent turn as a streaming client would; resolves its run id at once. */
async function chat(agent: string, sessionId: string, message: string) {
  const response = await fetch(
    `${url}/agents/${agent}/chat?stream=true`,
    postJson({ session_id: sessionId, message }),
  );
  const runId = response.headers.get('x-run-id') ?? '';
  const ended = response.text(); // read to its end, as its client would
  return { runId, ended };
}

async function startApproval(thread: string, amount = 5): Promise<string> {
  const response = await fetch(
    `${url}/workflows/approval?thread_id=${thread}`,
    postJson({ amount }),
  );
  await response.text();
  return response.headers.get('x-run-id') ?? '';
}

const bookerLines = () =>
  existsSync(bookerLog) ? readFileSync(bookerLog, 'utf8').trim().split('\n') : [];

/** Every event of the run once, in order: the page's count is the log's, each seq shows once. */
async function expectEveryEventOnce(runId: string) {
  const detail = (await (await fetch(`${url}/runs/${runId}`)).json()) as { last_seq: number };
  expect(await page.locator('h2 .count').textContent()).toBe(`${detail.last_seq + 1} events`);
  const raw = await page.locator('.raw pre').allTextContents();
  const seqs = raw
    .flatMap((text) => text.split(/\n(?=\{)/))
    .map((text) => (JSON.parse(text) as { seq: number }).seq)
    .sort((a, b) => a - b);
  expect(seqs).toEqual(Array.from({ length: detail.last_seq + 1 }, (_, i) => i));
}

const row = (runId: string) => page.locator(`tr[data-run-id="${runId}"]`);

/** Confirm the action dialog the button `verb` opens. */
async function act(verb: 'Pause' | 'Resume' | 'Cancel') {
  await page.getByRole('button', { name: verb, exact: true }).click();
  const dialog = page.getByRole('dialog');
  await dialog.waitFor();
  await dialog.getByRole('button', { name: `${verb} run` }).click();
}

describe.skipIf(skip !== null)(`the run inspector ${skip ?? ''}`, () => {
  it('is announced by service-serve with its address', async () => {
    // Printed right after the line that gives the URL, maybe in a later chunk of stdout.
    const announced = (server: ServerProcess, line: string) =>
      waitFor(() => server.out().includes(line), 5_000);
    await announced(served, `agentdeck: run inspector at ${url}/ui\n`);
    await announced(readOnlyServer, `agentdeck: run inspector at ${readOnly}/ui (read-only)\n`);
  });

  it('shows a new run in the list without a reload, and its status as it changes', async () => {
    await page.goto(`${url}/ui`);
    await page.getByRole('heading', { name: 'Runs' }).waitFor();
    await page.evaluate(() => {
      (window as unknown as { sameDocument: boolean }).sameDocument = true;
    });
    model.push({ text: Array.from({ length: 12 }, (_, i) => `part${i} `), delayMs: 500 });
    const { runId, ended } = await chat('helper', 'live-list', 'hello');
    // Listed within a refresh (2 s) while it still plays (6 s), then its status changes.
    await page.locator(`tr[data-run-id="${runId}"][data-status="running"]`).waitFor();
    await ended;
    await page.locator(`tr[data-run-id="${runId}"][data-status="completed"]`).waitFor();
    expect(await row(runId).locator('td').nth(3).textContent()).toBe('helper');
    expect(await row(runId).locator('td').nth(4).textContent()).toBe('live-list');
    // Tokens come from the run's detail (the scripted usage: 10 in, 5 out).
    await waitFor(async () => (await row(runId).locator('td').nth(7).textContent()) === '15');
    expect(
      await page.evaluate(() => (window as unknown as { sameDocument?: boolean }).sameDocument),
    ).toBe(true);
    await startApproval('list-shot');
    await page.locator('tr[data-status="waiting_human"]').first().waitFor();
    expect(unexpectedErrors()).toEqual([]);
  }, 40_000);

  it('fills a run timeline while it streams; a reload mid-run loses nothing', async () => {
    const words = Array.from({ length: 30 }, (_, i) => `word${i} `);
    model.push({ text: words, delayMs: 150 });
    const { runId, ended } = await chat('helper', 'streaming', 'talk');
    await page.goto(`${url}/ui/runs/${runId}`);
    const message = page.locator('.entry.t-message .message-text');
    await waitFor(async () => ((await message.textContent()) ?? '').includes('word3 '));
    const partial = (await message.textContent()) ?? '';
    expect(partial).not.toContain('word29');
    expect(await page.locator('.entry.t-message .streaming').count()).toBe(1);
    // While text streams in, nothing on the page jumps (Layout Instability API): only the
    // "JSON" line under the growing text moves down a line as it wraps (a score near 0.0001;
    // 0.1 is the "good" limit of Core Web Vitals).
    await page.evaluate(() => {
      const shifts = window as unknown as { shifted: number };
      shifts.shifted = 0;
      new PerformanceObserver((list) => {
        for (const entry of list.getEntries())
          shifts.shifted += (entry as unknown as { value: number }).value;
      }).observe({ type: 'layout-shift' });
    });
    await waitFor(async () => ((await message.textContent()) ?? '').includes('word9 '));
    expect(
      await page.evaluate(() => (window as unknown as { shifted: number }).shifted),
    ).toBeLessThan(0.01);
    await page.reload(); // mid-run: the page reads the stream again from the start
    await waitFor(async () => ((await message.textContent()) ?? '').includes('word6 '));
    expect((await message.textContent()) ?? '').not.toContain('word29');
    await ended;
    await page.locator('[data-testid="run-status"].s-completed').waitFor();
    await page.locator('[data-kind="run.completed"]').waitFor();
    expect(await message.textContent()).toBe(words.join(''));
    await expectEveryEventOnce(runId);
    // The raw JSON of an event is one click away.
    const first = page.locator('[data-kind="run.started"] details.raw');
    await first.locator('summary').click();
    expect(await first.locator('pre').isVisible()).toBe(true);
    expect(await first.locator('pre').textContent()).toContain(`"run_id": "${runId}"`);
    await page.screenshot({ path: screenshotPath('ui-run.png'), fullPage: true });
    expect(unexpectedErrors()).toEqual([]);
  }, 40_000);

  it('misses nothing when its connection drops mid-run: it resumes with Last-Event-ID', async () => {
    const proxy = await cuttableProxy(new URL(url).port);
    const resumedAfter: string[] = [];
    const watch = (request: { url(): string; headers(): Record<string, string> }) => {
      const after = request.headers()['last-event-id'];
      if (request.url().endsWith('/events') && after !== undefined) resumedAfter.push(after);
    };
    page.on('request', watch);
    try {
      const words = Array.from({ length: 30 }, (_, i) => `w${i} `);
      model.push({ text: words, delayMs: 150 });
      const { runId, ended } = await chat('helper', 'dropped', 'talk');
      await page.goto(`${proxy.url}/ui/runs/${runId}`);
      const message = page.locator('.entry.t-message .message-text');
      await waitFor(async () => ((await message.textContent()) ?? '').includes('w3 '));
      proxy.cut(); // the page's stream (and anything else in flight) drops mid-run
      await ended;
      await page.locator('[data-testid="run-status"].s-completed').waitFor();
      await page.locator('[data-kind="run.completed"]').waitFor();
      expect(await message.textContent()).toBe(words.join(''));
      await expectEveryEventOnce(runId);
      expect(resumedAfter.length).toBeGreaterThanOrEqual(1);
      expect(Number(resumedAfter[0])).toBeGreaterThanOrEqual(3);
      expect(
        unexpectedErrors([/ERR_EMPTY_RESPONSE|ERR_CONNECTION|ERR_INCOMPLETE_CHUNKED_ENCODING/]),
      ).toEqual([]);
    } finally {
      page.off('request', watch);
      // Leave the proxy's origin first: the page's requests to it would fail in the next test.
      await page.goto('about:blank');
      await proxy.close();
    }
  }, 40_000);

  it('pauses a running agent turn, shows the request then its effect, and resumes it', async () => {
    model.push(
      { toolCalls: [{ name: 'book', arguments: { room: '7' }, callId: 'call_7' }] },
      { text: ['Room 7 ', 'is booked.'] },
    );
    const { runId, ended } = await chat('booker', 'pause-resume', 'Book room 7');
    await page.goto(`${url}/ui/runs/${runId}`);
    await waitFor(() => bookerLines().includes('start 7'));
    await page.locator('[data-kind="tool.call.started"]').waitFor();
    await act('Pause');
    const log = page.locator('.action-log [data-verb="pause"]');
    await log.filter({ hasText: 'request recorded' }).waitFor();
    await page.locator('[data-testid="run-status"].s-paused').waitFor({ timeout: 15_000 });
    await page.locator('.action-log [data-verb="pause"][data-done="yes"]').waitFor();
    expect(await log.textContent()).toMatch(
      /request recorded → in the run's log \(#\d+\) → seen by the run \(#\d+\) → paused \(#\d+\)/,
    );
    await page.locator('[data-kind="control.requested"]').waitFor();
    await page.locator('[data-kind="run.paused"]').waitFor();
    await page.screenshot({ path: screenshotPath('ui-actions.png') });
    await ended;
    expect(bookerLines()).toEqual(['start 7', 'done 7']);

    await act('Resume');
    await page.locator('[data-testid="run-status"].s-completed').waitFor({ timeout: 15_000 });
    await page.locator('.action-log [data-verb="resume"][data-done="yes"]').waitFor();
    expect(await page.locator('.action-log [data-verb="resume"]').textContent()).toContain(
      'now completed',
    );
    await page.locator('[data-kind="run.resumed"]').waitFor();
    expect(await page.locator('.entry.t-message .message-text').last().textContent()).toBe(
      'Room 7 is booked.',
    );
    expect(bookerLines()).toEqual(['start 7', 'done 7']); // the tool ran once
    expect(await runStatus(url, runId)).toBe('completed');
    expect(unexpectedErrors()).toEqual([]);
  }, 60_000);

  it('shows a reply a pause cut short as cut off, and what became of each request', async () => {
    const words = Array.from({ length: 40 }, (_, i) => `cut${i} `);
    model.push({ text: words, delayMs: 100 }, { text: ['Said ', 'again.'] });
    const { runId, ended } = await chat('helper', 'cut-short', 'talk');
    await page.goto(`${url}/ui/runs/${runId}`);
    const cut = page.locator('.entry.t-message').first();
    await waitFor(async () =>
      ((await cut.locator('.message-text').textContent()) ?? '').includes('cut1 '),
    );
    await act('Pause');
    await page.locator('[data-testid="run-status"].s-paused').waitFor({ timeout: 15_000 });
    await ended;
    await act('Resume');
    await page.locator('[data-testid="run-status"].s-completed').waitFor({ timeout: 15_000 });
    await page.locator('[data-kind="run.completed"]').waitFor();
    // The reply cut short never completes (on resume the model answers under a new id).
    expect(await page.locator('.entry .streaming').count()).toBe(0);
    expect(await cut.locator('.entry-label').textContent()).toContain('cut off: the run paused');
    expect(await page.locator('.entry.t-message .message-text').last().textContent()).toBe(
      'Said again.',
    );
    const outcomes = await page
      .locator('[data-kind="control.requested"] .control-outcome')
      .allTextContents();
    expect(outcomes).toHaveLength(2);
    expect(outcomes[0]).toMatch(/^observed by the run at .+; the run paused \(#\d+\)$/);
    expect(outcomes[1]).toMatch(/^the run resumed \(#\d+\)$/);
    expect(unexpectedErrors()).toEqual([]);
  }, 30_000);

  it('links a workflow called as a tool and the turn that called it, both ways', async () => {
    model.push(
      { toolCalls: [{ name: 'quote', arguments: { nights: 3 }, callId: 'call_q' }] },
      { text: 'Three nights: 270.' },
    );
    const { runId, ended } = await chat('planner', 'child-runs', 'Quote 3 nights');
    await ended;
    const children = (await (await fetch(`${url}/runs?origin=quote`)).json()) as {
      runs: { run_id: string }[];
    };
    const child = children.runs[0]?.run_id ?? '';
    expect(child).not.toBe('');
    await page.goto(`${url}/ui/runs/${runId}`);
    const link = page.locator(`.facts a[href="/ui/runs/${child}"]`);
    await link.waitFor();
    await link.click();
    await page.waitForURL(`${url}/ui/runs/${child}`);
    await page.locator(`.facts a[href="/ui/runs/${runId}"]`).waitFor(); // "Called by"
    await page.locator('[data-kind="node.updated"]').waitFor();
    expect(await page.locator('[data-kind="node.updated"] pre.json').textContent()).toContain(
      '"total": 270',
    );
    expect(unexpectedErrors()).toEqual([]);
  }, 30_000);

  it('cancels a running turn after confirmation (and Back changes nothing)', async () => {
    model.push({ toolCalls: [{ name: 'book', arguments: { room: '9' }, callId: 'call_9' }] });
    const { runId, ended } = await chat('booker', 'cancel-me', 'Book room 9');
    await page.goto(`${url}/ui/runs/${runId}`);
    await waitFor(() => bookerLines().includes('start 9'));
    await page.getByRole('button', { name: 'Cancel', exact: true }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Back' }).click();
    expect(await page.getByRole('dialog').count()).toBe(0);
    expect(await runStatus(url, runId)).toBe('running');
    await page.getByRole('button', { name: 'Cancel', exact: true }).click();
    await page.getByRole('dialog').getByLabel('Reason (optional)').fill('wrong room');
    await page.getByRole('dialog').getByRole('button', { name: 'Cancel run' }).click();
    await page.locator('[data-testid="run-status"].s-cancelled').waitFor({ timeout: 15_000 });
    await page.locator('[data-kind="run.cancelled"]').waitFor();
    expect(await page.locator('[data-kind="control.requested"]').textContent()).toContain(
      'wrong room',
    );
    await ended;
    expect(bookerLines()).toContain('aborted 9');
    expect(await runStatus(url, runId)).toBe('cancelled');
    // The list now has runs of every kind so far: its screenshot is the README's.
    await page.goto(`${url}/ui`);
    await page.locator(`tr[data-run-id="${runId}"][data-status="cancelled"]`).waitFor();
    await waitFor(async () => (await page.locator('td.num', { hasText: /^\d+$/ }).count()) >= 6);
    await page.screenshot({ path: screenshotPath('ui-runs.png') });
    expect(unexpectedErrors()).toEqual([]);
  }, 40_000);

  it('filters by origin, status and session, pages without skipping, and opens a run by id', async () => {
    const threads = Array.from({ length: 56 }, (_, i) => `page-${String(i).padStart(2, '0')}`);
    const ids: string[] = [];
    for (const thread of threads) ids.push(await startApproval(thread));
    await page.goto(`${url}/ui`);
    await page.getByLabel('Origin').selectOption('approval');
    await page.waitForURL(/\/ui\?origin=approval$/);
    await page.getByLabel('Status').selectOption('waiting_human');
    await page.waitForURL(/\/ui\?status=waiting_human&origin=approval$/);
    await page.locator('tbody tr').nth(49).waitFor();
    expect(await page.locator('tbody tr').count()).toBe(50);
    // Older runs start meanwhile: the cursor still lists each run once, none skipped.
    const more = [await startApproval('page-late-1'), await startApproval('page-late-2')];
    await page.getByRole('button', { name: 'Older runs' }).click();
    await page.getByText(/^All \d+ runs shown\.$/).waitFor();
    // The list grows with the runs that start while it is open (none falls off its end).
    const all = (await (
      await fetch(`${url}/runs?origin=approval&status=waiting_human&limit=500`)
    ).json()) as { runs: { run_id: string }[] };
    await waitFor(async () => (await page.locator('tbody tr').count()) === all.runs.length);
    expect(await page.getByRole('button', { name: 'Older runs' }).count()).toBe(0);
    const listed = await page
      .locator('tbody tr')
      .evaluateAll((rows) => rows.map((r) => (r as HTMLElement).dataset.runId ?? ''));
    expect(new Set(listed).size).toBe(listed.length);
    for (const id of [...ids, ...more]) expect(listed).toContain(id);
    for (const status of await page
      .locator('tbody tr')
      .evaluateAll((rows) => rows.map((r) => (r as HTMLElement).dataset.status))) {
      expect(status).toBe('waiting_human');
    }
    // A reload keeps the filters (they are in the URL); a session filter narrows to one.
    await page.reload();
    expect(await page.getByLabel('Origin').inputValue()).toBe('approval');
    await page.getByLabel('Session or thread').fill('page-07');
    await page.getByLabel('Session or thread').press('Enter');
    await waitFor(async () => (await page.locator('tbody tr').count()) === 1);
    expect(await page.locator('tbody tr').getAttribute('data-run-id')).toBe(ids[7]);
    await page.getByLabel('Status').selectOption('completed');
    await page.getByText('No runs yet.').waitFor();
    // The search opens a run by its id, and says so when there is none.
    await page.getByPlaceholder('Go to run id…').fill('no-such-run');
    await page.getByRole('button', { name: 'Open' }).click();
    await page.getByText("No run 'no-such-run'.").waitFor();
    await page.getByPlaceholder('Go to run id…').fill(ids[3] ?? '');
    await page.getByRole('button', { name: 'Open' }).click();
    await page.waitForURL(`${url}/ui/runs/${ids[3]}`);
    await page.locator('[data-kind="run.interrupted"]').waitFor();
    expect(unexpectedErrors([/status of 404/])).toEqual([]);
  }, 90_000);

  inboxTests(() => ({ page, model, url, startApproval, unexpectedErrors }));
  queueTests(() => ({ page, url, unexpectedErrors }));
  failureTests(() => ({ page, url, unexpectedErrors }));
  traceTests(() => ({
    page,
    model,
    url,
    storePath: join(dirs.get(served) ?? '', '.agentdeck/state.db'),
    chat,
    unexpectedErrors,
  }));
  evalsTests(() => ({ page, model, url, chat, unexpectedErrors }));
  replayTests(() => ({ page, model, url, unexpectedErrors }));

  it('asks for the API key once, keeps it for the tab, never in a URL', async () => {
    const server = await keyed.url;
    await page.goto(`${server}/ui`);
    const dialog = page.getByRole('dialog', { name: 'API key' });
    await dialog.waitFor();
    await page.screenshot({ path: screenshotPath('ui-key.png') });
    await dialog.getByLabel('Key').fill('not-the-key');
    await dialog.getByRole('button', { name: 'Use this key' }).click();
    await page.getByText('That key was refused. Try another.').waitFor();
    await page.getByRole('dialog', { name: 'API key' }).getByLabel('Key').fill(KEY);
    await page.getByRole('button', { name: 'Use this key' }).click();
    await page.getByText('No runs yet.').waitFor();
    expect(await page.getByRole('dialog').count()).toBe(0);
    // Kept for the tab: another page of the inspector asks nothing.
    const inboxRead = page.waitForResponse((response) => response.url().endsWith('/pending'));
    await page.goto(`${server}/ui/inbox`);
    expect((await inboxRead).status()).toBe(200); // the kept key was sent
    await page.getByText('Nothing is waiting for a person.').waitFor();
    expect(await page.getByRole('dialog').count()).toBe(0);
    expect(page.url()).not.toContain(KEY);
    expect(keyed.out() + keyed.err()).not.toContain(KEY);
    // Another tab (a new sessionStorage) is asked again.
    const other = await session.context.newPage();
    await other.goto(`${server}/ui`);
    await other.getByRole('dialog', { name: 'API key' }).waitFor();
    await other.close();
    expect(unexpectedErrors([/status of 401/])).toEqual([]);
  }, 40_000);

  it('shows no control that changes a run in read-only mode', async () => {
    const response = await fetch(
      `${readOnly}/workflows/approval?thread_id=read-only`,
      postJson({ amount: 1 }),
    );
    const runId = response.headers.get('x-run-id') ?? '';
    await response.text();
    await page.goto(`${readOnly}/ui/runs/${runId}`);
    await page.locator('[data-kind="run.interrupted"]').waitFor();
    expect(await page.locator('header .mode').textContent()).toBe('read-only');
    expect(await page.getByRole('button', { name: 'Cancel', exact: true }).count()).toBe(0);
    expect(await page.getByRole('button', { name: 'Pause', exact: true }).count()).toBe(0);
    await page.goto(`${readOnly}/ui/inbox`);
    await page.locator(`article.card[data-run-id="${runId}"]`).waitFor();
    expect(await page.locator('textarea').count()).toBe(0);
    await page.getByText('Read-only: answer through the API.').waitFor();
    expect(unexpectedErrors()).toEqual([]);
  }, 30_000);
});
