import { END, START, StateGraph } from '@langchain/langgraph';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { approval, threeSteps } from '../../test/support/workflows.js';
import { InterruptResult, InvalidInputError, Workflow, withContext } from '../index.js';

class Calendar {}

describe('Workflow.run() / Workflow.resume() (headless)', () => {
  it('runs the graph without a Deck and returns the final state', async () => {
    expect(await threeSteps().run({ n: 1 })).toEqual({ n: 4, steps: ['one', 'two', 'three'] });
  });

  it('returns an InterruptResult that resume() continues', async () => {
    const workflow = approval();
    const paused = await workflow.run({ amount: 7 });
    expect(paused).toBeInstanceOf(InterruptResult);
    const { threadId, runId, payload } = paused as InterruptResult;
    expect(runId).toBeNull();
    expect(payload).toEqual({ question: 'approve?', amount: 7 });
    expect(await workflow.resume(threadId, { approved: true })).toEqual({
      amount: 7,
      approved: true,
      visits: 1,
      note: 'amount 7 approved',
    });
    await expect(workflow.resume(threadId, { approved: true })).rejects.toThrow(
      `workflow 'approval' has no paused thread '${threadId}' in this process`,
    );
  });

  it('fails a node that needs a context with a missing-argument TypeError', async () => {
    const State = z.object({ slot: z.string().optional() });
    const booking = new Workflow({
      name: 'booking',
      state: State,
      graph: (state) =>
        new StateGraph(state)
          .addNode(
            'book',
            withContext(Calendar, () => ({ slot: '9am' })),
          )
          .addEdge(START, 'book')
          .addEdge('book', END),
    });
    const failure = booking.run({}).catch((error: unknown) => error);
    expect(await failure).toBeInstanceOf(TypeError);
    expect(String(await failure)).toContain(
      "missing argument 'ctx': graph node 'book' needs a context, but the workflow ran headless",
    );
  });

  it('checks the initial state', async () => {
    await expect(threeSteps().run({ n: 'x' })).rejects.toThrow(InvalidInputError);
  });
});
