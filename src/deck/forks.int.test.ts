/**
 * `deck.fork()` (#41) on the durable checkpointers a service keeps its threads in: the copy of
 * a checkpoint to a new thread is each saver's own `put` (SQLite's and Postgres's store channel
 * values apart from the checkpoint), so a fork from the first checkpoint with an edited state
 * completes on its own thread, and the source thread's history is unchanged, on both. Postgres
 * gets a scratch database of its own (PostgresSaver's tables live in its `public` schema).
 */
import { END, START, StateGraph } from '@langchain/langgraph';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { openTestDeck } from '../../test/support/decks.js';
import { adminQuery, scratchDatabase } from '../../test/support/postgres.js';
import { tempStateFile } from '../../test/support/sqlite-files.js';
import { Workflow } from '../index.js';

const State = z.object({ topic: z.string(), draft: z.string().optional() });
const writer = new Workflow({
  name: 'writer',
  state: State,
  durable: true,
  durability: 'sync',
  graph: (state) =>
    new StateGraph(state)
      .addNode('write', (s: z.infer<typeof State>) => ({ draft: `about ${s.topic}` }))
      .addEdge(START, 'write')
      .addEdge('write', END),
});

const { name: database, url } = scratchDatabase();
beforeAll(() => adminQuery(`CREATE DATABASE ${database}`));
afterAll(() => adminQuery(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`));

describe.each([
  ['SQLite', () => `sqlite://${tempStateFile('forks')}`],
  ['Postgres', () => url.href],
])('deck.fork() with the %s checkpointer', (_backend, checkpoints) => {
  it('forks from the first checkpoint with an edited state; the source thread is unchanged', async () => {
    const { deck } = await openTestDeck({ workflows: [writer], checkpoints: checkpoints() });
    await deck.run('writer', { topic: 'cats' }, { sessionId: 'cats' });
    const history = await deck.checkpoints('writer', 'cats');
    expect(history.map((c) => c.next)).toEqual([[], ['write']]);
    const fork = await deck.fork('writer', 'cats', {
      checkpointId: history[1]?.id as string,
      state: { topic: 'dogs' },
    });
    expect(fork).toMatchObject({
      status: 'completed',
      state: { topic: 'dogs', draft: 'about dogs' },
    });
    expect(await deck.checkpoints('writer', 'cats')).toEqual(history);
    expect((await deck.checkpoints('writer', fork.threadId))[0]?.values).toEqual({
      topic: 'dogs',
      draft: 'about dogs',
    });
  });
});
