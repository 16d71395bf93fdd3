/**
 * Replaying an answer's outcome from the run's log (answer-replay.ts): the answer that last
 * continued the run, named by its key or by its value, gets what that answer got; any other
 * answer gets nothing to replay.
 */
import { describe, expect, it } from 'vitest';
import { DataBlock, TextBlock } from '../core/blocks.js';
import { ConflictError, RunFailedError } from '../core/errors.js';
import type { EventDraft, NewEvent } from '../core/events.js';
import { InterruptResult } from '../core/interrupt-result.js';
import { MemoryEventStore } from '../stores/memory/index.js';
import { answerIdOf, replayedAnswer } from './answer-replay.js';

const envelope = { runId: 'r-1', sessionId: 't-1', namespace: null, origin: 'approval' };

async function logOf(...drafts: EventDraft[]) {
  const store = new MemoryEventStore();
  await store.append(drafts.map((draft) => ({ ...envelope, ...draft }) as NewEvent));
  return store;
}

const started: EventDraft = {
  kind: 'run.started',
  payload: { invocableType: 'workflow', input: [new DataBlock({ amount: 1 })] },
};
const asked: EventDraft = {
  kind: 'run.interrupted',
  payload: { payload: { question: 'approve?' }, threadId: 't-1' },
};
const resumed = (answerId: string): EventDraft => ({
  kind: 'run.resumed',
  payload: { requestId: null, answerId },
});

describe('replayedAnswer', () => {
  it('names an answer by its key, else by its value', () => {
    expect(answerIdOf({ approved: true }, 'k-1')).toBe('key:k-1');
    expect(answerIdOf({ approved: true })).toBe(answerIdOf({ approved: true }, ''));
    expect(answerIdOf({ approved: true })).not.toBe(answerIdOf({ approved: false }));
  });

  it("gives the outcome of the run's latest answer, and nothing for another answer", async () => {
    const id = answerIdOf({ approved: true }, 'k-1');
    const completed: EventDraft = {
      kind: 'run.completed',
      payload: { output: [new DataBlock({ approved: true })], usage: null },
    };
    const store = await logOf(started, asked, resumed(id), completed);
    expect(await replayedAnswer(store, 'r-1', id)).toEqual({ approved: true });
    expect(await replayedAnswer(store, 'r-1', answerIdOf({ approved: true }))).toBeNull();
  });

  it('replays the next question, a failure, and refuses a run still playing the answer', async () => {
    const id = answerIdOf('yes');
    const next = await logOf(started, asked, resumed(id), asked);
    expect(await replayedAnswer(next, 'r-1', id)).toEqual(
      new InterruptResult({ question: 'approve?' }, 't-1', 'r-1'),
    );
    const failed = await logOf(started, asked, resumed(id), {
      kind: 'run.failed',
      payload: { errorType: 'ValueError', message: 'no' },
    });
    await expect(replayedAnswer(failed, 'r-1', id)).rejects.toThrow(RunFailedError);
    const playing = await logOf(started, asked, resumed(id));
    await expect(replayedAnswer(playing, 'r-1', id)).rejects.toThrow(ConflictError);
  });

  it("replays a tool approval as the answer returned it: the turn's result or the next call", async () => {
    const id = answerIdOf({ approved: true });
    const approved: EventDraft = {
      kind: 'run.resumed',
      payload: { requestId: null, answer: { approved: true, reason: null }, answerId: id },
    };
    const agentStarted: EventDraft = {
      kind: 'run.started',
      payload: { invocableType: 'agent', input: [] },
    };
    const usage = { requests: 1, inputTokens: 2, outputTokens: 3, totalTokens: 5, usd: null };
    const done: EventDraft = {
      kind: 'run.completed',
      payload: { output: [new TextBlock('Sent.')], usage },
    };
    const store = await logOf(agentStarted, asked, approved, done);
    expect(await replayedAnswer(store, 'r-1', id)).toEqual({
      output: 'Sent.',
      usage,
      runId: 'r-1',
      sessionId: 't-1',
    });
    const next = await logOf(agentStarted, asked, approved, asked);
    expect(await replayedAnswer(next, 'r-1', id)).toEqual(
      new InterruptResult({ question: 'approve?' }, 't-1', 'r-1'),
    );
  });
});
