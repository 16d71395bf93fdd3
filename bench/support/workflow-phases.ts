/**
 * Opening `bench:workflow`'s phases (workflow-cases.ts says what each is): the deck from the
 * environment, raw graphs on a checkpointer of the same kind, the two HTTP apps, and Mastra.
 */
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { MemorySaver } from '@langchain/langgraph';
import { PostgresSaver } from '@langchain/langgraph-checkpoint-postgres';
import { Mastra } from '@mastra/core';
import { LibSQLStore } from '@mastra/libsql';
import { Hono } from 'hono';
import { Deck } from '../../src/index.js';
import { SqliteCheckpointer } from '../../src/stores/sqlite/index.js';
import {
  EXIT,
  type Graph,
  type MastraEngines,
  type Phase,
  type PhaseResources,
} from './workflow-cases.js';
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

export async function openMastra(dir: string): Promise<MastraEngines> {
  const storage = (file: string) => new LibSQLStore({ id: file, url: `file:${join(dir, file)}` });
  return {
    libsql: new Mastra({
      workflows: mastraWorkflows(),
      storage: storage('mastra.db'),
      logger: false,
    }),
    libsqlConcurrent: new Mastra({
      workflows: mastraWorkflows(),
      storage: storage('mastra-concurrent.db'),
      logger: false,
    }),
    memory: new Mastra({ workflows: mastraWorkflows(), logger: false }),
  };
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
