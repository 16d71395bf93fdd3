/**
 * Answering a workflow run this process paused addresses the answer from what the segment
 * ended on, without reading the thread back from the checkpointer (runtime/open-pauses-memo.ts,
 * issue 22); a run whose log moved on since (another process resumed it) reads the
 * checkpointer as before. Parallel branches that each ask are answered one at a time, each
 * answer going to the question the caller was shown.
 */
import { END, START, StateGraph } from '@langchain/langgraph';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import { openTestDeck } from '../../test/support/decks.js';
import { tempStateFile } from '../../test/support/sqlite-files.js';
import { LangGraphEngine } from '../engines/langgraph/index.js';
import { InterruptResult, interrupt, Workflow } from '../index.js';
import { OpenPausesMemo } from '../runtime/open-pauses-memo.js';

const Trip = z.object({
  hotel: z.string().optional(),
  flight: z.string().optional(),
});

const trip = new Workflow({
  name: 'trip',
  state: Trip,
  durable: true,
  graph: (state) =>
    new StateGraph(state)
      .addNode('pickHotel', () => ({ hotel: interrupt<string>({ ask: 'hotel?' }) }))
      .addNode('pickFlight', () => ({ flight: interrupt<string>({ ask: 'flight?' }) }))
      .addEdge(START, 'pickHotel')
      .addEdge(START, 'pickFlight')
      .addEdge('pickHotel', END)
      .addEdge('pickFlight', END),
});

afterEach(() => {
  vi.restoreAllMocks();
});

async function openDeck() {
  return openTestDeck({ workflows: [trip], checkpoints: `sqlite://${tempStateFile('memo')}` });
}

const askOf = (result: unknown) => ((result as InterruptResult).payload as { ask: string }).ask;

describe('the open pauses a paused run waits on', () => {
  it('answers each of two parallel questions, the one shown, without reading the thread back', async () => {
    const { deck } = await openDeck();
    const reads = vi.spyOn(LangGraphEngine.prototype, 'openPauses');
    const first = await deck.run('trip', {}, { sessionId: 't1' });
    expect(first).toBeInstanceOf(InterruptResult);
    const runId = (first as InterruptResult).runId as string;
    const shownFirst = askOf(first);

    const second = await deck.answer(runId, `${shownFirst} answered`);
    expect(second).toBeInstanceOf(InterruptResult);
    const shownSecond = askOf(second);
    expect(shownSecond).not.toBe(shownFirst);
    // The resume read no thread state: the segment before had said what was open. (The
    // segment that played the answer read it once, to know which question stays open.)
    expect(reads).toHaveBeenCalledTimes(1);

    const done = await deck.answer(runId, `${shownSecond} answered`);
    expect(done).toEqual({ hotel: 'hotel? answered', flight: 'flight? answered' });
    expect(reads).toHaveBeenCalledTimes(1);
  });

  it('reads the checkpointer when the run was paused elsewhere (nothing remembered)', async () => {
    const { deck } = await openDeck();
    const first = await deck.run('trip', {}, { sessionId: 't2' });
    const runId = (first as InterruptResult).runId as string;
    // As a process that did not play the segment: forget what this one remembered.
    vi.spyOn(OpenPausesMemo.prototype, 'take').mockReturnValue(null);
    const reads = vi.spyOn(LangGraphEngine.prototype, 'openPauses');
    const second = await deck.answer(runId, 'answered');
    expect(second).toBeInstanceOf(InterruptResult);
    expect(askOf(second)).not.toBe(askOf(first));
    expect(reads.mock.calls.length).toBeGreaterThanOrEqual(1);
  });
});

describe('OpenPausesMemo', () => {
  const pause = { id: 'i1', payload: null, wakeAt: null };

  it("gives a run's pauses once, and only while its log ends at the remembered event", () => {
    const memo = new OpenPausesMemo();
    memo.remember('r1', 7, [pause]);
    expect(memo.take('r1', 8)).toBeNull();
    expect(memo.take('r1', 7)).toBeNull();
    memo.remember('r1', 9, [pause]);
    expect(memo.take('r1', 9)).toEqual([pause]);
    expect(memo.take('r1', 9)).toBeNull();
  });

  it('forgets the oldest runs past its size', () => {
    const memo = new OpenPausesMemo(2);
    memo.remember('r1', 1, [pause]);
    memo.remember('r2', 1, [pause]);
    memo.remember('r3', 1, [pause]);
    expect(memo.size).toBe(2);
    expect(memo.take('r1', 1)).toBeNull();
    expect(memo.take('r3', 1)).toEqual([pause]);
  });
});
