/**
 * A run's page with 5,000 events (#41): how soon its waterfall is drawn and every event is in.
 * One agent run seeded straight into a SQLite log (mixed kinds, as a long agent turn records
 * them: model requests with their values stored once per run, streamed text, tool calls,
 * usage reports; appended step by step so the events spread over about a second), served by
 * `service-serve`, opened in Debian's Chromium (Playwright), each load in a fresh context (no
 * cache). The page's own marks, from navigation start: `agentdeck:trace-drawn` (the first
 * bars of the waterfall drawn) and `agentdeck:trace-complete` (the run's last event drawn:
 * all 5,000 read, folded into the timeline and the waterfall); then, in the page, a click on a
 * model request until its request and response are on screen, and a scroll of the waterfall
 * to its end until its last rows are.
 *
 * Run: `npm run bench:ui-trace` (or `npx tsx bench/ui-trace.bench.ts`). Rewrites its section
 * of bench/RESULTS.md. Needs /usr/bin/chromium (or CHROMIUM_PATH).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { chromium, type Page } from 'playwright-core';
import { TextBlock } from '../src/core/blocks.js';
import type { NewEvent } from '../src/core/events.js';
import { SqliteEventStore } from '../src/stores/sqlite/index.js';
import { type Envelope, run, sleep } from '../src/testing/event-store-events.js';
import { CHROMIUM } from '../test/support/browser.js';
import { startServer } from '../test/support/server-process.js';
import { loadAtStart, machineLine, median, table, writeSection } from './support/report.js';

const EVENTS = Number(process.env.UI_TRACE_EVENTS ?? 5_000);
const LOADS = 5;
const ROOT = resolve(import.meta.dirname, '..');
const PROJECT = join(ROOT, 'test/fixtures/scale/.agentdeck');
/** Input items the model is sent at most (a history policy): the request's digests list. */
const HISTORY = 40;

/** One step of an agent turn: a model request streaming its reply, its usage, a tool call. */
function step(r: Envelope, i: number, history: string[]): NewEvent[] {
  const asked = `v:msg-${i}`;
  const called = `v:out-${i}`;
  const first = i === 0;
  history.push(asked);
  const values: Record<string, unknown> = {
    [asked]: { type: 'function_call_output', call_id: `call-${i - 1}`, output: `result ${i}` },
  };
  if (first) {
    values['v:instr'] = 'You book rooms. Ask before booking anything over 500.';
    values['v:tool-book'] = { type: 'function', name: 'book', parameters: { type: 'object' } };
  }
  const e = (kind: string, payload: unknown) => ({ ...r, kind, payload }) as NewEvent;
  const callId = `mc-${i}`;
  const deltas = Array.from({ length: 13 }, (_, k) =>
    e('text.delta', { messageId: `m-${i}`, text: `word${k} ` }),
  );
  const events = [
    e('model.call.started', {
      callId,
      model: 'gpt-4o-mini',
      settings: { temperature: 0.2 },
      instructions: 'v:instr',
      tools: ['v:tool-book'],
      messages: history.slice(-HISTORY),
      values,
      detail: 'full',
    }),
    ...deltas,
    e('message.completed', {
      messageId: `m-${i}`,
      role: 'assistant',
      content: [new TextBlock('word '.repeat(13))],
    }),
    e('model.call.completed', {
      callId,
      output: [{ type: 'function_call', name: 'book', call_id: `call-${i}`, arguments: '{}' }],
      finishReason: 'tool_calls',
      inputTokens: 400 + i,
      outputTokens: 30,
      latencyMs: 3,
      providerRequestId: `req-${i}`,
      error: null,
    }),
    e('usage.reported', {
      model: 'gpt-4o-mini',
      requests: 1,
      inputTokens: 400 + i,
      outputTokens: 30,
      totalTokens: 430 + i,
      usd: 0.00008,
    }),
    e('tool.call.started', { callId: `call-${i}`, name: 'book', arguments: { room: i } }),
    e('tool.call.completed', { callId: `call-${i}`, name: 'book', output: `ok ${i}`, error: null }),
  ];
  history.push(called);
  return events;
}

/** A run of `EVENTS` events in the SQLite log at `path`; resolves its id. */
async function fill(path: string): Promise<string> {
  const store = new SqliteEventStore({ path });
  const r = run({ origin: 'booker', sessionId: 'trace-bench' });
  try {
    await store.append([
      {
        ...r,
        kind: 'run.started',
        payload: { invocableType: 'agent', input: [new TextBlock('Book rooms')] },
      },
    ]);
    let count = 1;
    const history: string[] = [];
    for (let i = 0; count < EVENTS - 1; i++) {
      const events = step(r, i, history).slice(0, EVENTS - 1 - count);
      await store.append(events);
      count += events.length;
      await sleep(4); // the steps spread over time, as a run's do
    }
    await store.append([
      { ...r, kind: 'run.completed', payload: { output: [new TextBlock('Booked.')], usage: null } },
    ]);
  } finally {
    await store.close();
  }
  return r.runId;
}

interface Load {
  whoamiMs: number;
  firstByteMs: number;
  streamEndMs: number;
  drawnMs: number;
  completeMs: number;
  clickMs: number;
  scrollMs: number;
  rowsInDom: number;
  rows: number;
  entriesInDom: number;
}

