/**
 * Inboxes (#29): `deck.pending()`, `GET /workflows/{name}/pending`, answering one thread
 * (`deck.answer(runId)` in process, `POST /workflows/{name}/{thread_id}/resume` through
 * `app.fetch`) and one page of `GET /runs?status=waiting_human&limit=50`, at 100, 2,000 and
 * 20,000 waiting runs of a durable approval workflow, on the SQLite default (events and
 * checkpoints in one file). Each size is filled on top of the last.
 *
 * Run: `npm run bench:inbox` (or `npx tsx bench/inbox.bench.ts [label]`). It rewrites its own
 * section of bench/RESULTS.md under `label` (default `after`), keeping the other label's table.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { DatabaseSync } from 'node:sqlite';
import { Deck } from '../src/index.js';
import { SqliteEventStore } from '../src/stores/sqlite/index.js';
import { ev, run } from '../src/testing/event-store-events.js';
import { approval } from '../test/support/workflows.js';
import { loadAtStart, machineLine, median, table, writeSection } from './support/report.js';

const LABEL = process.argv[2] ?? 'after';
const SIZES = (process.env.INBOX_SIZES ?? '100,2000,20000').split(',').map(Number);
const CALLS = 15;
const FILL_CONCURRENCY = 16;
const NAME = 'approval';

const ms = (n: number) => n.toFixed(n < 10 ? 2 : 1);
const int = (n: number) => n.toLocaleString('en-US');

/** The median of `calls` timed calls of `f`, after two untimed ones (caches, JIT). */
async function time(calls: number, f: (i: number) => Promise<unknown>): Promise<number> {
  for (let i = 0; i < 2; i++) await f(-1 - i);
  const samples: number[] = [];
  for (let i = 0; i < calls; i++) {
    const started = performance.now();
    await f(i);
    samples.push(performance.now() - started);
  }
  return median(samples);
}

/**
 * A sparse inbox: 100 waiting runs among 20,000 ended ones (an append per run, straight to
 * the store), the whole waiting list and one page of 50 timed with the status index, then
 * without it (dropped: the plan before migration 6).
 */
async function sparseInbox(dir: string): Promise<string[][]> {
  const store = new SqliteEventStore({ path: join(dir, 'sparse.db') });
  try {
    for (let i = 0; i < 20_000; i++) {
      const r = run({ origin: NAME, sessionId: `s-${i}` });
      await store.append([ev.started(r), i % 200 === 0 ? ev.interrupted(r) : ev.completed(r)]);
    }
    const timeBoth = async () => [
      await time(CALLS, () => store.listRuns({ status: 'waiting_human', limit: 1_000_000 })),
      await time(CALLS, () => store.listRuns({ status: 'waiting_human', limit: 50 })),
    ];
    const [all, page] = await timeBoth();
    (store.connection as DatabaseSync).exec('DROP INDEX runs_by_status');
    const [allBefore, pageBefore] = await timeBoth();
    return [
      ['without the index (before migration 6)', ms(allBefore ?? 0), ms(pageBefore ?? 0)],
      ['with `runs_by_status`', ms(all ?? 0), ms(page ?? 0)],
    ];
  } finally {
    await store.close();
  }
}

