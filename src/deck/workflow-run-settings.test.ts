/**
 * LangGraph run settings a workflow declares (`recursionLimit`, `maxConcurrency`) and a run
 * overrides: a graph of 30 steps fails at LangGraph's default of 25 with GraphRecursionError,
 * and runs to its end when the workflow, or one run, allows more; the headless runner uses
 * the declared setting too. Bad values are refused with the setting named.
 */
import { Annotation, END, START, StateGraph } from '@langchain/langgraph';
import { describe, expect, it } from 'vitest';
import { openTestDeck } from '../../test/support/decks.js';
import { ConfigError, InvalidInputError, Workflow } from '../index.js';

const Counter = Annotation.Root({ count: Annotation<number> });

/** A loop of `steps` steps: one node that counts until it reaches `steps`. */
function counting(steps: number, options: { recursionLimit?: number } = {}) {
  return new Workflow({
    name: 'counting',
    state: Counter,
    ...options,
    graph: (state) =>
      new StateGraph(state)
        .addNode('step', (s: { count: number }) => ({ count: s.count + 1 }))
        .addEdge(START, 'step')
        .addConditionalEdges('step', (s: { count: number }) => (s.count >= steps ? END : 'step')),
  });
}

describe('workflow run settings', () => {
  it("fails a 30-step graph at LangGraph's default limit of 25, with GraphRecursionError recorded", async () => {
    const { deck, eventStore } = await openTestDeck({ workflows: [counting(30)] });
    const failure = await deck.run('counting', { count: 0 }).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(Error);
    expect((failure as Error).name).toBe('GraphRecursionError');
    const [run] = await eventStore.listRuns();
    const events = await eventStore.read(run?.runId ?? '');
    expect(events.at(-1)).toMatchObject({
      kind: 'run.failed',
      payload: { errorType: 'GraphRecursionError' },
    });
  });

  it('runs it to the end when the workflow declares recursionLimit', async () => {
    const { deck } = await openTestDeck({ workflows: [counting(30, { recursionLimit: 40 })] });
    expect(await deck.run('counting', { count: 0 })).toEqual({ count: 30 });
  });

  it('lets one run raise the limit, and another keep the declared one', async () => {
    const { deck } = await openTestDeck({ workflows: [counting(30)] });
    expect(await deck.run('counting', { count: 0 }, { recursionLimit: 31 })).toEqual({ count: 30 });
    await expect(deck.run('counting', { count: 0 })).rejects.toThrow(/Recursion limit of 25/);
  });

  it('uses the declared limit in the headless runner', async () => {
    expect(await counting(30, { recursionLimit: 40 }).run({ count: 0 })).toEqual({ count: 30 });
  });

  it('refuses a setting that is not a positive whole number, naming it', async () => {
    expect(() => counting(3, { recursionLimit: 0 })).toThrow(ConfigError);
    expect(() => counting(3, { recursionLimit: 2.5 })).toThrow(
      "workflow 'counting': `recursionLimit` must be a positive whole number, got 2.5",
    );
    const { deck } = await openTestDeck({ workflows: [counting(3)] });
    await expect(deck.run('counting', { count: 0 }, { maxConcurrency: -1 })).rejects.toThrow(
      InvalidInputError,
    );
  });
});
