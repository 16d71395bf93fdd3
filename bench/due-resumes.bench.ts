/**
 * `deck.dueResumes(now)` with 10,000 sleeping threads in the checkpointer, on the SQLite
 * default (events and checkpoints in one file). Target: under 200 ms.
 *
 * The file is filled the fast way: a durable reminder workflow (`wait` calls `sleepUntil(due)`,
 * then `remind`) compiled by hand with `SqliteCheckpointer` and invoked once per thread, under
 * the thread id the deck stores for that workflow (`storedThreadId('reminder', id)`), so the
 * deck later sees the threads as its own. Half the threads are due (wake times spread over
 * the past week), half are not (spread over the next week). A deck is then opened on the file
 * from `SERVICE_EVENTS=sqlite://<file>` (checkpoints default to the same file) and
 * `dueResumes(now)` is timed: with half the threads due, with none due (`now` before every
 * wake time: the index sees exactly what it would for 10,000 threads all in the future) and
 * with all due. The calls of the three cases alternate; the first call after opening is
 * reported on its own. A diagnostic row times the checkpointer's indexed query alone.
 *
 * Run: `npm run bench:due` (or `npx tsx bench/due-resumes.bench.ts [threads] [calls]`). It
 * rewrites its own section of bench/RESULTS.md.
 */
import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { END, START, StateGraph } from '@langchain/langgraph';
import { z } from 'zod';
import { storedThreadId } from '../src/engines/langgraph/threads.js';
import { Deck, SLEEP_UNTIL_KEY, sleepUntil, Workflow } from '../src/index.js';
import { SqliteCheckpointer } from '../src/stores/sqlite/index.js';
import { loadAtStart, machineLine, median, table, writeSection } from './support/report.js';

const THREADS = Number(process.argv[2] ?? 10_000);
const CALLS = Number(process.argv[3] ?? 20);
const TARGET_MS = 200;
const WORKFLOW = 'reminder';
/** Invocations in flight while filling (the checkpointer's writes are synchronous). */
const FILL_CONCURRENCY = 16;
const MINUTE = 60_000;
const WEEK = 7 * 24 * 60 * MINUTE;

const Reminder = z.object({ due: z.string(), reminded: z.boolean().default(false) });
type ReminderState = z.infer<typeof Reminder>;

const reminderGraph = (state: typeof Reminder) =>
  new StateGraph(state)
    .addNode('wait', (s: ReminderState) => {
      sleepUntil(s.due);
      return {};
    })
    .addNode('remind', () => ({ reminded: true }))
    .addEdge(START, 'wait')
    .addEdge('wait', 'remind')
    .addEdge('remind', END);

const reminder = new Workflow({
  name: WORKFLOW,
  state: Reminder,
  durable: true,
  graph: reminderGraph,
});

interface CompiledGraph {
  invoke(input: unknown, options: Record<string, unknown>): Promise<unknown>;
}

/**
 * Thread `i`'s wake time: even threads due (spread over the week before `now`), odd threads
 * not (spread over the week after it).
 */
function wakeTime(i: number, now: number): string {
  const offset = 1 + Math.floor((i / THREADS) * (WEEK - 2 * MINUTE));
  return new Date(i % 2 === 0 ? now - offset : now + MINUTE + offset).toISOString();
}

/** Fill `file` with `THREADS` threads of the reminder workflow paused on `sleepUntil`. */
async function fill(file: string, now: number): Promise<number> {
  const checkpointer = new SqliteCheckpointer(file);
  try {
    const graph = reminderGraph(Reminder).compile({ checkpointer }) as unknown as CompiledGraph;
    const started = performance.now();
    let next = 0;
    const worker = async () => {
      for (let i = next++; i < THREADS; i = next++) {
        const result = (await graph.invoke(
          { due: wakeTime(i, now) },
          { configurable: { thread_id: storedThreadId(WORKFLOW, `thread-${i}`) } },
        )) as { __interrupt__?: { value: Record<string, unknown> }[] };
        const wake = result.__interrupt__?.[0]?.value?.[SLEEP_UNTIL_KEY];
        if (wake !== wakeTime(i, now)) throw new Error(`thread ${i} did not go to sleep`);
      }
    };
    await Promise.all(Array.from({ length: FILL_CONCURRENCY }, worker));
    const seconds = (performance.now() - started) / 1000;
    const due = await checkpointer.dueWakeups(new Date(now));
    if (due.length !== Math.ceil(THREADS / 2)) {
      throw new Error(`expected ${Math.ceil(THREADS / 2)} due threads, found ${due.length}`);
    }
    return seconds;
  } finally {
    await checkpointer.close();
  }
}

interface Scenario {
  name: string;
  /** The `now` passed, relative to the fill's `now`. */
  shift: number;
  expected: number;
  /** The deck's method, or the checkpointer's indexed query alone (a diagnostic). */
  via: 'deck' | 'checkpointer';
  samples: number[];
  count: number;
}

const ms = (n: number) => n.toFixed(n < 10 ? 2 : 1);
const int = (n: number) => n.toLocaleString('en-US');

