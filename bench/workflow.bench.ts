/**
 * What the deck costs on top of LangGraph for durable workflows on the SQLite default.
 *
 * 1. A 3-node workflow (three nodes in a line, `durable: true`), one run per thread:
 *    `deck.run(name, input, { sessionId })` against the same graph compiled by hand with the
 *    same checkpointer (`SqliteCheckpointer`) and run with `graph.invoke(input, { configurable:
 *    { thread_id } })`. The deck opens its stores itself from `SERVICE_EVENTS=sqlite://<file>`
 *    with `SERVICE_CHECKPOINT` unset, so events and checkpoints share one file: the default.
 *    Target: the deck at most 25% slower than raw LangGraph.
 * 2. An interrupt + answer cycle (prepare -> ask, which interrupts -> finish): `deck.run` to
 *    the interrupt then `deck.answer(runId, value)` to the final state, against raw LangGraph
 *    (`invoke` to the interrupt, then `invoke(new Command({ resume }))`).
 *
 * In each round the cases are open together on fresh SQLite files and run in interleaved
 * blocks whose order rotates, so that noise on a shared machine falls on all of them alike;
 * the medians over the rounds are reported, the ratio as the median of the per-round ratios
 * (case / raw LangGraph in the same round). Diagnostic rows show where the deck's time goes:
 * raw LangGraph streamed in the three modes the deck reads (`updates`, `custom`, `values`),
 * and, in a second phase (one deck per process), the deck with an in-memory event store.
 *
 * Run: `npm run bench:workflow` (or `npx tsx bench/workflow.bench.ts [rounds] [runs] [cycles]`).
 * It rewrites its own section of bench/RESULTS.md.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Command, END, START, StateGraph } from '@langchain/langgraph';
import { z } from 'zod';
import { Deck, InterruptResult, interrupt, Workflow } from '../src/index.js';
import { MemoryEventStore } from '../src/stores/memory/events.js';
import { SqliteCheckpointer } from '../src/stores/sqlite/index.js';
import { loadAtStart, machineLine, median, table, writeSection } from './support/report.js';

const ROUNDS = Number(process.argv[2] ?? 7);
const RUNS = Number(process.argv[3] ?? 300);
const CYCLES = Number(process.argv[4] ?? 200);
const WARMUP = 100;
const TARGET_OVERHEAD = 0.25;

// --- The workflows: the same builders serve the deck and the raw graph. ---

const Counter = z.object({ n: z.number(), steps: z.array(z.string()).optional() });
type CounterState = z.infer<typeof Counter>;

const step = (name: string) => (s: CounterState) => ({
  n: s.n + 1,
  steps: [...(s.steps ?? []), name],
});

const threeStepsGraph = (state: typeof Counter) =>
  new StateGraph(state)
    .addNode('one', step('one'))
    .addNode('two', step('two'))
    .addNode('three', step('three'))
    .addEdge(START, 'one')
    .addEdge('one', 'two')
    .addEdge('two', 'three')
    .addEdge('three', END);

const Approval = z.object({
  amount: z.number(),
  approved: z.boolean().optional(),
  note: z.string().optional(),
});
type ApprovalState = z.infer<typeof Approval>;

const approvalGraph = (state: typeof Approval) =>
  new StateGraph(state)
    .addNode('prepare', (s: ApprovalState) => ({ note: `amount ${s.amount}` }))
    .addNode('ask', (s: ApprovalState) => {
      const answer = interrupt<{ approved: boolean }>({ question: 'approve?', amount: s.amount });
      return { approved: answer.approved };
    })
    .addNode('finish', (s: ApprovalState) => ({
      note: `${s.note} ${s.approved ? 'approved' : 'rejected'}`,
    }))
    .addEdge(START, 'prepare')
    .addEdge('prepare', 'ask')
    .addEdge('ask', 'finish')
    .addEdge('finish', END);

const WORKFLOWS = [
  new Workflow({ name: 'three-steps', state: Counter, durable: true, graph: threeStepsGraph }),
  new Workflow({ name: 'approval', state: Approval, durable: true, graph: approvalGraph }),
];

// --- The cases. ---

type Group = 'run' | 'cycle';

/** One iteration: run `i` (its own thread). */
type Iterate = (i: number) => Promise<void>;

