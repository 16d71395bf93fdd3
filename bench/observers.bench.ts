/**
 * What an observer costs a run. The same runs (an agent turn over HTTP to the scripted
 * OpenAI-compatible server, streaming three text deltas; a 3-node workflow whose middle node
 * waits 1 ms, as for an I/O call) are timed through `deck.run` with no observer, with an
 * in-memory observer, with one whose `emit` blocks for 2 seconds on every event (it returns a
 * promise that settles 2 s later: a collector awaited inline), with one that throws on every
 * event (disabled after 5 failures), and with the Langfuse tracing observer exporting to a
 * local OTLP stand-in. The claim under test: a slow or failing observer costs only its own
 * backlog, never a run, so the blocking case's latency matches the no-observer case.
 *
 * One deck is live per process, so each case opens its own deck (in-memory event store) in
 * turn; the order rotates between rounds so that noise falls on all cases alike, and the
 * medians over all runs of all rounds are reported, with the 95th percentile.
 *
 * Run: `npm run bench:observers` (or `npx tsx bench/observers.bench.ts [rounds] [runs]`). It
 * rewrites its own section of bench/RESULTS.md.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { END, START, StateGraph } from '@langchain/langgraph';
import { z } from 'zod';
import { Agent, Deck, type Observer, Workflow } from '../src/index.js';
import { LangfuseObserver } from '../src/observers/langfuse/index.js';
import { MemoryEventStore } from '../src/stores/memory/events.js';
import { type ScriptedModelServer, scriptedModelServer } from '../src/testing/index.js';
import { otlpServer } from '../test/support/otlp-server.js';
import {
  loadAtStart,
  machineLine,
  median,
  percentile,
  table,
  writeSection,
} from './support/report.js';

const ROUNDS = Number(process.argv[2] ?? 7);
const RUNS = Number(process.argv[3] ?? 500);
const WARMUP = 30;
const BLOCK_MS = 2_000;

/** An observer whose every emit takes BLOCK_MS; `stop()` releases it so the deck closes quickly. */
class BlockingObserver implements Observer {
  readonly name = 'blocking';
  delivered = 0;
  #stopped = false;
  #waiting = new Set<() => void>();

