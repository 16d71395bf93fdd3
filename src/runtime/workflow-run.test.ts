/**
 * Workflow runs (workflow-run.ts, the Runtime's workflow methods), on the scripted workflow
 * engine and the memory store: a segment records its node updates and exactly one way of
 * ending; a question or a timer keeps the thread's claim until an answer or a wake-up
 * continues the same run, under the resume lock; a pause request stops the run between
 * nodes and `continueWorkflow` runs only the nodes left.
 */
import { describe, expect, it } from 'vitest';
import {
  gate,
  kinds,
  play,
  request,
  StoreDownAfterClaim,
  terminals,
  testRuntime,
} from '../../test/support/runtimes.js';
import { DataBlock } from '../core/blocks.js';
import {
  ConflictError,
  InvalidInputError,
  NotFoundError,
  StoreUnavailableError,
} from '../core/errors.js';
import { InterruptResult } from '../core/interrupt-result.js';
import { scriptedWorkflow } from '../testing/scripted-workflow-engine.js';
import { markUntouched } from './workflow-engine.js';
import { threadClaimKey } from './workflow-run.js';

const lines = scriptedWorkflow('lines');
const approval = scriptedWorkflow('approval');
const reminder = scriptedWorkflow('reminder', { durable: true });
const WAKE_AT = '2030-06-01T12:00:00.000Z';

const workflows = {
  lines: [
    { node: 'one', update: { one: true } },
    { node: 'two', custom: { progress: 'half' }, update: { two: true } },
  ],
  approval: [
    { node: 'prepare', update: { note: 'ready' } },
    { node: 'ask', interrupt: { question: 'approve?' }, answerTo: 'approved' },
    { node: 'finish', update: { done: true } },
  ],
  reminder: [{ node: 'wait', sleepUntil: WAKE_AT, update: { reminded: true } }],
};

