/**
 * The run inspector's first page (#20): what a browser transfers and how soon the runs list
 * is on screen, with 10,000 runs in the log. A `service-serve` on a SQLite file filled with
 * 10,000 ended runs (each with its usage), Debian's Chromium (Playwright), a fresh browser
 * context per load (no cache): the time is the page's own mark `agentdeck:runs-listed` (set
 * when the first list is in the document, in runs-page.js), from navigation start; the bytes are the
 * Resource Timing `transferSize` of every response until then (headers and gzip bodies), the
 * page's files apart from the API's answers. Then the same with a warm cache (a reload: 304s).
 *
 * Run: `npm run bench:ui` (or `npx tsx bench/ui.bench.ts`). Rewrites its section of
 * bench/RESULTS.md. Needs /usr/bin/chromium (or CHROMIUM_PATH).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { chromium, type Page } from 'playwright-core';
import type { Usage } from '../src/core/event-kinds.js';
import { SqliteEventStore } from '../src/stores/sqlite/index.js';
import { ev, run } from '../src/testing/event-store-events.js';
import { CHROMIUM } from '../test/support/browser.js';
import { startServer } from '../test/support/server-process.js';
import { loadAtStart, machineLine, median, table, writeSection } from './support/report.js';

const RUNS = Number(process.env.UI_RUNS ?? 10_000);
const LOADS = 7;
const ROOT = resolve(import.meta.dirname, '..');
const PROJECT = join(ROOT, 'test/fixtures/scale/.agentdeck');
const ORIGINS = ['helper', 'booker', 'approval', 'nap'];

interface Load {
  listedMs: number;
  domContentLoadedMs: number;
  assetBytes: number;
  assetFiles: number;
  apiBytes: number;
  apiCalls: number;
}

async function fill(path: string): Promise<void> {
  const store = new SqliteEventStore({ path });
  try {
    for (let i = 0; i < RUNS; i++) {
      const r = run({ origin: ORIGINS[i % ORIGINS.length] ?? 'helper', sessionId: `s-${i % 500}` });
      const usage: Usage = {
        requests: 1,
        inputTokens: 120,
        outputTokens: 30,
        totalTokens: 150,
        usd: 0.0004,
      };
      await store.append([
        ev.started(r),
        { ...r, kind: 'usage.reported', payload: { model: 'bench', ...usage } },
        i % 10 === 0
          ? ev.failed(r)
          : { ...r, kind: 'run.completed', payload: { output: [], usage } },
      ]);
    }
  } finally {
    await store.close();
  }
}

/** One load of `/ui` in `page`, measured by the page itself. */
async function measure(page: Page, url: string, reload: boolean): Promise<Load> {
  if (reload) await page.reload();
  else await page.goto(`${url}/ui`);
  await page.waitForFunction(
    () => performance.getEntriesByName('agentdeck:runs-listed').length > 0,
    undefined,
    { polling: 10, timeout: 30_000 },
  );
  await page.locator('tbody tr').first().waitFor();
  // A string, not a function: tsx would wrap a function's inner names in a helper the page lacks.
  return page.evaluate(MEASURE) as Promise<Load>;
}

const MEASURE = `(() => {
  const listed = performance.getEntriesByName('agentdeck:runs-listed')[0].startTime;
  const navigation = performance.getEntriesByType('navigation')[0];
  const resources = performance.getEntriesByType('resource').filter((r) => r.responseEnd <= listed);
  const own = (r) => new URL(r.name).pathname.startsWith('/ui/');
  const assets = resources.filter(own);
  const api = resources.filter((r) => !own(r));
  const bytes = (list) => list.reduce((n, r) => n + r.transferSize, 0);
  return {
    listedMs: listed,
    domContentLoadedMs: navigation.domContentLoadedEventEnd,
    assetBytes: navigation.transferSize + bytes(assets),
    assetFiles: 1 + assets.length,
    apiBytes: bytes(api),
    apiCalls: api.length,
  };
})()`;

async function main() {
  const load = loadAtStart();
  const dir = mkdtempSync(join(tmpdir(), 'agentdeck-ui-bench-'));
  const db = join(dir, 'state.db');
  const filling = performance.now();
  await fill(db);
  console.log(`filled ${RUNS} runs in ${((performance.now() - filling) / 1000).toFixed(1)} s`);
  const server = startServer(PROJECT, { SERVICE_EVENTS: `sqlite://${db}` }, dir);
  const url = await server.url;
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'],
  });
  const cold: Load[] = [];
  const warm: Load[] = [];
  try {
    // One untimed load: the server's first reads (SQLite cache, module compile).
    const warmup = await browser.newContext();
    await measure(await warmup.newPage(), url, false);
    await warmup.close();
    for (let i = 0; i < LOADS; i++) {
      const context = await browser.newContext();
      const page = await context.newPage();
      cold.push(await measure(page, url, false));
      warm.push(await measure(page, url, true));
      await context.close();
    }
  } finally {
    await browser.close();
    server.child.kill('SIGTERM');
    await server.exited;
    rmSync(dir, { recursive: true, force: true });
  }
  const kb = (n: number) => `${(n / 1024).toFixed(1)} KB`;
  const row = (name: string, loads: Load[]) => {
    const times = loads.map((l) => l.listedMs);
    const first = loads[0] as Load;
    return [
      name,
      `${median(times).toFixed(0)} ms`,
      `${Math.max(...times).toFixed(0)} ms`,
      `${median(loads.map((l) => l.domContentLoadedMs)).toFixed(0)} ms`,
      `${kb(first.assetBytes)} (${first.assetFiles} files)`,
      `${kb(first.apiBytes)} (${first.apiCalls} calls)`,
    ];
  };
  const lines = [
    '## Run inspector: first page (`npm run bench:ui`)',
    '',
    `\`/ui\` with ${RUNS.toLocaleString('en-US')} ended runs in a SQLite log, served by \`service-serve\`, ` +
      `loaded ${LOADS} times in Chromium (headless), each in a fresh context (cold) then reloaded ` +
      '(warm: the files answer 304). "Listed" is the page\'s mark when the first list of 50 runs ' +
      'is in the document, its links and filters live, from navigation start (budget: 300 ms); "files" is every byte the page\'s ' +
      'own files took on the wire until then, headers included (budget: 150 KB), "API" the ' +
      "JSON read by then (`/health`, `/runs`). Each row's tokens and cost are read after.",
    '',
    ...table(
      [
        'load',
        'listed (median)',
        'listed (max)',
        'DOMContentLoaded',
        'files transferred',
        'API transferred',
      ],
      [row('cold', cold), row('warm', warm)],
    ),
    '',
    machineLine(load),
  ];
  writeSection('ui.bench', lines);
  console.log(lines.join('\n'));
}

await main();
