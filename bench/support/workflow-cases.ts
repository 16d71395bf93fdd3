/**
 * The cases of `bench:workflow`. A phase is one deck (one per process) with the raw LangGraph
 * graphs compiled on the same kind of checkpointer (workflow-phases.ts opens them): `sqlite`
 * (the deck on the SQLite default, events and checkpoints in one file; raw LangGraph on a
 * `SqliteCheckpointer` file of its own; Mastra on a LibSQL file), `postgres` (the deck on a
 * scratch database; raw LangGraph on LangGraph's `PostgresSaver` in that database; Mastra on
 * `@mastra/pg` in a schema of it), or `log-in-memory` (the deck's event log in memory, its
 * checkpoints on SQLite: what the deck costs without its log on disk). Mastra, opened once for
 * the whole bench, is measured in the first two phases, each on its own kind of store, so
 * each phase's ratios are taken side by side.
 */
import {
  bareRun,
  deckCycle,
  deckRun,
  EXIT,
  type IterateOn,
  type MastraEngines,
  mastraCycle,
  mastraRun,
  overHttp,
  rawCycle,
  rawRun,
} from './workflow-iterations.js';

export type Phase = 'sqlite' | 'postgres' | 'log-in-memory';
/** `run`: a 3-node run; `cycle`: interrupt + answer; `http`: a non-durable run over HTTP. */
export type Group = 'run' | 'cycle' | 'http';
/** Who the case is, for the ratios: each group's rows are set against `raw` and `mastra`. */
export type Role = 'raw' | 'mastra' | 'deck' | 'other';

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
  iterate: IterateOn;
}

/** The phase's store, as a row names it, and the Mastra storage of the same kind. */
const STORES = {
  sqlite: { store: 'SQLite', mastra: 'LibSQL file' },
  postgres: { store: 'Postgres', mastra: '`@mastra/pg`' },
} as const;

/** Mastra's instance for a phase's rows: its own kind of store, its own for 16 at once. */
function mastraEngine(
  phase: 'sqlite' | 'postgres',
  group: 'run' | 'cycle',
  concurrency: number,
): keyof MastraEngines {
  const kind = phase === 'sqlite' ? 'libsql' : 'pg';
  if (concurrency === 1) return kind;
  return group === 'run' ? `${kind}ConcurrentRuns` : `${kind}ConcurrentCycles`;
}

/**
 * The three peers of a group (a 3-node run or an interrupt + answer cycle) in a phase: raw
 * LangGraph on the phase's checkpointer with the deck's durability, the deck, and Mastra on
 * its storage of the same kind.
 */
function peerCases(phase: 'sqlite' | 'postgres', group: 'run' | 'cycle', concurrency: number) {
  const { store, mastra } = STORES[phase];
  const c = { phase, group, concurrency };
  const at = concurrency > 1 ? `, ${concurrency} at once` : '';
  const engine = mastraEngine(phase, group, concurrency);
  if (group === 'run') {
    return [
      {
        ...c,
        role: 'raw',
        name: `raw LangGraph \`invoke\`, ${store}, exit${at}`,
        iterate: rawRun(EXIT),
      },
      {
        ...c,
        role: 'deck',
        name: `**deck \`deck.run\`, ${store}**${at}`,
        iterate: deckRun('three-steps'),
      },
      {
        ...c,
        role: 'mastra',
        name: `Mastra \`run.start\`, ${mastra}${at}`,
        iterate: mastraRun(engine),
      },
    ] satisfies Case[];
  }
  return [
    {
      ...c,
      role: 'raw',
      name: `raw LangGraph \`invoke\` + \`invoke(Command)\`, ${store}, exit${at}`,
      iterate: rawCycle(EXIT),
    },
    {
      ...c,
      role: 'deck',
      name: `**deck \`deck.run\` + \`deck.answer\`, ${store}**${at}`,
      iterate: deckCycle('approval'),
    },
    {
      ...c,
      role: 'mastra',
      name: `Mastra \`start\` + \`resume\`, ${mastra}${at}`,
      iterate: mastraCycle(engine),
    },
  ] satisfies Case[];
}

