/**
 * A workflow's checkpoint `durability`, through a deck on an SQLite checkpointer: by default
 * (`'exit'`) a segment writes one checkpoint, when it ends, so an interrupted thread is in the
 * file before `run.interrupted` is recorded and answers from it; `'async'` writes one per
 * step as well. A value LangGraph does not know is refused at definition.
 */
import { END, START, StateGraph } from '@langchain/langgraph';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { openTestDeck } from '../../test/support/decks.js';
import { tempStateFile } from '../../test/support/sqlite-files.js';
import {
  type CheckpointDurability,
  ConfigError,
  InterruptResult,
  interrupt,
  Workflow,
} from '../index.js';
import { SqliteCheckpointer } from '../stores/sqlite/index.js';

const Order = z.object({ n: z.number(), approved: z.boolean().optional() });
type OrderState = z.infer<typeof Order>;

function approval(durability?: CheckpointDurability) {
  return new Workflow({
    name: 'approval',
    state: Order,
    durable: true,
    ...(durability ? { durability } : {}),
    graph: (state) =>
      new StateGraph(state)
        .addNode('one', (s: OrderState) => ({ n: s.n + 1 }))
        .addNode('two', (s: OrderState) => ({ n: s.n + 1 }))
        .addNode('ask', () => ({ approved: interrupt<boolean>({ question: 'approve?' }) }))
        .addEdge(START, 'one')
        .addEdge('one', 'two')
        .addEdge('two', 'ask')
        .addEdge('ask', END),
  });
}

/** Play a run to its interrupt and answer it; count the thread's checkpoints after each. */
async function checkpointsOf(durability?: CheckpointDurability) {
  const file = tempStateFile('durability');
  const { deck } = await openTestDeck({
    workflows: [approval(durability)],
    checkpoints: `sqlite://${file}`,
  });
  const count = async () => {
    const reader = new SqliteCheckpointer(file);
    let n = 0;
    for await (const _ of reader.list({ configurable: { thread_id: 'approval:t1' } })) n += 1;
    await reader.close();
    return n;
  };
  const paused = await deck.run('approval', { n: 0 }, { sessionId: 't1' });
  expect(paused).toBeInstanceOf(InterruptResult);
  const atInterrupt = await count();
  const done = await deck.answer((paused as InterruptResult).runId as string, true);
  expect(done).toEqual({ n: 2, approved: true });
  return { atInterrupt, atEnd: await count() };
}

describe('workflow checkpoint durability', () => {
  it("writes one checkpoint per segment by default ('exit'), and answers from it", async () => {
    expect(await checkpointsOf()).toEqual({ atInterrupt: 1, atEnd: 2 });
  });

  it("writes one per step with 'async'", async () => {
    const { atInterrupt, atEnd } = await checkpointsOf('async');
    // The input, then one after each step: one, two (ask interrupted), then ask done.
    expect(atInterrupt).toBe(4);
    expect(atEnd).toBe(5);
  });

  it('refuses a durability LangGraph does not know, naming it', () => {
    expect(() => approval('always' as CheckpointDurability)).toThrow(ConfigError);
    expect(() => approval('always' as CheckpointDurability)).toThrow(
      "workflow 'approval': `durability` must be one of 'exit', 'async', 'sync', got \"always\"",
    );
  });
});