async function measure(page: Page, url: string, runId: string): Promise<Load> {
  await page.goto(`${url}/ui/runs/${runId}`);
  await page.waitForFunction(
    () => performance.getEntriesByName('agentdeck:trace-complete').length > 0,
    undefined,
    { polling: 10, timeout: 30_000 },
  );
  // A string, not a function: tsx would wrap a function's inner names in a helper the page lacks.
  return page.evaluate(MEASURE) as Promise<Load>;
}

const MEASURE = `(async () => {
  const mark = (name) => performance.getEntriesByName(name)[0].startTime;
  const frame = () => new Promise((done) => requestAnimationFrame(() => done()));
  const until = async (test) => { while (!test()) await frame(); };
  const box = document.querySelector('.trace-rows');
  const rowsInDom = box.querySelectorAll('.trace-row').length;
  const clicked = performance.now();
  document.querySelector('.trace-row[data-kind="model"]').click();
  await until(() => document.querySelector('[data-testid="model-request"] .trace-messages li'));
  await frame();
  const clickMs = performance.now() - clicked;
  const scrolled = performance.now();
  box.scrollTop = box.scrollHeight;
  const lastId = box.querySelector('.trace-line:last-child .trace-row');
  await until(() => box.querySelector('.trace-line:last-child .trace-row') !== lastId
    && box.querySelector('.trace-line:last-child .trace-row')?.dataset.bar !== lastId?.dataset.bar);
  await frame();
  const read = (part) => performance.getEntriesByType('resource').find((r) => r.name.includes(part));
  const events = read('/events');
  return {
    whoamiMs: read('/whoami').responseEnd,
    firstByteMs: events.responseStart,
    streamEndMs: events.responseEnd,
    drawnMs: mark('agentdeck:trace-drawn'),
    completeMs: mark('agentdeck:trace-complete'),
    clickMs,
    scrollMs: performance.now() - scrolled,
    rowsInDom,
    rows: Number(box.dataset.rows),
    entriesInDom: document.querySelectorAll('.timeline > li').length,
  };
})()`;

async function main() {
  const load = loadAtStart();
  const dir = mkdtempSync(join(tmpdir(), 'agentdeck-ui-trace-bench-'));
  const db = join(dir, 'state.db');
  const runId = await fill(db);
  const server = startServer(PROJECT, { SERVICE_EVENTS: `sqlite://${db}` }, dir);
  const url = await server.url;
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'],
  });
  const loads: Load[] = [];
  try {
    const warmup = await browser.newContext();
    await measure(await warmup.newPage(), url, runId); // the server's first reads, untimed
    await warmup.close();
    for (let i = 0; i < LOADS; i++) {
      const context = await browser.newContext();
      const page = await context.newPage();
      await page.setViewportSize({ width: 1280, height: 800 });
      loads.push(await measure(page, url, runId));
      await context.close();
    }
  } finally {
    await browser.close();
    server.child.kill('SIGTERM');
    await server.exited;
    rmSync(dir, { recursive: true, force: true });
  }
  const ms = (pick: (l: Load) => number) => {
    const values = loads.map(pick);
    return [`${median(values).toFixed(0)} ms`, `${Math.max(...values).toFixed(0)} ms`];
  };
  const first = loads[0] as Load;
  const lines = [
    '## Run inspector: a run of 5,000 events (`npm run bench:ui-trace`)',
    '',
    `One agent run of ${EVENTS.toLocaleString('en-US')} events (model requests with their values ` +
      'stored once per run, streamed text, tool calls, usage reports) in a SQLite log, served by ' +
      `\`service-serve\`, its page opened ${LOADS} times in Chromium (headless), each in a fresh ` +
      'context. "Waterfall drawn" is the page\'s mark when the first bars are in the document, ' +
      '"all events drawn" when the last event is folded into the timeline and the waterfall ' +
      '(the page is interactive: the stream is read to its end), both from navigation start ' +
      '(goal: under 1 s); where the time goes: when the page had run its modules and read ' +
      "`/whoami`, and the event stream's first and last bytes. " +
      '"Open a model request" is a click on its bar until its messages are ' +
      'on screen, "scroll to the end" the waterfall scrolled to its last row until it is drawn.',
    '',
    ...table(
      ['measure', 'median', 'max'],
      [
        ['modules run (`/whoami` read)', ...ms((l) => l.whoamiMs)],
        ['events: first byte', ...ms((l) => l.firstByteMs)],
        ['events: last byte', ...ms((l) => l.streamEndMs)],
        ['waterfall drawn', ...ms((l) => l.drawnMs)],
        ['all events drawn', ...ms((l) => l.completeMs)],
        ['open a model request', ...ms((l) => l.clickMs)],
        ['scroll to the end', ...ms((l) => l.scrollMs)],
      ],
    ),
    '',
    `The waterfall has ${first.rows.toLocaleString('en-US')} rows, ${first.rowsInDom} of them in the ` +
      `document; the timeline draws ${first.entriesInDom} entries (its head and tail, the rest a click away).`,
    '',
    machineLine(load),
  ];
  writeSection('ui-trace.bench', lines);
  console.log(lines.join('\n'));
}

await main();
