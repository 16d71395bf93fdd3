/**
 * Opening `bench:workflow`'s phases (workflow-cases.ts says what each is): the deck from the
 * environment, raw graphs on a checkpointer of the same kind, the two HTTP apps, and Mastra
 * on each kind of store.
 */
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { MemorySaver } from '@langchain/langgraph';
import { PostgresSaver } from '@langchain/langgraph-checkpoint-postgres';
import { Mastra } from '@mastra/core';
import { LibSQLStore } from '@mastra/libsql';
import { PostgresStore } from '@mastra/pg';
import { Hono } from 'hono';
import { Deck } from '../../src/index.js';
import { SqliteCheckpointer } from '../../src/stores/sqlite/index.js';
import type { Phase } from './workflow-cases.js';
import {
  EXIT,
  type Graph,
  type MastraEngines,
  type PhaseResources,
} from './workflow-iterations.js';
import {
  Approval,
  ApprovalFields,
  approvalGraph,
  Counter,
  CounterFields,
  DECK_WORKFLOWS,
  mastraWorkflows,
  threeStepsGraph,
} from './workflow-shapes.js';

/** The files Mastra's LibSQL instances store in (the bench checks they are written). */
export const MASTRA_LIBSQL_FILES = [
  'mastra.db',
  'mastra-concurrent-runs.db',
  'mastra-concurrent-cycles.db',
] as const;

/**
 * Mastra's instances, each with workflows and a store of its own: LibSQL on files in `dir`
 * (`file:` URLs, never `:memory:`), `@mastra/pg` in schemas of the bench's scratch database
 * (dropped with it), and one in memory. `close` ends the Postgres pools, before the database
 * is dropped under them.
 */
export function openMastra(
  dir: string,
  postgresUrl: string,
): { engines: MastraEngines; close: () => Promise<void> } {
  const libsql = (file: string) => new LibSQLStore({ id: file, url: `file:${join(dir, file)}` });
  const postgres = (schemaName: string) =>
    new PostgresStore({ id: schemaName, connectionString: postgresUrl, schemaName });
  const stores = {
    pg: postgres('mastra'),
    pgConcurrentRuns: postgres('mastra_concurrent_runs'),
    pgConcurrentCycles: postgres('mastra_concurrent_cycles'),
  };
  const mastra = (storage?: LibSQLStore | PostgresStore) =>
    new Mastra({ workflows: mastraWorkflows(), logger: false, ...(storage ? { storage } : {}) });
  const [file, runsFile, cyclesFile] = MASTRA_LIBSQL_FILES;
  const engines: MastraEngines = {
    libsql: mastra(libsql(file)),
    libsqlConcurrentRuns: mastra(libsql(runsFile)),
    libsqlConcurrentCycles: mastra(libsql(cyclesFile)),
    pg: mastra(stores.pg),
    pgConcurrentRuns: mastra(stores.pgConcurrentRuns),
    pgConcurrentCycles: mastra(stores.pgConcurrentCycles),
    memory: mastra(),
  };
  const close = async () => {
    await Promise.all(Object.values(stores).map((store) => store.close()));
  };
  return { engines, close };
}

/**
 * Open a phase: the deck from the environment (`SERVICE_EVENTS`, checkpoints beside the
 * events, or on a SQLite file when the log is in memory), raw graphs on a checkpointer of
 * the same kind, and the two HTTP apps.
 */
export async function openPhase(
  phase: Phase,
  where: { dir: string; postgresUrl: string },
  mastra: MastraEngines,
) {
  const prefix = `${randomUUID().slice(0, 8)}-`;
  let checkpointer: SqliteCheckpointer | PostgresSaver;
  delete process.env.SERVICE_CHECKPOINT;
  delete process.env.SERVICE_SESSION;
  if (phase === 'postgres') {
    checkpointer = PostgresSaver.fromConnString(where.postgresUrl);
    await checkpointer.setup();
    process.env.SERVICE_EVENTS = where.postgresUrl;
  } else {
    checkpointer = new SqliteCheckpointer(join(where.dir, `raw-${prefix}.db`));
    const deckFile = `sqlite://${join(where.dir, `deck-${prefix}.db`)}`;
    process.env.SERVICE_EVENTS = phase === 'sqlite' ? deckFile : 'memory://';
    if (phase === 'log-in-memory') process.env.SERVICE_CHECKPOINT = deckFile;
  }
  const deck = await new Deck({ workflows: DECK_WORKFLOWS }).open();
  const local = new MemorySaver();
  const localGraph = threeStepsGraph(Counter).compile({ checkpointer: local }) as Graph;
  const honoApp = new Hono().post('/run', async (c) => {
    const threadId = randomUUID();
    const state = await localGraph.invoke(await c.req.json(), {
      configurable: { thread_id: threadId },
      ...EXIT,
    });
    // As the deck does for a thread named by its run id: dropped when the run ends.
    await local.deleteThread(threadId);
    return c.json(state);
  });
  const resources: PhaseResources = {
    deck,
    threeSteps: threeStepsGraph(Counter).compile({ checkpointer }) as unknown as Graph,
    threeStepsFields: threeStepsGraph(CounterFields).compile({ checkpointer }) as unknown as Graph,
    approval: approvalGraph(Approval).compile({ checkpointer }) as unknown as Graph,
    approvalFields: approvalGraph(ApprovalFields).compile({ checkpointer }) as unknown as Graph,
    bare: threeStepsGraph(Counter).compile() as unknown as Graph,
    bareFields: threeStepsGraph(CounterFields).compile() as unknown as Graph,
    deckApp: deck.app({ log: () => {} }),
    honoApp,
    mastra,
    prefix,
  };
  const close = async () => {
    await deck.close();
    if (checkpointer instanceof SqliteCheckpointer) await checkpointer.close();
    else await checkpointer.end();
  };
  return { resources, close };
}
