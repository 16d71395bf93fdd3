/**
 * Waking sleeping threads (timers.ts, through `Runtime.tick()`), on the scripted workflow
 * engine and the memory store: a thread is woken once its time has come and not before,
 * through its logged run when it has one (continued and closed in the log) and from the
 * engine alone when it has none (nothing recorded, its claim only borrowed); two ticks at
 * once wake it once.
 */
import { describe, expect, it } from 'vitest';
import { kinds, play, terminals, testRuntime } from '../../test/support/runtimes.js';
import { scriptedWorkflow } from '../testing/scripted-workflow-engine.js';
import { createRunScope } from './run-scope.js';
import { threadClaimKey } from './workflow-run.js';

const WAKE_AT = '2030-06-01T12:00:00.000Z';
const reminder = scriptedWorkflow('reminder', { durable: true });
const options = {
  workflows: { reminder: [{ node: 'wait', sleepUntil: WAKE_AT, update: { reminded: true } }] },
  catalog: [reminder],
};
const early = new Date(Date.parse(WAKE_AT) - 1);

describe('tick', () => {
  it('wakes a sleeping run once its time has come, in the same run, and only once', async () => {
    const { runtime, store } = testRuntime(options);
    await play(runtime.streamWorkflow(reminder, {}, { sessionId: 't-1', runId: 'w-1' }));
    expect(await runtime.dueThreads(early)).toEqual([]);
    expect(await runtime.tick(early)).toEqual([]);
    expect(await runtime.status('w-1')).toBe('paused');

    expect(await runtime.dueThreads(WAKE_AT)).toEqual([
      { workflow: 'reminder', threadId: 't-1', wakeAt: WAKE_AT },
    ]);
    expect(await runtime.tick(WAKE_AT)).toEqual([
      {
        workflow: 'reminder',
        threadId: 't-1',
        runId: 'w-1',
        result: { reminded: true },
        error: null,
      },
    ]);
    expect(kinds(await store.read('w-1'))).toEqual([
      'run.started',
      'run.paused',
      'run.resumed',
      'node.updated',
      'run.completed',
    ]);
    expect(await runtime.tick(new Date(8.64e15))).toEqual([]);
  });

  it('wakes a thread once when two ticks overlap', async () => {
    const { runtime, store, workflowEngine } = testRuntime(options);
    await play(runtime.streamWorkflow(reminder, {}, { sessionId: 't-1', runId: 'w-1' }));
    const [a, b] = await Promise.all([runtime.tick(WAKE_AT), runtime.tick(WAKE_AT)]);
    const outcomes = [...(a ?? []), ...(b ?? [])];
    expect(outcomes.filter((o) => o.error === null)).toHaveLength(1);
    const woken = workflowEngine.requests.filter((r) => 'resume' in r.start);
    expect(woken).toHaveLength(1);
    expect(kinds(await store.read('w-1')).filter((k) => k === 'run.resumed')).toHaveLength(1);
    expect(await terminals(store, 'w-1')).toHaveLength(1);
  });

  it('wakes a thread with no logged run from the engine alone, recording nothing and freeing its claim', async () => {
    const { runtime, store, workflowEngine } = testRuntime(options);
    // Asleep in the checkpointer, with no run in the log (its run was never recorded here).
    const scope = createRunScope({
      data: null,
      invocable: 'reminder',
      runId: 'elsewhere',
      sessionId: 't-1',
      signal: new AbortController().signal,
    });
    const segment = workflowEngine.playSegment({
      workflow: reminder,
      threadId: 't-1',
      start: { input: {} },
      scope,
    });
    while (!(await segment.next()).done);

    expect(await runtime.tick(WAKE_AT)).toEqual([
      {
        workflow: 'reminder',
        threadId: 't-1',
        runId: null,
        result: { reminded: true },
        error: null,
      },
    ]);
    expect(await store.listRuns({ origin: 'reminder' })).toEqual([]);
    expect(await store.claimHolder(threadClaimKey('reminder', 't-1'))).toBeNull();
    expect(await workflowEngine.nextWakeup()).toBeNull();
  });
});