  emit(): Promise<void> {
    this.delivered += 1;
    if (this.#stopped) return Promise.resolve();
    return new Promise((resolve) => {
      const timer = setTimeout(done, BLOCK_MS);
      const waiting = this.#waiting;
      function done() {
        clearTimeout(timer);
        waiting.delete(done);
        resolve();
      }
      waiting.add(done);
    });
  }

  stop(): void {
    this.#stopped = true;
    for (const done of [...this.#waiting]) done();
  }
}

const Counter = z.object({ n: z.number() });
type CounterState = z.infer<typeof Counter>;

/** Three nodes in a line; the middle one waits 1 ms, as a node calling a service does. */
const threeSteps = () =>
  new Workflow({
    name: 'three-steps',
    state: Counter,
    graph: (state) =>
      new StateGraph(state)
        .addNode('one', (s: CounterState) => ({ n: s.n + 1 }))
        .addNode('two', async (s: CounterState) => {
          await sleep(1);
          return { n: s.n + 1 };
        })
        .addNode('three', (s: CounterState) => ({ n: s.n + 1 }))
        .addEdge(START, 'one')
        .addEdge('one', 'two')
        .addEdge('two', 'three')
        .addEdge('three', END),
  });

interface Case {
  name: string;
  observers: () => Observer[];
}

interface Sample {
  agent: number[];
  workflow: number[];
  /** Events the case's first observer had been handed when the last run returned. */
  delivered: number | null;
  recorded: number;
}

async function measure(test: Case, model: ScriptedModelServer): Promise<Sample> {
  const observers = test.observers();
  const eventStore = new MemoryEventStore();
  for (let i = 0; i < RUNS + WARMUP; i += 1) model.push({ text: ['Hello', ' there', '!'] });
  const deck = new Deck({
    eventStore,
    observers,
    agents: [new Agent({ name: 'Greeter', model: 'gpt-4o-mini' })],
    workflows: [threeSteps()],
  });
  await deck.open();
  const agent: number[] = [];
  const workflow: number[] = [];
  let recorded = 0;
  for (let i = 0; i < RUNS + WARMUP; i += 1) {
    let started = performance.now();
    await deck.run('Greeter', 'hi');
    const turn = performance.now() - started;
    started = performance.now();
    await deck.run('three-steps', { n: 0 });
    const run = performance.now() - started;
    if (i >= WARMUP) {
      agent.push(turn);
      workflow.push(run);
    }
  }
  for (const summary of await eventStore.listRuns({ limit: 1_000_000 }))
    recorded += summary.lastSeq + 1;
  const first = observers[0];
  const delivered = first instanceof BlockingObserver ? first.delivered : null;
  for (const observer of observers) if (observer instanceof BlockingObserver) observer.stop();
  await deck.close();
  return { agent, workflow, delivered, recorded };
}

const ms = (n: number) => n.toFixed(2);

async function main(): Promise<void> {
  const load = loadAtStart();
  const server = await otlpServer();
  const model = await scriptedModelServer([]);
  process.env.OPENAI_BASE_URL = model.url;
  process.env.OPENAI_API_KEY = 'sk-bench';
  const quietLog = console.warn;
  console.warn = () => {}; // the failing observer's two log lines per deck
  const CASES: Case[] = [
    { name: 'no observer', observers: () => [] },
    { name: 'an in-memory observer (counts events)', observers: () => [{ emit() {} }] },
    {
      name: `an observer that blocks ${BLOCK_MS / 1000} s on every event`,
      observers: () => [new BlockingObserver()],
    },
    {
      name: 'an observer that throws on every event',
      observers: () => [
        {
          emit() {
            throw new Error('collector down');
          },
        },
      ],
    },
    {
      name: 'the Langfuse observer, to a local OTLP stand-in',
      observers: () => [
        new LangfuseObserver({ publicKey: 'pk', secretKey: 'sk', baseUrl: server.url }),
      ],
    },
  ];
  const samples = new Map<Case, Sample[]>(CASES.map((c) => [c, []]));
  await measure(CASES[0] as Case, model); // warm up the JIT
  for (let round = 0; round < ROUNDS; round += 1) {
    const order = CASES.map((_, i) => CASES[(i + round) % CASES.length] as Case);
    for (const test of order) samples.get(test)?.push(await measure(test, model));
  }
  console.warn = quietLog;
  await server.close();
  await model.close();

  const all = (test: Case, key: 'agent' | 'workflow') =>
    (samples.get(test) ?? []).flatMap((s) => s[key]);
  const none = CASES[0] as Case;
  const blocking = CASES[2] as Case;
  const rows = CASES.map((test) => {
    const agent = all(test, 'agent');
    const workflow = all(test, 'workflow');
    const row = [
      test.name,
      `**${ms(median(agent))}**`,
      ms(percentile(agent, 95)),
      `${(median(agent) / median(all(none, 'agent'))).toFixed(2)}`,
      `**${ms(median(workflow))}**`,
      ms(percentile(workflow, 95)),
      `${(median(workflow) / median(all(none, 'workflow'))).toFixed(2)}`,
    ];
    console.log(row.join(' | '));
    return row;
  });
  const blocked = samples.get(blocking) ?? [];
  const delivered = median(blocked.map((s) => s.delivered ?? 0));
  const recorded = median(blocked.map((s) => s.recorded));
  const ratio = median(all(blocking, 'agent')) / median(all(none, 'agent'));
  writeSection('observers.bench', [
    '## Observer cost per run (`npm run bench:observers`)',
    '',
    `Each case opens a deck (in-memory event store) with the observers named, runs ${WARMUP} warm-up`,
    `rounds, then ${RUNS} times an agent turn (over HTTP to the scripted OpenAI-compatible server,`,
    'streaming three text deltas) and a 3-node workflow run (its middle node waits 1 ms, as for an',
    `I/O call) through \`deck.run\`, timing each call. The cases take turns in ${ROUNDS} rounds whose`,
    'order rotates; the table shows the median and 95th percentile over all runs, in milliseconds,',
    "and the median against the no-observer case. The blocking observer's `emit` returns a promise",
    `that settles ${BLOCK_MS / 1000} s later, on every event; the throwing one fails every event (and is`,
    'disabled after 5 in a row); the Langfuse observer renders every run and exports it over HTTP',
    'to a local OTLP stand-in.',
    '',
    `**Headline: with an observer that blocks ${BLOCK_MS / 1000} s on every event, an agent turn's ` +
      `median latency is ${ms(median(all(blocking, 'agent')))} ms against ` +
      `${ms(median(all(none, 'agent')))} ms with no observer (${ratio.toFixed(2)}×).** By the time ` +
      `the last run of a case returned, the blocking observer had been handed ${delivered} of the ` +
      `${recorded} recorded events: its backlog, not the runs, absorbed the wait.`,
    '',
    machineLine(load),
    '',
    ...table(
      ['observers', 'turn ms', 'turn p95', 'vs none', 'workflow ms', 'workflow p95', 'vs none'],
      rows,
    ),
  ]);
}

await main();
