/**
 * Durable workflows through the deck, side by side with raw LangGraph on the same
 * checkpointer and with Mastra's workflow engine (issue 22):
 * 1. A 3-node durable workflow (three nodes in a line): `deck.run(name, input, { sessionId })`
 *    on the SQLite default and on Postgres, against the same graph compiled by hand on the
 *    same kind of checkpointer (`graph.invoke`), and Mastra's `run.start` of the same three
 *    steps with its LibSQL storage (and in memory), one at a time and 16 at once.
 * 2. An interrupt + answer cycle (prepare -> ask, which interrupts -> finish): `deck.run` then
 *    `deck.answer`, against raw `invoke` then `invoke(new Command({ resume }))`, and Mastra's
 *    `start` to `suspend()` then `resume` on a new handle of the stored run.
 * 3. The 3-node workflow not durable over HTTP: the deck's `POST /workflows/{name}` against a
 *    hand-written Hono route invoking the same graph, both through `app.request()`.
 * 4. The same deck rows with the deck's event log in memory (its checkpoints still on SQLite):
 *    the share of the deck's cost that is its log on disk.
 *
 * Each round opens each phase (SQLite, log in memory, Postgres; reversed every other round) on fresh
 * files, and runs its cases in interleaved blocks whose order rotates, so that noise on a
 * shared machine falls on all of them alike. Medians over the rounds are reported; ratios are
 * the medians of the per-round ratios, each taken within one phase of one round.
 *
 * Run: `npm run bench:workflow` (or `npx tsx bench/workflow.bench.ts [rounds] [runs]`). Needs
 * Postgres (TEST_POSTGRES_URL, default postgres://postgres@127.0.0.1:5432/test; a scratch
 * database is created and dropped). It rewrites its own section of bench/RESULTS.md.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { loadAtStart, machineLine, median, table, writeSection } from './support/report.js';
import {
  CASES,
  type Case,
  type Group,
  type MastraEngines,
  type Phase,
} from './support/workflow-cases.js';
import { openMastra, openPhase } from './support/workflow-phases.js';

const ROUNDS = Number(process.argv[2] ?? 5);
/** Iterations per case per round (runs, cycles or requests). */
const RUNS = Number(process.argv[3] ?? 240);
const WARMUP = 60;
/** Most time one case may take in one round; it stops early, its rate still measured. */
const CASE_BUDGET_MS = 4_000;
/** Blocks per measurement: each case runs `RUNS / BLOCKS` at a time, in turn. */
const BLOCKS = 12;
const POSTGRES_URL = process.env.TEST_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const PHASES: readonly Phase[] = ['sqlite', 'log-in-memory', 'postgres'];

const GOALS = {
  /** The deck's runs/s over Mastra LibSQL's, at least. */
  versusMastra: 1,
  /** The deck's cycle time over raw LangGraph's on the same checkpointer, at most. */
  cycleVersusRaw: 1.25,
  /** The deck app's requests/s over the hand-written route's, at least. */
  httpVersusHono: 0.9,
};

interface Sample {
  msPerIteration: number;
  cpuMsPerIteration: number;
}

async function admin(sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: POSTGRES_URL });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

/** Run iterations `from`.. with `concurrency` in flight until `count` are done or `deadline`. */
async function runBlock(
  iterate: (i: number) => Promise<void>,
  from: number,
  count: number,
  concurrency: number,
  deadline: number,
): Promise<number> {
  let next = from;
  const end = from + count;
  const worker = async () => {
    while (next < end && performance.now() < deadline) await iterate(next++);
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, count) }, worker));
  return next - from;
}

