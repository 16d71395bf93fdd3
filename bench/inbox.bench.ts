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
import { Deck } from '../src/index.js';
import { approval } from '../test/support/workflows.js';
import { loadAtStart, machineLine, median, table, writeSection } from './support/report.js';

const LABEL = process.argv[2] ?? 'after';
const SIZES = (process.env.INBOX_SIZES ?? '100,2000,20000').split(',').map(Number);
const CALLS = 9;
const FILL_CONCURRENCY = 16;
const NAME = 'approval';

const ms = (n: number) => n.toFixed(n < 10 ? 2 : 1);
const int = (n: number) => n.toLocaleString('en-US');

async function time(calls: number, f: (i: number) => Promise<unknown>): Promise<number> {
  const samples: number[] = [];
  for (let i = 0; i < calls; i++) {
    const started = performance.now();
    await f(i);
    samples.push(performance.now() - started);
  }
  return median(samples);
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
  let made = 0;
  const start = async (i: number) => deck.run(NAME, { amount: i }, { sessionId: `t-${i}` });
  try {
    let asked = 0;
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
      const deckAnswer = await time(CALLS, async (i) => {
        const thread = `t-${asked + i}`;
        await deck.answer(byThread.get(thread) as string, { approved: true });
      });
      asked += CALLS;
      const httpAnswer = await time(CALLS, async (i) => {
        const response = await app.fetch(
          new Request(`http://bench/workflows/${NAME}/t-${asked + i}/resume`, {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify({ value: { approved: true } }),
          }),
        );
        if (response.status !== 200) throw new Error(`resume: ${response.status}`);
        await response.arrayBuffer();
      });
      asked += CALLS;
      // Put the answered threads back (new threads), so the next size starts from `size`.
      for (let i = 0; i < 2 * CALLS; i++) await start(made + i + 1_000_000);
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
    machineLine(load),
  ]);
}

await main();
