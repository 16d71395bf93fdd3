/**
 * Cost by size of the work (issue #29): what one unit of work costs as the work around it
 * grows, measured on the embedded SQLite default through public APIs only (`Deck`, and the
 * HTTP app's `fetch`), so the script runs unchanged whatever the internals become.
 *
 * 1. `memory`: resident memory (and V8 heap after a full GC) across 10,000 runs of a
 *    non-durable 3-node workflow with no `sessionId` (each run its own thread), sampled every
 *    2,000 runs; then 2,000 more with a `sessionId` of their own each (a thread the caller
 *    chose, which SPEC keeps for a later call while the deck lives).
 * 2. `turns`: one agent session, 400 turns with a `ScriptedModel` in process (no network),
 *    after 5 warm-up turns on another session; the deck's time per `deck.run()` at turns 1,
 *    100, 200 and 400 (median of the 10 turns ending there; turn 1 alone).
 * 3. `inbox`: durable runs waiting for an answer (SQLite), grown to 100, 2,000 and 20,000;
 *    at each size `deck.pending()`, `GET /workflows/{name}/pending` (time and body size) and
 *    answering one thread with `POST /workflows/{name}/{thread_id}/resume` (medians of 5).
 *    Filling stops at a time budget (`BENCH_FILL_SECONDS`, default 240 s); a size not
 *    reached is reported as such.
 *
 * Each part runs in its own process (a fresh heap for the memory curve).
 * Run: `npm run bench:scale-work` (or `npx tsx bench/scale-work.bench.ts [memory|turns|inbox]`
 * for one part, printed but not written). It rewrites its own section of bench/RESULTS.md.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { END, START, StateGraph } from '@langchain/langgraph';
import { z } from 'zod';
import { Agent, Deck, interrupt, Workflow } from '../src/index.js';
import { ScriptedModel } from '../src/testing/index.js';
import { loadAtStart, machineLine, median, table, writeSection } from './support/report.js';

const RUNS = 10_000;
const SAMPLE_EVERY = 2_000;
const SESSION_RUNS = 2_000;
const TURNS = [1, 100, 200, 400];
const WINDOW = 10;
/** Turns on another session first, so turn 1 is not the process's first turn. */
const WARMUP_TURNS = 5;
const WAITING = [100, 2_000, 20_000];
const REPEATS = 5;
const FILL_SECONDS = Number(process.env.BENCH_FILL_SECONDS ?? 240);

const Counter = z.object({ n: z.number(), steps: z.array(z.string()).optional() });
type CounterState = z.infer<typeof Counter>;
const step = (name: string) => (s: CounterState) => ({
  n: s.n + 1,
  steps: [...(s.steps ?? []), name],
});
const threeSteps = (durable: boolean) =>
  new Workflow({
    name: 'three-steps',
    state: Counter,
    durable,
    graph: (state: typeof Counter) =>
      new StateGraph(state)
        .addNode('one', step('one'))
        .addNode('two', step('two'))
        .addNode('three', step('three'))
        .addEdge(START, 'one')
        .addEdge('one', 'two')
        .addEdge('two', 'three')
        .addEdge('three', END),
  });

const Approval = z.object({ amount: z.number(), approved: z.boolean().optional() });
const approval = new Workflow({
  name: 'approval',
  state: Approval,
  durable: true,
  graph: (state: typeof Approval) =>
    new StateGraph(state)
      .addNode('ask', (s: z.infer<typeof Approval>) => ({
        approved: interrupt<boolean>({ question: 'approve?', amount: s.amount }),
      }))
      .addEdge(START, 'ask')
      .addEdge('ask', END),
});

