/**
 * The cases of `bench:workflow`. A phase is one deck (one per process) with the raw LangGraph
 * graphs compiled on the same kind of checkpointer (workflow-phases.ts opens them): `sqlite`
 * (the deck on the SQLite default, events and checkpoints in one file; raw LangGraph on a
 * `SqliteCheckpointer` file of its own), `postgres` (the deck on a scratch database; raw
 * LangGraph on LangGraph's `PostgresSaver` in that database), or `log-in-memory` (the deck's
 * event log in memory, its checkpoints on SQLite: what the deck costs without its log on
 * disk). Mastra, opened once for the whole bench, is measured in the first two phases, so
 * each phase's ratios are taken side by side.
 */
import { Command } from '@langchain/langgraph';
import type { Mastra } from '@mastra/core';
import { type Deck, InterruptResult } from '../../src/index.js';
import { check, checkApproved, checkThreeSteps } from './workflow-shapes.js';

export type Phase = 'sqlite' | 'postgres' | 'log-in-memory';
/** `run`: a 3-node run; `cycle`: interrupt + answer; `http`: a non-durable run over HTTP. */
export type Group = 'run' | 'cycle' | 'http';
/** Who the case is, for the ratios: each group's rows are set against `raw` and `mastra`. */
export type Role = 'raw' | 'mastra' | 'deck' | 'other';

/** One iteration: run `i` (its own thread). */
export type Iterate = (i: number) => Promise<void>;

export interface Case {
  name: string;
  group: Group;
  phase: Phase;
  /** Runs in flight at once. */
  concurrency: number;
  role: Role;
  /**
   * `fields`: the workflow's state is a LangGraph `StateSchema` of the same zod fields; such a
   * row is set against the raw LangGraph row of the same state.
   */
  state?: 'fields';
  iterate(open: PhaseResources): Iterate;
}

export interface Graph {
  invoke(input: unknown, options?: Record<string, unknown>): Promise<unknown>;
}

export interface MastraEngines {
  libsql: Mastra;
  /**
   * The 16-at-once rows' own instance and file: after concurrent runs, later runs of the same
   * Mastra instance stay about 3x slower (measured here: 0.5 ms to 1.9 ms per run), which
   * would charge Mastra's sequential rows for the concurrent ones.
   */
  libsqlConcurrent: Mastra;
  memory: Mastra;
}

export interface PhaseResources {
  deck: Deck;
  /** Raw LangGraph on the phase's checkpointer; `Fields`: the state as a `StateSchema`. */
  threeSteps: Graph;
  threeStepsFields: Graph;
  approval: Graph;
  approvalFields: Graph;
  /** Raw LangGraph with no checkpointer at all: LangGraph's own floor. */
  bare: Graph;
  bareFields: Graph;
  /** The deck's HTTP app, and a hand-written Hono route invoking the same graph. */
  deckApp: { request(path: string, init: RequestInit): Promise<Response> | Response };
  honoApp: { request(path: string, init: RequestInit): Promise<Response> | Response };
  mastra: MastraEngines;
  /** A prefix for thread ids, new per phase opening (Postgres keeps its tables across rounds). */
  prefix: string;
}

/** Both durable modes a row can run raw LangGraph with; the deck's default is `'exit'`. */
export const EXIT = { durability: 'exit' } as const;

const postJson = (body: unknown): RequestInit => ({
  method: 'POST',
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify(body),
});

const deckRun =
  (workflow: string): Case['iterate'] =>
  ({ deck, prefix }) =>
  async (i) => {
    checkThreeSteps(await deck.run(workflow, { n: 0 }, { sessionId: `${prefix}d${i}` }));
  };

const rawRun =
  (durability: Record<string, string>, fields = false): Case['iterate'] =>
  (open) =>
  async (i) => {
    const config = { configurable: { thread_id: `${open.prefix}r${i}` }, ...durability };
    const graph = fields ? open.threeStepsFields : open.threeSteps;
    checkThreeSteps(await graph.invoke({ n: 0 }, config));
  };

const mastraRun =
  (which: keyof MastraEngines): Case['iterate'] =>
  ({ mastra }) =>
  async () => {
    const run = await mastra[which].getWorkflow('threeSteps').createRun();
    const result = await run.start({ inputData: { n: 0, steps: [] } });
    check(result.status === 'success', `mastra run succeeded, got ${result.status}`);
    checkThreeSteps((result as { result: unknown }).result);
  };

const rawCycle =
  (durability: Record<string, string>, fields = false): Case['iterate'] =>
  ({ approval: zodState, approvalFields, prefix }) =>
  async (i) => {
    const approval = fields ? approvalFields : zodState;
    const config = { configurable: { thread_id: `${prefix}a${i}` }, ...durability };
    const paused = (await approval.invoke({ amount: i }, config)) as Record<string, unknown>;
    check(Array.isArray(paused.__interrupt__), 'raw graph paused on the interrupt');
    checkApproved(await approval.invoke(new Command({ resume: { approved: true } }), config), i);
  };