/** The 3-node run (and on SQLite the cycle) with its state as a `StateSchema`. */
function fieldsCases(phase: 'sqlite' | 'postgres'): Case[] {
  const { store } = STORES[phase];
  const c = { phase, concurrency: 1, state: 'fields' } as const;
  const runs: Case[] = [
    {
      ...c,
      group: 'run',
      role: 'raw',
      name: `raw LangGraph \`invoke\`, ${store}, exit, \`StateSchema\` state`,
      iterate: rawRun(EXIT, true),
    },
    {
      ...c,
      group: 'run',
      role: 'deck',
      name: `deck \`deck.run\`, ${store}, \`StateSchema\` state`,
      iterate: deckRun('three-steps-fields'),
    },
  ];
  if (phase === 'postgres') return runs;
  return [
    ...runs,
    {
      ...c,
      group: 'run',
      role: 'other',
      name: 'raw LangGraph `invoke`, no checkpointer, `StateSchema` state',
      iterate: bareRun(true),
    },
    {
      ...c,
      group: 'cycle',
      role: 'raw',
      name: 'raw LangGraph, same, SQLite, exit, `StateSchema` state',
      iterate: rawCycle(EXIT, true),
    },
    {
      ...c,
      group: 'cycle',
      role: 'deck',
      name: 'deck `deck.run` + `deck.answer`, SQLite, `StateSchema` state',
      iterate: deckCycle('approval-fields'),
    },
  ];
}

/** The SQLite phase's rows beside the peers: other durabilities, the floors, Mastra in memory. */
function sqliteOthers(): Case[] {
  const c = { phase: 'sqlite', concurrency: 1, role: 'other' } as const;
  return [
    {
      ...c,
      group: 'run',
      name: 'raw LangGraph `invoke`, SQLite, async (LangGraph default)',
      iterate: rawRun({}),
    },
    {
      ...c,
      group: 'run',
      name: 'deck `deck.run`, SQLite, `durability: async`',
      iterate: deckRun('three-steps-async'),
    },
    {
      ...c,
      group: 'run',
      name: 'raw LangGraph `invoke`, no checkpointer (the floor)',
      iterate: bareRun(),
    },
    { ...c, group: 'run', name: 'Mastra `run.start`, in memory', iterate: mastraRun('memory') },
    {
      ...c,
      group: 'cycle',
      name: 'raw LangGraph, same, SQLite, async (LangGraph default)',
      iterate: rawCycle({}),
    },
  ];
}

/** A non-durable run over HTTP: the deck's app against a hand-written Hono route. */
function httpCases(concurrency: number): Case[] {
  const c = { phase: 'sqlite', group: 'http', concurrency } as const;
  const at = concurrency > 1 ? ', 16 at once' : '';
  return [
    {
      ...c,
      role: 'raw',
      name: `hand-written Hono route${at || ', `graph.invoke`, MemorySaver'}`,
      iterate: overHttp('honoApp', '/run'),
    },
    {
      ...c,
      role: 'deck',
      name:
        concurrency > 1
          ? '**deck app, not durable, 16 at once**'
          : '**deck app `POST /workflows/{name}`, not durable**',
      iterate: overHttp('deckApp', '/workflows/three-steps-local'),
    },
  ];
}

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

export const CASES: Case[] = [
  ...peerCases('sqlite', 'run', 1),
  ...sqliteOthers().filter((c) => c.group === 'run'),
  ...fieldsCases('sqlite').filter((c) => c.group === 'run'),
  ...peerCases('sqlite', 'run', 16),
  ...peerCases('sqlite', 'cycle', 1),
  ...sqliteOthers().filter((c) => c.group === 'cycle'),
  ...fieldsCases('sqlite').filter((c) => c.group === 'cycle'),
  ...peerCases('sqlite', 'cycle', 16),
  ...httpCases(1),
  ...httpCases(16),
  ...peerCases('postgres', 'run', 1),
  ...fieldsCases('postgres'),
  ...peerCases('postgres', 'run', 16),
  ...peerCases('postgres', 'cycle', 1),
  ...peerCases('postgres', 'cycle', 16),
  ...logInMemoryCases(),
];