interface Case {
  name: string;
  group: Group;
  /**
   * Cases of one phase are open together and measured in interleaved blocks. One deck per
   * process: phase 1 holds the deck on the SQLite default, phase 2 the diagnostic deck.
   */
  phase: 1 | 2;
  /** Raw LangGraph: the row its group (and phase) is measured against. */
  baseline?: boolean;
  /** The deck on the SQLite default: its ratio to the baseline is the group's result. */
  subject?: boolean;
  /** The iteration, given the phase's open resources. */
  iterate(open: PhaseResources): Iterate;
}

interface PhaseResources {
  threeSteps: CompiledGraph;
  approval: CompiledGraph;
  deck: Deck;
}

interface CompiledGraph {
  invoke(input: unknown, options: Record<string, unknown>): Promise<unknown>;
  stream(input: unknown, options: Record<string, unknown>): Promise<AsyncIterable<unknown>>;
}

function check(ok: boolean, what: string): void {
  if (!ok) throw new Error(`benchmark self-check failed: ${what}`);
}

function checkThreeSteps(result: unknown): void {
  const state = result as CounterState;
  check(state.n === 3 && state.steps?.length === 3, `3 steps, got ${JSON.stringify(result)}`);
}

const deckRun =
  ({ deck }: PhaseResources): Iterate =>
  async (i) => {
    checkThreeSteps(await deck.run('three-steps', { n: 0 }, { sessionId: `t${i}` }));
  };

const rawInvoke =
  ({ threeSteps }: PhaseResources): Iterate =>
  async (i) => {
    checkThreeSteps(await threeSteps.invoke({ n: 0 }, { configurable: { thread_id: `t${i}` } }));
  };

const CASES: Case[] = [
  {
    name: 'raw LangGraph: `graph.invoke`, SqliteCheckpointer',
    group: 'run',
    phase: 1,
    baseline: true,
    iterate: rawInvoke,
  },
  {
    name: '**deck: `deck.run`, SQLite default (events + checkpoints in one file)**',
    group: 'run',
    phase: 1,
    subject: true,
    iterate: deckRun,
  },
  {
    name: 'diagnostic: raw `graph.stream` in the modes the deck reads (updates, custom, values)',
    group: 'run',
    phase: 1,
    iterate:
      ({ threeSteps }) =>
      async (i) => {
        const stream = await threeSteps.stream(
          { n: 0 },
          { configurable: { thread_id: `s${i}` }, streamMode: ['updates', 'custom', 'values'] },
        );
        let last: unknown;
        for await (const chunk of stream) {
          const [mode, data] = chunk as [string, unknown];
          if (mode === 'values') last = data;
        }
        checkThreeSteps(last);
      },
  },
  {
    name: 'raw LangGraph: `invoke` to the interrupt, `invoke(new Command({ resume }))`',
    group: 'cycle',
    phase: 1,
    baseline: true,
    iterate:
      ({ approval }) =>
      async (i) => {
        const config = { configurable: { thread_id: `a${i}` } };
        const paused = (await approval.invoke({ amount: i }, config)) as Record<string, unknown>;
        check(Array.isArray(paused.__interrupt__), 'raw graph paused on the interrupt');
        const done = await approval.invoke(new Command({ resume: { approved: true } }), config);
        check((done as ApprovalState).note === `amount ${i} approved`, 'raw graph answered');
      },
  },
  {
    name: '**deck: `deck.run` to the interrupt, then `deck.answer`, SQLite default**',
    group: 'cycle',
    phase: 1,
    subject: true,
    iterate:
      ({ deck }) =>
      async (i) => {
        const paused = await deck.run('approval', { amount: i }, { sessionId: `a${i}` });
        check(paused instanceof InterruptResult && paused.runId !== null, 'deck interrupted');
        const runId = (paused as InterruptResult).runId as string;
        const done = await deck.answer(runId, { approved: true });
        check((done as ApprovalState).note === `amount ${i} approved`, 'deck answered');
      },
  },
  {
    name: 'raw LangGraph: `graph.invoke` (baseline of the row below)',
    group: 'run',
    phase: 2,
    baseline: true,
    iterate: rawInvoke,
  },
  {
    name: 'diagnostic: `deck.run`, in-memory event store, SQLite checkpoints',
    group: 'run',
    phase: 2,
    iterate: deckRun,
  },
];

