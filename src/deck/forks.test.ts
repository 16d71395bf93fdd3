/**
 * `deck.checkpoints()` and `deck.fork()` (#41) on the LangGraph engine and the deck's own
 * checkpointer: a fork from the first checkpoint with an edited state completes on its own
 * thread with the edit in its result, the source thread's state and history unchanged; a
 * re-run from a middle checkpoint; every refusal names what was wrong.
 */
import { END, START, StateGraph } from '@langchain/langgraph';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { openTestDeck } from '../../test/support/decks.js';
import { Workflow } from '../index.js';

const State = z.object({
  topic: z.string(),
  draft: z.string().optional(),
  title: z.string().optional(),
});
type S = z.infer<typeof State>;

const article = new Workflow({
  name: 'article',
  state: State,
  durable: true,
  durability: 'sync',
  graph: (state) =>
    new StateGraph(state)
      .addNode('write', (s: S) => ({ draft: `about ${s.topic}` }))
      .addNode('headline', (s: S) => ({ title: (s.draft ?? '').toUpperCase() }))
      .addEdge(START, 'write')
      .addEdge('write', 'headline')
      .addEdge('headline', END),
});

const scratch = new Workflow({
  name: 'scratch',
  state: State,
  graph: (state) =>
    new StateGraph(state)
      .addNode('write', () => ({}))
      .addEdge(START, 'write')
      .addEdge('write', END),
});

describe('deck.fork()', () => {
  it('forks a thread from its first checkpoint with an edited state, and re-runs from the middle one', async () => {
    const { deck, eventStore } = await openTestDeck({ workflows: [article, scratch] });
    await deck.run('article', { topic: 'cats' }, { sessionId: 'cats' });
    const history = await deck.checkpoints('article', 'cats');
    expect(history.map((c) => c.next)).toEqual([[], ['headline'], ['write']]);
    const first = history.at(-1);
    const [sourceRun] = await eventStore.listRuns({ sessionId: 'cats' });

    const fork = await deck.fork('article', 'cats', {
      checkpointId: first?.id as string,
      state: { topic: 'dogs' },
      threadId: 'dogs',
    });
    expect(fork).toMatchObject({
      threadId: 'dogs',
      status: 'completed',
      state: { topic: 'dogs', draft: 'about dogs', title: 'ABOUT DOGS' },
      derivedFrom: {
        run: sourceRun?.runId,
        how: 'fork',
        thread: 'cats',
        checkpoint: first?.id,
        changes: { topic: 'dogs' },
      },
    });
    const [started] = await eventStore.read(fork.runId, { limit: 1 });
    expect(started).toMatchObject({
      kind: 'run.started',
      sessionId: 'dogs',
      payload: { derivedFrom: { how: 'fork', thread: 'cats' } },
    });
    // The source thread is as it was.
    expect(await deck.checkpoints('article', 'cats')).toEqual(history);
    expect((await deck.checkpoints('article', 'dogs'))[0]?.values).toMatchObject({
      title: 'ABOUT DOGS',
    });

    const middle = history[1];
    const rerun = await deck.fork('article', 'cats', { checkpointId: middle?.id as string });
    expect(rerun).toMatchObject({
      threadId: expect.stringMatching(/^cats~fork-[0-9a-f]{8}$/),
      status: 'completed',
      state: { topic: 'cats', title: 'ABOUT CATS' },
      derivedFrom: { how: 'rerun', checkpoint: middle?.id },
    });
    expect(rerun.derivedFrom.changes).toBeUndefined();
    expect(await deck.checkpoints('article', 'cats')).toEqual(history);
  });

  it('refuses what it cannot fork, naming why', async () => {
    const { deck } = await openTestDeck({ workflows: [article, scratch] });
    await deck.run('article', { topic: 'cats' }, { sessionId: 'cats' });
    const [last, middle] = await deck.checkpoints('article', 'cats');
    const refused = (promise: Promise<unknown>, code: string, message: RegExp) =>
      expect(promise).rejects.toMatchObject({ code, message: expect.stringMatching(message) });

    await refused(deck.fork('nope', 'cats'), 'not_found', /no workflow 'nope'/);
    await refused(deck.fork('scratch', 'cats'), 'conflict', /'scratch' is not durable/);
    await refused(deck.checkpoints('article', 'mice'), 'not_found', /no thread 'mice'/);
    // Another tenant's thread reads as an unknown one.
    await refused(
      deck.fork('article', 'cats', { namespace: 'acme' }),
      'not_found',
      /no thread 'cats'/,
    );
    await refused(
      deck.fork('article', 'cats', { checkpointId: 'nope' }),
      'not_found',
      /no checkpoint 'nope'/,
    );
    await refused(
      deck.fork('article', 'cats', { checkpointId: middle?.id as string, state: { colour: 1 } }),
      'invalid_input',
      /state\.colour is not a field/,
    );
    await refused(
      deck.fork('article', 'cats', { checkpointId: middle?.id as string, state: { topic: 5 } }),
      'invalid_input',
      /topic/,
    );
    await refused(
      deck.fork('article', 'cats', { checkpointId: last?.id as string }),
      'invalid_input',
      /where thread 'cats' ended/,
    );
    await refused(
      deck.fork('article', 'cats', { checkpointId: middle?.id as string, threadId: 'cats' }),
      'conflict',
      /thread 'cats' is in use/,
    );
  });
});