/** A deck on the SQLite default in a fresh directory (events, sessions, checkpoints on disk). */
async function openDeck(options: ConstructorParameters<typeof Deck>[0]) {
  const dir = mkdtempSync(join(tmpdir(), 'agentdeck-scale-work-'));
  process.env.SERVICE_EVENTS = `sqlite://${join(dir, 'deck.db')}`;
  delete process.env.SERVICE_CHECKPOINT;
  delete process.env.SERVICE_SESSION;
  const deck = await new Deck(options).open();
  return {
    deck,
    close: async () => {
      await deck.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;
const mb = (bytes: number) => (bytes / 1024 / 1024).toFixed(1);
const ms = (value: number) => value.toFixed(2);
function memory() {
  gc();
  gc();
  const { rss, heapUsed } = process.memoryUsage();
  return { rss, heapUsed };
}

type Rows = string[][];

async function memoryPart(): Promise<Rows> {
  const { deck, close } = await openDeck({ workflows: [threeSteps(false)] });
  for (let i = 0; i < 200; i++) await deck.run('three-steps', { n: i }); // warm up
  const base = memory();
  const rows: Rows = [['0', mb(base.rss), mb(base.heapUsed), '-']];
  for (let done = 0; done < RUNS; ) {
    for (let i = 0; i < SAMPLE_EVERY; i++, done++) await deck.run('three-steps', { n: done });
    const now = memory();
    const perRun = ((now.heapUsed - base.heapUsed) / done / 1024).toFixed(2);
    rows.push([done.toLocaleString('en-US'), mb(now.rss), mb(now.heapUsed), perRun]);
  }
  const before = memory();
  for (let i = 0; i < SESSION_RUNS; i++) {
    await deck.run('three-steps', { n: i }, { sessionId: `chosen-${i}` });
  }
  const after = memory();
  const perRun = ((after.heapUsed - before.heapUsed) / SESSION_RUNS / 1024).toFixed(2);
  rows.push([
    `+${SESSION_RUNS.toLocaleString('en-US')} with own sessionId`,
    mb(after.rss),
    mb(after.heapUsed),
    perRun,
  ]);
  await close();
  return rows;
}

async function turnsPart(): Promise<Rows> {
  const last = TURNS.at(-1) as number;
  const model = new ScriptedModel(
    Array.from({ length: last + WARMUP_TURNS }, (_, i) => ({ text: `Answer ${i}: noted.` })),
  );
  const { deck, close } = await openDeck({ agents: [new Agent({ name: 'chat', model })] });
  for (let i = 0; i < WARMUP_TURNS; i++) await deck.run('chat', 'warm up', { sessionId: 'warm' });
  const times: number[] = [];
  for (let turn = 1; turn <= last; turn++) {
    const start = performance.now();
    await deck.run('chat', `Message ${turn}: please note this down.`, { sessionId: 'long' });
    times.push(performance.now() - start);
  }
  await close();
  return TURNS.map((turn) => {
    const window = times.slice(Math.max(0, turn - WINDOW), turn);
    return [String(turn), ms(median(window))];
  });
}

async function inboxPart(): Promise<Rows> {
  const { deck, close } = await openDeck({ workflows: [approval] });
  const app = deck.app();
  const started = performance.now();
  let waiting = 0;
  let answered = 0;
  const rows: Rows = [];
  for (const size of WAITING) {
    while (waiting < size && performance.now() - started < FILL_SECONDS * 1000) {
      await deck.run('approval', { amount: waiting }, { sessionId: `t-${waiting}` });
      waiting++;
    }
    if (waiting < size) {
      rows.push([
        size.toLocaleString('en-US'),
        `not reached (${waiting} in ${FILL_SECONDS} s)`,
        '',
        '',
        '',
      ]);
      break;
    }
    const pending: number[] = [];
    const listed: number[] = [];
    const answer: number[] = [];
    let bytes = 0;
    for (let i = 0; i < REPEATS; i++) {
      let start = performance.now();
      const items = await deck.pending();
      pending.push(performance.now() - start);
      if (items.length < size - answered) throw new Error(`pending() listed ${items.length}`);
      start = performance.now();
      const response = await app.fetch(new Request('http://deck/workflows/approval/pending'));
      bytes = (await response.arrayBuffer()).byteLength;
      listed.push(performance.now() - start);
      start = performance.now();
      const thread = `t-${answered++}`;
      const resumed = await app.fetch(
        new Request(`http://deck/workflows/approval/${thread}/resume`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ value: true }),
        }),
      );
      await resumed.arrayBuffer();
      answer.push(performance.now() - start);
      if (resumed.status !== 200) throw new Error(`resume ${thread}: ${resumed.status}`);
    }
    rows.push([
      size.toLocaleString('en-US'),
      ms(median(pending)),
      ms(median(listed)),
      (bytes / 1024 / 1024).toFixed(2),
      ms(median(answer)),
    ]);
  }
  await close();
  return rows;
}

const PARTS = { memory: memoryPart, turns: turnsPart, inbox: inboxPart };
type Part = keyof typeof PARTS;

/** Run one part in a child process (a fresh heap) and read its rows from the last line. */
function inChild(part: Part): Rows {
  const child = spawnSync(
    process.execPath,
    [...process.execArgv, fileURLToPath(import.meta.url), part, '--json'],
    { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'], maxBuffer: 64 * 1024 * 1024 },
  );
  if (child.status !== 0) throw new Error(`part ${part} failed (${child.status})`);
  return JSON.parse(child.stdout.trim().split('\n').at(-1) as string) as Rows;
}

const HEADERS: Record<Part, string[]> = {
  memory: ['runs ended', 'RSS (MB)', 'heap after GC (MB)', 'heap per run (KB)'],
  turns: ['turn', 'deck.run (ms)'],
  inbox: ['waiting', 'deck.pending() (ms)', 'GET pending (ms)', 'body (MB)', 'answer one (ms)'],
};

const [only, flag] = process.argv.slice(2);
if (only) {
  const rows = await PARTS[only as Part]();
  if (flag === '--json') console.log(JSON.stringify(rows));
  else console.log(table(HEADERS[only as Part], rows).join('\n'));
} else {
  const load = loadAtStart();
  const results = {} as Record<Part, Rows>;
  for (const part of Object.keys(PARTS) as Part[]) {
    results[part] = inChild(part);
    console.log(`\n${part}\n${table(HEADERS[part], results[part]).join('\n')}`);
  }
  writeSection('scale-work', [
    '### Numbers (`npm run bench:scale-work`)',
    '',
    `Resident memory across ${RUNS.toLocaleString('en-US')} runs of a non-durable 3-node workflow`,
    'without a `sessionId` (SQLite default; RSS and heap after two full GCs), then',
    `${SESSION_RUNS.toLocaleString('en-US')} runs each on a thread the caller named:`,
    '',
    ...table(HEADERS.memory, results.memory),
    '',
    `One agent session with a \`ScriptedModel\` in process: \`deck.run()\` time, median of the ${WINDOW}`,
    'turns ending at each turn:',
    '',
    ...table(HEADERS.turns, results.turns),
    '',
    'Durable runs waiting for an answer on SQLite; medians of 5 (each answer ends one run):',
    '',
    ...table(HEADERS.inbox, results.inbox),
    '',
    machineLine(load),
  ]);
}