async function main(): Promise<void> {
  const load = loadAtStart();
  const dir = mkdtempSync(join(tmpdir(), 'agentdeck-inbox-'));
  process.env.SERVICE_EVENTS = `sqlite://${join(dir, 'state.db')}`;
  delete process.env.SERVICE_CHECKPOINT;
  delete process.env.SERVICE_SESSION;
  const deck = await new Deck({ workflows: [approval({ durable: true })] }).open();
  const app = deck.app();
  const rows: string[][] = [];
  let sparse: string[][] = [];
  let made = 0;
  const start = async (i: number) => deck.run(NAME, { amount: i }, { sessionId: `t-${i}` });
  try {
    let asked = 0;
    let fresh = 0;
    for (const size of SIZES) {
      const fillStart = performance.now();
      const fill = async (i: number) => {
        await start(i);
      };
      let k = made;
      await Promise.all(
        Array.from({ length: FILL_CONCURRENCY }, async () => {
          for (let i = k++; i < size; i = k++) await fill(i);
        }),
      );
      made = size;
      const fillSeconds = (performance.now() - fillStart) / 1000;
      const pending = await deck.pending();
      if (pending.length !== size) throw new Error(`expected ${size} pending, ${pending.length}`);
      const deckPending = await time(CALLS, () => deck.pending());
      let bodyBytes = 0;
      const httpPending = await time(CALLS, async () => {
        const response = await app.fetch(new Request(`http://bench/workflows/${NAME}/pending`));
        bodyBytes = (await response.arrayBuffer()).byteLength;
      });
      const page = await time(CALLS, async () => {
        const response = await app.fetch(
          new Request('http://bench/runs?status=waiting_human&limit=50'),
        );
        await response.arrayBuffer();
      });
      // Answer one: each call answers a different thread, then a new one takes its place.
      const byThread = new Map(pending.map((p) => [p.threadId, p.runId]));
      const deckAnswer = await time(CALLS, async () => {
        const thread = `t-${asked++}`;
        await deck.answer(byThread.get(thread) as string, { approved: true });
      });
      const httpAnswer = await time(CALLS, async () => {
        const response = await app.fetch(
          new Request(`http://bench/workflows/${NAME}/t-${asked++}/resume`, {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify({ value: { approved: true } }),
          }),
        );
        if (response.status !== 200) throw new Error(`resume: ${response.status}`);
        await response.arrayBuffer();
      });
      // Put the answered threads back (new threads), so the next size starts from `size`.
      for (let i = 0; i < 2 * (CALLS + 2); i++) await start(1_000_000 + fresh++);
      console.log(
        `${size}: fill ${fillSeconds.toFixed(1)} s, pending ${ms(deckPending)} / ${ms(httpPending)} ms (${int(bodyBytes)} B), page ${ms(page)} ms, answer ${ms(deckAnswer)} / ${ms(httpAnswer)} ms`,
      );
      rows.push([
        int(size),
        ms(deckPending),
        ms(httpPending),
        `${(bodyBytes / 1e6).toFixed(2)} MB`,
        ms(deckAnswer),
        ms(httpAnswer),
        ms(page),
      ]);
    }
    sparse = LABEL === 'after' ? await sparseInbox(dir) : [];
  } finally {
    await deck.close();
    rmSync(dir, { recursive: true, force: true });
  }
  const header = [
    'waiting runs',
    '`deck.pending()` ms',
    '`GET …/pending` ms',
    'body',
    '`deck.answer` ms',
    '`POST …/resume` ms',
    '`GET /runs?status=waiting_human&limit=50` ms',
  ];
  const ours = [`**${LABEL}** (medians of ${CALLS} calls):`, '', ...table(header, rows)];
  const other = LABEL === 'before' ? 'after' : 'before';
  const previous = readFileSync(new URL('./RESULTS.md', import.meta.url), 'utf8');
  const kept = previous.match(
    new RegExp(`<!-- inbox-${other}:start -->[\\s\\S]*?<!-- inbox-${other}:end -->`),
  );
  const tables =
    LABEL === 'before'
      ? [`<!-- inbox-before:start -->`, ...ours, `<!-- inbox-before:end -->`, '', kept?.[0] ?? '']
      : [kept?.[0] ?? '', '', `<!-- inbox-after:start -->`, ...ours, `<!-- inbox-after:end -->`];
  writeSection('inbox', [
    '## Inboxes (`npm run bench:inbox`)',
    '',
    'A durable approval workflow on the SQLite default; `pending` and answering one thread at',
    'each size of inbox (filled on top of the last), in process and through `app.fetch`.',
    '',
    ...tables,
    '',
    ...(sparse.length
      ? [
          'A sparse inbox, at the store: 100 waiting runs among 20,000 ended ones',
          '(`listRuns({ status: "waiting_human" })`, medians):',
          '',
          ...table(['', 'all 100 ms', 'a page of 50 ms'], sparse),
          '',
        ]
      : []),
    machineLine(load),
  ]);
}

await main();