/** One round of a phase: its cases, interleaved in blocks whose order rotates. */
async function measurePhase(
  phase: Phase,
  iterations: number,
  where: { dir: string; postgresUrl: string },
  mastra: MastraEngines,
): Promise<Map<Case, Sample>> {
  const cases = CASES.filter((c) => c.phase === phase);
  const { resources, close } = await openPhase(phase, where, mastra);
  try {
    const started = performance.now();
    const totals = cases.map((test, index) => ({
      test,
      // Thread ids of their own per case: two cases may run the same workflow.
      iterate: test.iterate({ ...resources, prefix: `${resources.prefix}${index}-` }),
      size: Math.max(test.concurrency, Math.round(iterations / BLOCKS)),
      deadline: started + CASE_BUDGET_MS * cases.length,
      spentMs: 0,
      done: 0,
      cpuMicros: 0,
    }));
    for (let block = 0; block < BLOCKS; block += 1) {
      for (let k = 0; k < totals.length; k += 1) {
        const t = totals[(block + k) % totals.length] as (typeof totals)[number];
        if (t.spentMs >= CASE_BUDGET_MS) continue;
        const cpu = process.cpuUsage();
        const begun = performance.now();
        const deadline = Math.min(t.deadline, begun + CASE_BUDGET_MS - t.spentMs);
        t.done += await runBlock(t.iterate, t.done, t.size, t.test.concurrency, deadline);
        t.spentMs += performance.now() - begun;
        const { user, system } = process.cpuUsage(cpu);
        t.cpuMicros += user + system;
      }
    }
    return new Map(
      totals.map((t) => [
        t.test,
        { msPerIteration: t.spentMs / t.done, cpuMsPerIteration: t.cpuMicros / 1000 / t.done },
      ]),
    );
  } finally {
    await close();
  }
}

const ms = (n: number) => n.toFixed(2);
const x = (ratio: number) => `${ratio.toFixed(2)}x`;
const perSecond = (msPer: number) => Math.round(1000 / msPer).toLocaleString('en-US');

async function main(): Promise<void> {
  const load = loadAtStart();
  const dir = mkdtempSync(join(tmpdir(), 'agentdeck-bench-'));
  const database = `agentdeck_bench_wf_${process.pid}`;
  const url = new URL(POSTGRES_URL);
  url.pathname = `/${database}`;
  await admin(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`);
  await admin(`CREATE DATABASE ${database}`);
  const where = { dir, postgresUrl: url.href };
  const samples = new Map<Case, Sample[]>(CASES.map((c) => [c, []]));
  try {
    const mastra = await openMastra(dir);
    for (const phase of PHASES) {
      await measurePhase(phase, WARMUP, where, mastra); // the JIT, the files, the pools
    }
    for (let round = 0; round < ROUNDS; round += 1) {
      const order = round % 2 === 0 ? PHASES : [...PHASES].reverse();
      for (const phase of order) {
        for (const [test, sample] of await measurePhase(phase, RUNS, where, mastra)) {
          samples.get(test)?.push(sample);
        }
      }
      console.log(`round ${round + 1}/${ROUNDS} done`);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
    await admin(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`);
  }
  report(samples, load);
}