const deckCycle =
  (workflow: string): Case['iterate'] =>
  ({ deck, prefix }) =>
  async (i) => {
    const paused = await deck.run(workflow, { amount: i }, { sessionId: `${prefix}c${i}` });
    check(paused instanceof InterruptResult && paused.runId !== null, 'deck interrupted');
    checkApproved(
      await deck.answer((paused as InterruptResult).runId as string, { approved: true }),
      i,
    );
  };

const mastraCycle: Case['iterate'] =
  ({ mastra }) =>
  async (i) => {
    const workflow = mastra.libsql.getWorkflow('approval');
    const run = await workflow.createRun();
    const paused = await run.start({ inputData: { amount: i } });
    check(paused.status === 'suspended', `mastra suspended, got ${paused.status}`);
    // As an answer arriving later would: a new handle on the stored run, by its id.
    const later = await workflow.createRun({ runId: run.runId });
    const done = await later.resume({ step: 'ask', resumeData: { approved: true } });
    check(done.status === 'success', `mastra resumed, got ${done.status}`);
    checkApproved((done as { result: unknown }).result, i);
  };

const overHttp =
  (app: 'deckApp' | 'honoApp', path: string): Case['iterate'] =>
  (open) =>
  async () => {
    const response = await open[app].request(path, postJson({ n: 0 }));
    check(response.status === 200, `HTTP 200, got ${response.status}`);
    checkThreeSteps(await response.json());
  };

function phaseCases(phase: Phase, store: string, concurrency: number): Case[] {
  const c = { phase, concurrency };
  const at = concurrency > 1 ? `, ${concurrency} at once` : '';
  return [
    {
      ...c,
      group: 'run',
      role: 'raw',
      name: `raw LangGraph \`invoke\`, ${store}, exit${at}`,
      iterate: rawRun(EXIT),
    },
    {
      ...c,
      group: 'run',
      role: 'deck',
      name: `**deck \`deck.run\`, ${store}**${at}`,
      iterate: deckRun('three-steps'),
    },
    {
      ...c,
      group: 'run',
      role: 'mastra',
      name: `Mastra \`run.start\`, LibSQL${at}`,
      iterate: mastraRun(concurrency > 1 ? 'libsqlConcurrent' : 'libsql'),
    },
  ];
}

/** The 3-node run with its state as a `StateSchema`: raw LangGraph and the deck. */
function fieldsCases(phase: Phase, store: string): Case[] {
  const c = { phase, concurrency: 1, group: 'run', state: 'fields' } as const;
  return [
    {
      ...c,
      role: 'raw',
      name: `raw LangGraph \`invoke\`, ${store}, exit, \`StateSchema\` state`,
      iterate: rawRun(EXIT, true),
    },
    {
      ...c,
      role: 'deck',
      name: `deck \`deck.run\`, ${store}, \`StateSchema\` state`,
      iterate: deckRun('three-steps-fields'),
    },
  ];
}