/**
 * Open a phase's resources in `dir`: the raw graphs compiled with a `SqliteCheckpointer` on
 * one file, and a deck on another (phase 1: the SQLite default, opened from the env, events
 * and checkpoints in one file; phase 2: an in-memory event store, checkpoints in SQLite).
 */
async function openPhase(phase: 1 | 2, dir: string) {
  const checkpointer = new SqliteCheckpointer(join(dir, 'raw.db'));
  process.env.SERVICE_EVENTS = `sqlite://${join(dir, 'deck.db')}`;
  delete process.env.SERVICE_CHECKPOINT;
  delete process.env.SERVICE_SESSION;
  const deck = await new Deck({
    workflows: WORKFLOWS,
    ...(phase === 2 ? { eventStore: new MemoryEventStore() } : {}),
  }).open();
  const resources: PhaseResources = {
    threeSteps: threeStepsGraph(Counter).compile({ checkpointer }) as unknown as CompiledGraph,
    approval: approvalGraph(Approval).compile({ checkpointer }) as unknown as CompiledGraph,
    deck,
  };
  const close = async () => {
    await deck.close();
    await checkpointer.close();
  };
  return { resources, close };
}

interface Sample {
  msPerIteration: number;
  cpuMsPerIteration: number;
}

/** Blocks per measurement: each case runs `iterations / BLOCKS` at a time, in turn. */
const BLOCKS = 20;

/**
 * One round of a phase: every case of the phase on fresh files, `iterations` each, in
 * interleaved blocks whose order rotates, so noise on the machine falls on all of them.
 */