function report(samples: Map<Case, Sample[]>, load: string[]): void {
  const wallOf = (test: Case) => samples.get(test)?.map((s) => s.msPerIteration) ?? [];
  // Mastra has one way to state its schemas; the deck and raw LangGraph two (`Case.state`).
  const peer = (test: Case, role: Case['role']) =>
    CASES.find(
      (c) =>
        c.role === role &&
        c.group === test.group &&
        c.phase === test.phase &&
        c.concurrency === test.concurrency &&
        (role === 'mastra' || c.state === test.state),
    );
  /** Per round: this case's time over `other`'s, measured in the same phase of the same round. */
  const timeRatio = (test: Case, other: Case | undefined) => {
    if (!other) return Number.NaN;
    const base = wallOf(other);
    return median(wallOf(test).map((v, i) => v / (base[i] ?? Number.NaN)));
  };
  const rows = CASES.map((test) => {
    const wall = wallOf(test);
    const raw = peer(test, 'raw');
    const mastra = peer(test, 'mastra');
    return [
      `${test.group}: ${test.name}`,
      `**${ms(median(wall))}**`,
      `${ms(Math.min(...wall))} – ${ms(Math.max(...wall))}`,
      perSecond(median(wall)),
      ms(median(samples.get(test)?.map((s) => s.cpuMsPerIteration) ?? [])),
      test.role === 'raw' || !raw ? '' : x(timeRatio(test, raw)),
      // Throughput against Mastra's: its time over this case's.
      test.role === 'mastra' || !mastra ? '' : x(1 / timeRatio(test, mastra)),
    ];
  });
  for (const row of rows) console.log(row.join(' | '));

  const subject = (group: Group, phase: Phase, concurrency = 1, state?: 'fields') =>
    CASES.find(
      (c) =>
        c.role === 'deck' &&
        c.group === group &&
        c.phase === phase &&
        c.concurrency === concurrency &&
        c.state === state,
    ) as Case;
  const verdict = (ok: boolean) => (ok ? 'PASS' : 'FAIL');
  const versusMastra = (test: Case) => 1 / timeRatio(test, peer(test, 'mastra'));
  const runLine = (phase: Phase, concurrency: number, state?: 'fields') => {
    const test = subject('run', phase, concurrency, state);
    const ratio = versusMastra(test);
    const mastra = peer(test, 'mastra') as Case;
    return (
      `${phase === 'sqlite' ? 'SQLite default' : 'Postgres'}${concurrency > 1 ? `, ${concurrency} at once` : ''}: ` +
      `${perSecond(median(wallOf(test)))} runs/s against Mastra LibSQL's ${perSecond(median(wallOf(mastra)))} ` +
      `(${x(ratio)}; ${verdict(ratio >= GOALS.versusMastra)}); ${x(timeRatio(test, peer(test, 'raw')))} the time of raw LangGraph on the same checkpointer.`
    );
  };
  const cycle = (phase: Phase, state?: 'fields') => {
    const test = subject('cycle', phase, 1, state);
    const vsRaw = timeRatio(test, peer(test, 'raw'));
    const vsMastra = versusMastra(test);
    const langGraphDefault = CASES.find(
      (c) => c.group === 'cycle' && c.phase === phase && c.name.includes('LangGraph default'),
    );
    const vsDefault = langGraphDefault
      ? `, ${x(timeRatio(test, langGraphDefault))} raw LangGraph with its default durability`
      : '';
    return (
      `${phase === 'sqlite' ? 'SQLite' : 'Postgres'}: ${ms(median(wallOf(test)))} ms, ${x(vsRaw)} raw LangGraph ` +
      `with the same durability (goal at most ${x(GOALS.cycleVersusRaw)}: ${verdict(vsRaw <= GOALS.cycleVersusRaw)})${vsDefault}; ` +
      `${x(vsMastra)} the cycles/s of Mastra LibSQL (${verdict(vsMastra >= 1)}).`
    );
  };
  const http = (concurrency: number) => {
    const test = subject('http', 'sqlite', concurrency);
    const ratio = 1 / timeRatio(test, peer(test, 'raw'));
    return `${concurrency > 1 ? `${concurrency} at once` : 'one at a time'}: ${x(ratio)} the requests/s of the hand-written route (goal at least ${x(GOALS.httpVersusHono)}: ${verdict(ratio >= GOALS.httpVersusHono)})`;
  };
  const logInMemory = (group: Group) => {
    const test = subject(group, 'log-in-memory');
    const ratio = timeRatio(test, peer(test, 'raw'));
    return group === 'http'
      ? `${x(1 / ratio)} the route's requests/s`
      : `${x(ratio)} raw LangGraph's time`;
  };
  const floor = CASES.find((c) => c.name.includes('no checkpointer') && !c.state) as Case;
  const fieldsFloor = CASES.find((c) => c.name.includes('no checkpointer') && c.state) as Case;
  const mastraSqlite = peer(subject('run', 'sqlite'), 'mastra') as Case;

  writeSection('workflow.bench', [
    '## Durable workflows: the deck, raw LangGraph and Mastra (`npm run bench:workflow`)',
    '',
    'A 3-node workflow (three nodes in a line, each adding to a zod-typed state), each run on its',
    'own thread: `deck.run(name, input, { sessionId })` on the SQLite default (events and',
    'checkpoints in one file) and on Postgres (`SERVICE_EVENTS=postgres://...`), against the same',
    'graph compiled by hand on the same kind of checkpointer (`SqliteCheckpointer` on a file of its',
    "own, LangGraph's `PostgresSaver` in the same database) and run with `graph.invoke`, and against",
    "Mastra's workflow engine (`@mastra/core`, `createWorkflow` of the same three steps and zod",
    'schemas) with its LibSQL storage on a local file, and in memory. The cycle rows run an',
    'approval (prepare -> ask, which interrupts -> finish) to its interrupt and answer it. The',
    'HTTP rows run the 3-node workflow not durable: `POST /workflows/{name}` of `deck.app()`',
    'against a hand-written Hono route invoking the same graph on a `MemorySaver` (dropping the',
    'thread after, as the deck does), both through `app.request()`.',
    '',
    `Each of ${ROUNDS} rounds (after a warm-up) opens a SQLite phase, a phase with the deck's event log in`,
    'memory and a Postgres phase (one deck per process), the order reversed every other round; Mastra',
    "stays open and is measured in the SQLite and Postgres phases. A phase's",
    `cases run ${RUNS} iterations each in ${BLOCKS} interleaved blocks whose order rotates (at most`,
    `${CASE_BUDGET_MS / 1000} s per case and round). "16 at once" keeps 16 runs in flight; its time is wall`,
    'time over runs. The table shows the median time per iteration over the rounds, its range, the',
    'rate, and process CPU per iteration; "vs raw" is the median of per-round time ratios against raw',
    'LangGraph (or the Hono route) in the same phase; "vs Mastra" the median per-round throughput',
    'ratio against Mastra LibSQL. Raw LangGraph rows use `durability: "exit"` as the deck does by',
    'default, unless they say LangGraph\'s default (`"async"`). Both SQLite engines run WAL with',
    '`synchronous = NORMAL` (Mastra sets it for its workflow storage, the deck for every file). The',
    '16-at-once Mastra rows use a Mastra instance and file of their own (workflow-cases.ts says why).',
    '',
    '**3-node durable run, runs/s against Mastra LibSQL:**',
    `- ${runLine('sqlite', 1)}`,
    `- ${runLine('postgres', 1)}`,
    `- ${runLine('sqlite', 16)}`,
    `- ${runLine('postgres', 16)}`,
    '',
    '**The same with the state as a LangGraph `StateSchema` of the same zod fields** (`state: new',
    'StateSchema(Counter.shape)`; LangGraph then checks updates field by field, docs/workflows.md):',
    `- ${runLine('sqlite', 1, 'fields')}`,
    `- ${runLine('postgres', 1, 'fields')}`,
    `- Interrupt + answer cycle, ${cycle('sqlite', 'fields')}`,
    '',
    `**Interrupt + answer cycle:** ${cycle('sqlite')} ${cycle('postgres')}`,
    '',
    `**Not durable over HTTP:** ${http(1)}; ${http(16)}.`,
    '',
    "**Without the event log on disk** (a phase of its own: the deck's events in memory, its",
    'checkpoints on a SQLite file, against raw LangGraph on a `SqliteCheckpointer` and the Hono',
    `route): a 3-node run ${logInMemory('run')}, a cycle ${logInMemory('cycle')}, not durable over HTTP ` +
      `${logInMemory('http')}. What the SQLite rows add to these is what the deck's log on disk costs.`,
    '',
    `**LangGraph's floor:** raw LangGraph with no checkpointer at all takes ${ms(median(wallOf(floor)))} ms per ` +
      `3-node run, against ${ms(median(wallOf(mastraSqlite)))} ms for Mastra with LibSQL ` +
      `(${x(timeRatio(floor, mastraSqlite))} the time); with a \`StateSchema\` state ` +
      `${ms(median(wallOf(fieldsFloor)))} ms (${x(timeRatio(fieldsFloor, mastraSqlite))}).`,
    '',
    machineLine(load),
    '',
    ...table(['case', 'ms (median)', 'range', 'per second', 'CPU ms', 'vs raw', 'vs Mastra'], rows),
  ]);
}

await main();
process.exit(0); // Mastra's LibSQL client keeps the loop alive