export const CASES: Case[] = [
  ...phaseCases('sqlite', 'SQLite', 1),
  {
    phase: 'sqlite',
    concurrency: 1,
    group: 'run',
    role: 'other',
    name: 'raw LangGraph `invoke`, SQLite, async (LangGraph default)',
    iterate: rawRun({}),
  },
  {
    phase: 'sqlite',
    concurrency: 1,
    group: 'run',
    role: 'other',
    name: 'deck `deck.run`, SQLite, `durability: async`',
    iterate: deckRun('three-steps-async'),
  },
  {
    phase: 'sqlite',
    concurrency: 1,
    group: 'run',
    role: 'other',
    name: 'raw LangGraph `invoke`, no checkpointer (the floor)',
    iterate:
      ({ bare }) =>
      async () =>
        checkThreeSteps(await bare.invoke({ n: 0 })),
  },
  {
    phase: 'sqlite',
    concurrency: 1,
    group: 'run',
    role: 'other',
    name: 'Mastra `run.start`, in memory',
    iterate: mastraRun('memory'),
  },
  ...fieldsCases('sqlite', 'SQLite'),
  {
    phase: 'sqlite',
    concurrency: 1,
    group: 'run',
    role: 'other',
    state: 'fields',
    name: 'raw LangGraph `invoke`, no checkpointer, `StateSchema` state',
    iterate:
      ({ bareFields }) =>
      async () =>
        checkThreeSteps(await bareFields.invoke({ n: 0 })),
  },
  ...phaseCases('sqlite', 'SQLite', 16),
  {
    phase: 'sqlite',
    concurrency: 1,
    group: 'cycle',
    role: 'raw',
    name: 'raw LangGraph `invoke` + `invoke(Command)`, SQLite, exit',
    iterate: rawCycle(EXIT),
  },
  {
    phase: 'sqlite',
    concurrency: 1,
    group: 'cycle',
    role: 'other',
    name: 'raw LangGraph, same, SQLite, async (LangGraph default)',
    iterate: rawCycle({}),
  },
  {
    phase: 'sqlite',
    concurrency: 1,
    group: 'cycle',
    role: 'deck',
    name: '**deck `deck.run` + `deck.answer`, SQLite**',
    iterate: deckCycle('approval'),
  },
  {
    phase: 'sqlite',
    concurrency: 1,
    group: 'cycle',
    role: 'mastra',
    name: 'Mastra `start` + `resume`, LibSQL',
    iterate: mastraCycle,
  },
  {
    phase: 'sqlite',
    concurrency: 1,
    group: 'cycle',
    role: 'raw',
    state: 'fields',
    name: 'raw LangGraph, same, SQLite, exit, `StateSchema` state',
    iterate: rawCycle(EXIT, true),
  },
  {
    phase: 'sqlite',
    concurrency: 1,
    group: 'cycle',
    role: 'deck',
    state: 'fields',
    name: 'deck `deck.run` + `deck.answer`, SQLite, `StateSchema` state',
    iterate: deckCycle('approval-fields'),
  },
  {
    phase: 'sqlite',
    concurrency: 1,
    group: 'http',
    role: 'raw',
    name: 'hand-written Hono route, `graph.invoke`, MemorySaver',
    iterate: overHttp('honoApp', '/run'),
  },
  {
    phase: 'sqlite',
    concurrency: 1,
    group: 'http',
    role: 'deck',
    name: '**deck app `POST /workflows/{name}`, not durable**',
    iterate: overHttp('deckApp', '/workflows/three-steps-local'),
  },
  {
    phase: 'sqlite',
    concurrency: 16,
    group: 'http',
    role: 'raw',
    name: 'hand-written Hono route, 16 at once',
    iterate: overHttp('honoApp', '/run'),
  },
  {
    phase: 'sqlite',
    concurrency: 16,
    group: 'http',
    role: 'deck',
    name: '**deck app, not durable, 16 at once**',
    iterate: overHttp('deckApp', '/workflows/three-steps-local'),
  },
  ...phaseCases('postgres', 'Postgres', 1),
  ...fieldsCases('postgres', 'Postgres'),
  ...phaseCases('postgres', 'Postgres', 16),
  {
    phase: 'postgres',
    concurrency: 1,
    group: 'cycle',
    role: 'raw',
    name: 'raw LangGraph `invoke` + `invoke(Command)`, Postgres, exit',
    iterate: rawCycle(EXIT),
  },
  {
    phase: 'postgres',
    concurrency: 1,
    group: 'cycle',
    role: 'deck',
    name: '**deck `deck.run` + `deck.answer`, Postgres**',
    iterate: deckCycle('approval'),
  },
  {
    phase: 'postgres',
    concurrency: 1,
    group: 'cycle',
    role: 'mastra',
    name: 'Mastra `start` + `resume`, LibSQL (Postgres phase)',
    iterate: mastraCycle,
  },
  ...logInMemoryCases(),
];

/**
 * The deck with its event log in memory (checkpoints still on a SQLite file) against raw
 * LangGraph on a `SqliteCheckpointer`, and the HTTP route: what the log on disk costs.
 */
function logInMemoryCases(): Case[] {
  const c = { phase: 'log-in-memory', concurrency: 1 } as const;
  const memory = 'event log in memory, checkpoints on SQLite';
  return [
    {
      ...c,
      group: 'run',
      role: 'raw',
      name: 'raw LangGraph `invoke`, SQLite, exit (log-in-memory phase)',
      iterate: rawRun(EXIT),
    },
    {
      ...c,
      group: 'run',
      role: 'deck',
      name: `deck \`deck.run\`, ${memory}`,
      iterate: deckRun('three-steps'),
    },
    {
      ...c,
      group: 'cycle',
      role: 'raw',
      name: 'raw LangGraph cycle, SQLite, exit (log-in-memory phase)',
      iterate: rawCycle(EXIT),
    },
    {
      ...c,
      group: 'cycle',
      role: 'deck',
      name: `deck \`deck.run\` + \`deck.answer\`, ${memory}`,
      iterate: deckCycle('approval'),
    },
    {
      ...c,
      group: 'http',
      role: 'raw',
      name: 'hand-written Hono route (log-in-memory phase)',
      iterate: overHttp('honoApp', '/run'),
    },
    {
      ...c,
      group: 'http',
      role: 'deck',
      name: 'deck app, not durable, event log in memory',
      iterate: overHttp('deckApp', '/workflows/three-steps-local'),
    },
  ];
}