async function measurePhase(
  phase: 1 | 2,
  iterations: (test: Case) => number,
): Promise<Map<Case, Sample>> {
  const cases = CASES.filter((c) => c.phase === phase);
  const dir = mkdtempSync(join(tmpdir(), 'agentdeck-bench-'));
  try {
    const { resources, close } = await openPhase(phase, dir);
    try {
      const totals = cases.map((test) => ({
        test,
        iterate: test.iterate(resources),
        size: Math.max(1, Math.round(iterations(test) / BLOCKS)),
        next: 0,
        ms: 0,
        cpuMicros: 0,
      }));
      for (let block = 0; block < BLOCKS; block += 1) {
        for (let k = 0; k < totals.length; k += 1) {
          const t = totals[(block + k) % totals.length] as (typeof totals)[number];
          const cpu = process.cpuUsage();
          const started = performance.now();
          for (let j = 0; j < t.size; j += 1) await t.iterate(t.next++);
          t.ms += performance.now() - started;
          const { user, system } = process.cpuUsage(cpu);
          t.cpuMicros += user + system;
        }
      }
      return new Map(
        totals.map((t) => [
          t.test,
          { msPerIteration: t.ms / t.next, cpuMsPerIteration: t.cpuMicros / 1000 / t.next },
        ]),
      );
    } finally {
      await close();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const ms = (n: number) => n.toFixed(2);
const pct = (ratio: number) => `${ratio >= 1 ? '+' : ''}${((ratio - 1) * 100).toFixed(1)}%`;

async function main(): Promise<void> {
  const load = loadAtStart();
  const warmup = (test: Case) => (test.group === 'run' ? WARMUP : WARMUP / 2);
  await measurePhase(1, warmup); // warm up the JIT and the file system
  await measurePhase(2, warmup);
  const count = (test: Case) => (test.group === 'run' ? RUNS : CYCLES);
  const samples = new Map<Case, Sample[]>(CASES.map((c) => [c, []]));
  for (let round = 0; round < ROUNDS; round += 1) {
    for (const phase of round % 2 === 0 ? ([1, 2] as const) : ([2, 1] as const)) {
      for (const [test, sample] of await measurePhase(phase, count))
        samples.get(test)?.push(sample);
    }
    console.log(`round ${round + 1}/${ROUNDS} done`);
  }

  const wallOf = (test: Case) => samples.get(test)?.map((s) => s.msPerIteration) ?? [];
  const baselineOf = (test: Case) =>
    CASES.find((c) => c.group === test.group && c.phase === test.phase && c.baseline) as Case;
  /** Per round: this case's time over its baseline's in the same round and phase. */
  const ratiosOf = (test: Case) => {
    const base = wallOf(baselineOf(test));
    return wallOf(test).map((v, i) => v / (base[i] ?? Number.NaN));
  };
  const subjectOf = (group: Group) => CASES.find((c) => c.group === group && c.subject) as Case;

  const rows: string[][] = [];
  for (const test of CASES) {
    const wall = wallOf(test);
    const ratio = median(ratiosOf(test));
    const row = [
      `${test.group}: ${test.name}`,
      `**${ms(median(wall))}**`,
      `${ms(Math.min(...wall))} – ${ms(Math.max(...wall))}`,
      Math.round(1000 / median(wall)).toLocaleString('en-US'),
      ms(median(samples.get(test)?.map((s) => s.cpuMsPerIteration) ?? [])),
      test.baseline ? '(baseline)' : `${ratio.toFixed(3)} (${pct(ratio)})`,
    ];
    rows.push(row);
    console.log(row.join(' | '));
  }

  const run = subjectOf('run');
  const cycle = subjectOf('cycle');
  const overhead = median(ratiosOf(run)) - 1;
  const verdict = overhead <= TARGET_OVERHEAD ? 'PASS' : 'FAIL';
  const range = (ratios: number[]) => `${pct(Math.min(...ratios))} to ${pct(Math.max(...ratios))}`;
  writeSection('workflow.bench', [
    '## Durable workflow overhead (`npm run bench:workflow`)',
    '',
    `A 3-node durable workflow (three nodes in a line), ${RUNS} runs per measurement, each on its own`,
    'thread: `deck.run(name, input, { sessionId })` against the same graph compiled by hand with',
    'the same checkpointer (`SqliteCheckpointer`) and run with `graph.invoke(input, { configurable:',
    '{ thread_id } })`. The deck opens its stores itself from `SERVICE_EVENTS=sqlite://<file>` with',
    '`SERVICE_CHECKPOINT` unset, so events and checkpoints share one file, as by default. The cycle',
    `rows (${CYCLES} cycles per measurement) run an approval workflow (prepare -> ask, which calls`,
    '`interrupt()` -> finish) to its interrupt and answer it: `deck.run` then `deck.answer(runId,',
    'value)`, against `invoke` then `invoke(new Command({ resume }))`.',
    '',
    `In each of ${ROUNDS} rounds (after a warm-up) the cases of a phase are open together, on fresh`,
    `SQLite files in the OS temp directory, and run in ${BLOCKS} interleaved blocks whose order`,
    'rotates, so that noise on the machine falls on all of them. The table shows the median',
    'wall-clock time per run or cycle over the rounds, its range, and the process CPU time per run',
    'or cycle; "vs raw" is the median over the rounds of the case against raw LangGraph measured in',
    "the same round. The diagnostic rows split the deck's time: raw LangGraph streamed in the three",
    'modes the deck reads, and (a second phase, one deck per process) the deck with an in-memory',
    'event store.',
    '',
    `**Headline: the deck's overhead over raw LangGraph on a 3-node durable workflow is ` +
      `${pct(1 + overhead)}: ${verdict}** (target: at most +${TARGET_OVERHEAD * 100}%). ` +
      `${ms(median(wallOf(run)))} ms per \`deck.run\` against ${ms(median(wallOf(baselineOf(run))))} ms ` +
      `per raw \`invoke\` (medians; per round ${range(ratiosOf(run))}).`,
    '',
    `**Interrupt + answer cycle: ${ms(median(wallOf(cycle)))} ms per cycle through the deck**, ` +
      `against ${ms(median(wallOf(baselineOf(cycle))))} ms with raw LangGraph ` +
      `(${pct(median(ratiosOf(cycle)))}; per round ${range(ratiosOf(cycle))}).`,
    '',
    machineLine(load),
    '',
    ...table(['case', 'ms (median)', 'range', 'per second', 'CPU ms', 'vs raw (median)'], rows),
  ]);
  console.log(`overhead ${pct(1 + overhead)} (${verdict})`);
}

await main();