describe('a workflow run', () => {
  it('records run.started with its input, node updates, and run.completed with the final state; the thread is freed', async () => {
    const { runtime, store } = testRuntime({ workflows });
    const { events, outcome } = await play(
      runtime.streamWorkflow(lines, { n: 1 }, { runId: 'w-1' }),
    );
    expect(kinds(events)).toEqual([
      'run.started',
      'node.updated',
      'custom',
      'node.updated',
      'run.completed',
    ]);
    expect(events[0]?.payload).toMatchObject({
      invocableType: 'workflow',
      input: [new DataBlock({ n: 1 })],
    });
    const state = { n: 1, one: true, two: true };
    expect(events.at(-1)?.payload).toEqual({ output: [new DataBlock(state)], usage: null });
    expect(outcome).toEqual({ result: state });
    expect(await store.read('w-1')).toEqual(events);
    expect(await store.claimHolder(threadClaimKey('lines', 'w-1'))).toBeNull();
  });

  it('waits on a question holding its thread, and completes once answered (the answer reaches the node)', async () => {
    const { runtime, store, workflowEngine } = testRuntime({ workflows });
    const asked = await play(
      runtime.streamWorkflow(approval, {}, { runId: 'w-1', sessionId: 't-1' }),
    );
    expect(kinds(asked.events)).toEqual(['run.started', 'node.updated', 'run.interrupted']);
    expect(asked.events.at(-1)?.payload).toEqual({
      payload: { question: 'approve?' },
      threadId: 't-1',
    });
    expect(asked.outcome.result).toEqual(
      new InterruptResult({ question: 'approve?' }, 't-1', 'w-1'),
    );
    expect(await runtime.status('w-1')).toBe('waiting_human');
    expect((await store.claimHolder(threadClaimKey('approval', 't-1')))?.runId).toBe('w-1');
    const [question] = await workflowEngine.openPauses(approval, 't-1');

    const answered = await play(runtime.resumeWorkflow(approval, 'w-1', { answer: 'yes' }));
    expect(kinds(answered.events)).toEqual([
      'run.resumed',
      'node.updated',
      'node.updated',
      'run.completed',
    ]);
    expect(answered.events[1]?.payload).toEqual({ node: 'ask', delta: { approved: 'yes' } });
    expect(answered.outcome.result).toEqual({ note: 'ready', approved: 'yes', done: true });
    // Addressed to the open question, by its id.
    expect(workflowEngine.requests[1]?.start).toEqual({ resume: { [question?.id ?? '']: 'yes' } });
    expect(await terminals(store, 'w-1')).toHaveLength(1);
    expect(await store.claimHolder(threadClaimKey('approval', 't-1'))).toBeNull();
  });

  it('answers once when two callers answer at once: the other gets ConflictError', async () => {
    const { runtime, store } = testRuntime({ workflows });
    await play(runtime.streamWorkflow(approval, {}, { runId: 'w-1' }));
    const answers = await Promise.allSettled(
      ['first', 'second'].map((answer) =>
        play(runtime.resumeWorkflow(approval, 'w-1', { answer })),
      ),
    );
    const refused = answers.flatMap((a) => (a.status === 'rejected' ? [a.reason] : []));
    expect(refused).toHaveLength(1);
    expect(refused[0]).toBeInstanceOf(ConflictError);
    const log = await store.read('w-1');
    expect(log.filter((e) => e.kind === 'node.updated' && e.payload.node === 'ask')).toHaveLength(
      1,
    );
    expect(await terminals(store, 'w-1')).toHaveLength(1);
  });

  it('refuses an answer for a run that waits for none (NotFoundError), recording nothing', async () => {
    const { runtime, store } = testRuntime({ workflows });
    await play(runtime.streamWorkflow(lines, {}, { runId: 'w-1' }));
    const before = await store.read('w-1');
    await expect(
      play(runtime.resumeWorkflow(lines, 'w-1', { answer: 'late' })),
    ).rejects.toBeInstanceOf(NotFoundError);
    expect(await store.read('w-1')).toEqual(before);
  });

  it('brings the log level with a thread an answer ended though its segment was refused for an outage', async () => {
    const { runtime, store, workflowEngine } = testRuntime({ workflows });
    const asked = (thread: string) =>
      play(runtime.streamWorkflow(approval, {}, { runId: `w-${thread}`, sessionId: thread }));
    await asked('t-1');
    await asked('t-2');
    // The graph's last checkpoint commits but its acknowledgment is lost (Postgres stopped
    // between the two): the segment fails for the outage, and the run is put back to wait.
    const play1 = workflowEngine.playSegment.bind(workflowEngine);
    workflowEngine.playSegment = async function* (request) {
      yield* play1(request);
      throw markUntouched(new StoreUnavailableError('postgres', 'connection terminated'));
    };
    for (const thread of ['t-1', 't-2']) {
      const options = { answerId: `key:${thread}` };
      const refused = await play(
        runtime.resumeWorkflow(approval, `w-${thread}`, { answer: 'yes' }, options),
      );
      expect(refused.outcome.error).toBeInstanceOf(StoreUnavailableError);
      expect(await runtime.status(`w-${thread}`)).toBe('waiting_human');
    }
    workflowEngine.playSegment = play1;

    // The retry of the answer that took effect: its final state, and the run completed.
    const final = { note: 'ready', approved: 'yes', done: true };
    const retried = await play(
      runtime.resumeWorkflow(approval, 'w-t-1', { answer: 'yes' }, { answerId: 'key:t-1' }),
    );
    expect(retried.outcome).toEqual({ result: final });
    expect(kinds(retried.events)).toEqual(['run.resumed', 'run.completed']);
    expect(retried.events[0]?.payload).toMatchObject({ answerId: 'key:t-1' });
    expect(await store.claimHolder(threadClaimKey('approval', 't-1'))).toBeNull();
    // Another answer: refused, but the log follows the thread all the same.
    await expect(
      play(runtime.resumeWorkflow(approval, 'w-t-2', { answer: 'no' }, { answerId: 'key:other' })),
    ).rejects.toThrow(/an earlier answer took effect/);
    expect(await runtime.status('w-t-2')).toBe('completed');
    const ended = (await store.read('w-t-2')).at(-1);
    expect(ended?.payload).toEqual({ output: [new DataBlock(final)], usage: null });
  });

  it('refuses a run whose first event the store cannot take (an outage): the error, nothing recorded', async () => {
    const store = new StoreDownAfterClaim();
    const { runtime } = testRuntime({ workflows, store });
    await expect(
      play(runtime.streamWorkflow(lines, { n: 1 }, { runId: 'w-1', sessionId: 't-1' })),
    ).rejects.toBeInstanceOf(StoreUnavailableError);
    expect(await store.getRun('w-1')).toBeNull();
    expect(await store.claimHolder(threadClaimKey('lines', 't-1'))).toBeNull();
  });

  it('sleeps until its time (run.paused), is not woken early, and completes once woken', async () => {
    const { runtime, store, workflowEngine } = testRuntime({ workflows });
    const slept = await play(
      runtime.streamWorkflow(reminder, {}, { sessionId: 't-1', runId: 'w-1' }),
    );
    expect(kinds(slept.events)).toEqual(['run.started', 'run.paused']);
    expect(slept.events.at(-1)?.payload).toEqual({ reason: `sleeping until ${WAKE_AT}` });
    expect(await runtime.status('w-1')).toBe('paused');
    expect(await workflowEngine.nextWakeup()).toBe(WAKE_AT);
    expect(await workflowEngine.dueThreads(new Date(WAKE_AT))).toEqual([
      { workflow: 'reminder', threadId: 't-1', wakeAt: WAKE_AT },
    ]);

    const early = new Date(Date.parse(WAKE_AT) - 1);
    await expect(
      play(runtime.resumeWorkflow(reminder, 'w-1', { wake: early })),
    ).rejects.toBeInstanceOf(NotFoundError);
    expect(await runtime.status('w-1')).toBe('paused');

    const woken = await play(runtime.resumeWorkflow(reminder, 'w-1', { wake: new Date(WAKE_AT) }));
    expect(kinds(woken.events)).toEqual(['run.resumed', 'node.updated', 'run.completed']);
    expect(await workflowEngine.nextWakeup()).toBeNull();
    expect(await store.claimHolder(threadClaimKey('reminder', 't-1'))).toBeNull();
  });

  it('refuses a durable run without a sessionId before recording anything', async () => {
    const { runtime, store } = testRuntime({ workflows });
    await expect(
      play(runtime.streamWorkflow(reminder, {}, { runId: 'w-1' })),
    ).rejects.toBeInstanceOf(InvalidInputError);
    expect(await store.read('w-1')).toEqual([]);
  });

  it('records run.failed when a node throws, and frees the thread', async () => {
    const boom = new RangeError('node broke');
    const { runtime, store } = testRuntime({
      workflows: {
        lines: [
          { node: 'one', update: { one: true } },
          { node: 'two', fail: boom },
        ],
      },
    });
    const { events, outcome } = await play(runtime.streamWorkflow(lines, {}, { runId: 'w-1' }));
    expect(kinds(events)).toEqual(['run.started', 'node.updated', 'run.failed']);
    expect(events.at(-1)?.payload).toEqual({
      errorType: 'RangeError',
      message: 'node broke',
      stack: boom.stack,
    });
    expect(outcome.error).toBe(boom);
    expect(await store.claimHolder(threadClaimKey('lines', 'w-1'))).toBeNull();
  });

  it('records run.cancelled when stopped mid-node, and frees the thread', async () => {
    const { runtime, store, workflowEngine } = testRuntime({
      workflows: { lines: [{ node: 'one', hang: true }] },
    });
    const run = play(runtime.streamWorkflow(lines, {}, { runId: 'w-1' }));
    await expect.poll(() => runtime.liveRuns).toBe(1);
    expect(runtime.stopRun('w-1', 'not wanted')).toBe(true);
    const { events, outcome } = await run;
    expect(kinds(events)).toEqual(['run.started', 'run.cancelled']);
    expect(outcome).toEqual({ cancelled: 'not wanted' });
    expect(workflowEngine.requests[0]?.scope.signal.aborted).toBe(true);
    expect(await terminals(store, 'w-1')).toHaveLength(1);
    expect(await store.claimHolder(threadClaimKey('lines', 'w-1'))).toBeNull();
  });

  it('pauses between nodes on a pause request, and continueWorkflow runs only the nodes left', async () => {
    const hold = gate();
    const { runtime, store } = testRuntime({
      workflows: {
        lines: [
          { node: 'one', until: hold.wait, update: { one: true } },
          { node: 'two', update: { two: true } },
        ],
      },
    });
    const run = play(runtime.streamWorkflow(lines, {}, { runId: 'w-1' }));
    await expect.poll(() => runtime.liveRuns).toBe(1);
    await request(runtime, 'w-1', 'pause', 'hold on');
    hold.open();
    const paused = await run;
    expect(kinds(paused.events)).toEqual([
      'run.started',
      'node.updated',
      'control.observed',
      'run.paused',
    ]);
    expect(paused.outcome).toEqual({ paused: true });
    expect(await runtime.status('w-1')).toBe('paused');
    expect((await store.claimHolder(threadClaimKey('lines', 'w-1')))?.runId).toBe('w-1');

    const resume = await store.recordControl('w-1', 'resume', null);
    const continued = await play(
      runtime.continueWorkflow(lines, 'w-1', { resumeRequestId: resume.requestId }),
    );
    expect(kinds(continued.events)).toEqual(['run.resumed', 'node.updated', 'run.completed']);
    expect(continued.events[1]?.payload).toEqual({ node: 'two', delta: { two: true } });
    expect(continued.outcome).toEqual({ result: { one: true, two: true } });
    expect(await terminals(store, 'w-1')).toHaveLength(1);
  });
});