async function main(): Promise<void> {
  const load = loadAtStart();
  const dir = mkdtempSync(join(tmpdir(), 'agentdeck-bench-'));
  const file = join(dir, 'state.db');
  const now = Date.now();
  const half = Math.ceil(THREADS / 2);
  const scenarios: Scenario[] = [
    { name: `**half due (${int(half)} of ${int(THREADS)})**`, shift: 0, expected: half },
    { name: `none due (all ${int(THREADS)} in the future)`, shift: -2 * WEEK, expected: 0 },
    { name: `all ${int(THREADS)} due`, shift: 2 * WEEK, expected: THREADS },
  ].map((s) => ({ ...s, via: 'deck' as const, samples: [], count: -1 }));
  scenarios.push({
    name: `diagnostic: \`SqliteCheckpointer.dueWakeups\` alone, half due`,
    shift: 0,
    expected: half,
    via: 'checkpointer',
    samples: [],
    count: -1,
  });
  let fillSeconds = 0;
  let fileBytes = 0;
  let firstCall = 0;
  try {
    fillSeconds = await fill(file, now);
    fileBytes =
      statSync(file).size + (existsSync(`${file}-wal`) ? statSync(`${file}-wal`).size : 0);
    process.env.SERVICE_EVENTS = `sqlite://${file}`;
    delete process.env.SERVICE_CHECKPOINT;
    delete process.env.SERVICE_SESSION;
    const deck = await new Deck({ workflows: [reminder] }).open();
    const checkpointer = new SqliteCheckpointer(file);
    try {
      const headline = scenarios[0] as Scenario;
      const started = performance.now();
      const first = await deck.dueResumes(new Date(now));
      firstCall = performance.now() - started;
      if (first.length !== headline.expected) throw new Error('first call: wrong count');
      for (let call = 0; call < CALLS; call += 1) {
        for (const s of scenarios) {
          const at = new Date(now + s.shift);
          const t = performance.now();
          const found =
            s.via === 'deck' ? await deck.dueResumes(at) : await checkpointer.dueWakeups(at);
          s.samples.push(performance.now() - t);
          s.count = found.length;
          if (found.length !== s.expected) {
            throw new Error(`${s.name}: expected ${s.expected} threads, got ${found.length}`);
          }
        }
      }
      const [sample] = await deck.dueResumes(new Date(now));
      if (sample?.workflow !== WORKFLOW || !sample.threadId.startsWith('thread-')) {
        throw new Error(`the deck did not see the threads as its own: ${JSON.stringify(sample)}`);
      }
    } finally {
      await checkpointer.close();
      await deck.close();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }

  const rows = scenarios.map((s) => [
    s.via === 'deck' ? `\`deck.dueResumes(now)\`, ${s.name}` : s.name,
    int(s.count),
    `**${ms(median(s.samples))}**`,
    `${ms(Math.min(...s.samples))} – ${ms(Math.max(...s.samples))}`,
  ]);
  for (const row of rows) console.log(row.join(' | '));
  const headline = median((scenarios[0] as Scenario).samples);
  const none = median((scenarios[1] as Scenario).samples);
  const verdict = headline < TARGET_MS ? 'PASS' : 'FAIL';
  writeSection('due-resumes.bench', [
    '## Due resumes with 10,000 sleeping threads (`npm run bench:due`)',
    '',
    `${int(THREADS)} threads of a durable reminder workflow (\`wait\` calls \`sleepUntil(due)\`, then`,
    '`remind`) paused on their timer in one SQLite file, written the fast way: the graph compiled',
    'by hand with `SqliteCheckpointer`, invoked once per thread under the thread id the deck',
    `stores for the workflow (\`${storedThreadId(WORKFLOW, 'thread-<i>')}\`), so the deck sees them as its own.`,
    'Half the wake times lie in the week before `now`, half in the week after. A deck then opens',
    'on the file from `SERVICE_EVENTS=sqlite://<file>` (checkpoints default to the same file) and',
    `\`dueResumes(now)\` is called ${CALLS} times per case, the cases alternating; the table shows the`,
    'median wall-clock time of a call, its range, and how many threads it returned. "None due"',
    'passes a `now` before every wake time, which the timer index sees exactly as 10,000 threads',
    'all in the future. The first call after opening is timed on its own. The diagnostic row is',
    "the checkpointer's indexed query alone (the deck adds parsing the thread ids and filtering",
    'them by workflow).',
    '',
    `**Headline: \`dueResumes()\` takes ${ms(headline)} ms with ${int(THREADS)} sleeping threads, ` +
      `${int(half)} of them due: ${verdict}** (target: under ${TARGET_MS} ms). ` +
      `With none due: ${ms(none)} ms. First call after opening: ${ms(firstCall)} ms.`,
    '',
    `Filling took ${fillSeconds.toFixed(1)} s (${int(Math.round(THREADS / fillSeconds))} threads/s); ` +
      `the file held ${(fileBytes / 1024 / 1024).toFixed(1)} MiB (database and WAL).`,
    '',
    machineLine(load),
    '',
    ...table(['case', 'threads returned', 'ms (median)', 'range'], rows),
  ]);
  console.log(`dueResumes ${ms(headline)} ms (${verdict}); none due ${ms(none)} ms`);
}

await main();
