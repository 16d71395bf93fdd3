/**
 * The Runtime's pause and resume of agent runs (runtime.ts, control-watch.ts,
 * control-events.ts), on the scripted agent engine and the memory store: a pause request is
 * observed at the turn's next safe point, which saves its continuation and keeps the session;
 * a resume goes on from that continuation in the same log entry (nothing before the pause runs
 * again) and ends the run once; the resume lock lets one of two concurrent resumers through.
 */
import { describe, expect, it } from 'vitest';
import {
  agent,
  gate,
  kinds,
  play,
  request,
  terminals,
  testRuntime,
  usage,
} from '../../test/support/runtimes.js';
import { ConflictError, NotFoundError } from '../core/errors.js';
import { resumeLockKey } from './control/rest-cancel.js';

/** Play a turn that says `before`, waits for the test, passes a safe point and says `after`. */
async function pausedRun(options: { sessionId?: string } = {}) {
  const hold = gate();
  const made = testRuntime({
    turns: [
      {
        steps: [
          usage(10),
          { text: 'before' },
          { until: hold.wait },
          { safePoint: true },
          usage(20),
          { text: 'after' },
        ],
      },
    ],
  });
  const { runtime } = made;
  const first = await play(
    runtime.streamAgent(agent, 'Hello', { runId: 'r-1', ...options }),
    async (event) => {
      if (event.kind === 'message.completed') {
        await request(runtime, 'r-1', 'pause', 'check the budget');
        hold.open();
      }
    },
  );
  return { ...made, first };
}

describe('pausing and resuming an agent run', () => {
  it('pauses at the next safe point: control.observed, run.paused, the continuation saved, the session kept', async () => {
    const { runtime, store, first } = await pausedRun({ sessionId: 's-1' });
    expect(kinds(first.events)).toEqual([
      'run.started',
      'usage.reported',
      'text.delta',
      'message.completed',
      'control.observed',
      'run.paused',
    ]);
    expect(first.events.at(-1)?.payload).toEqual({ reason: 'check the budget' });
    // The request itself is in the log (written by the process playing the run), not the stream.
    expect(kinds(await store.read('r-1')).slice(-3)).toEqual([
      'control.requested',
      'control.observed',
      'run.paused',
    ]);
    expect(first.outcome).toEqual({ paused: true });
    expect(await runtime.status('r-1')).toBe('paused');
    expect(await store.readContinuation('r-1')).not.toBeNull();
    expect((await store.claimHolder('session:s-1'))?.runId).toBe('r-1');
    expect(await terminals(store, 'r-1')).toEqual([]);
  });

  it('resumes from its continuation in the same run: nothing before the pause again, one run.completed with the totals of both segments', async () => {
    const { runtime, store, agentEngine } = await pausedRun({ sessionId: 's-1' });
    const saved = await store.readContinuation('r-1');
    const resume = await store.recordControl('r-1', 'resume', null);
    const second = await play(
      runtime.resumeAgent(agent, 'r-1', { resumeRequestId: resume.requestId }),
    );
    expect(kinds(second.events)).toEqual([
      'run.resumed',
      'usage.reported',
      'text.delta',
      'message.completed',
      'run.completed',
    ]);
    expect(second.events[0]?.payload).toEqual({ requestId: resume.requestId });
    const continued = agentEngine.requests[1];
    expect(continued?.continuation).toBe(saved);
    expect(continued?.messagesBefore).toBe(1);
    expect(second.events[2]?.payload).toMatchObject({ messageId: 'msg_2', text: 'after' });
    const completed = second.events.at(-1);
    expect(completed?.kind === 'run.completed' && completed.payload.usage).toMatchObject({
      requests: 2,
      inputTokens: 30,
    });

    const log = await store.read('r-1');
    expect(log.filter((e) => e.kind === 'text.delta').map((e) => e.payload)).toEqual([
      { messageId: 'msg_1', text: 'before' },
      { messageId: 'msg_2', text: 'after' },
    ]);
    expect(log.map((e) => e.seq)).toEqual(log.map((_, i) => i));
    expect(await terminals(store, 'r-1')).toHaveLength(1);
    expect(await store.readContinuation('r-1')).toBeNull();
    expect(await store.claimHolder('session:s-1')).toBeNull();
    expect(await store.claimHolder(resumeLockKey('r-1'))).toBeNull();
  });

  it('lets one of two concurrent resumers through; the other gets ConflictError and changes nothing', async () => {
    const { runtime, store } = await pausedRun();
    const resumes = await Promise.allSettled(
      [0, 1].map(() => play(runtime.resumeAgent(agent, 'r-1', { resumeRequestId: null }))),
    );
    const played = resumes.filter((r) => r.status === 'fulfilled');
    const refused = resumes.flatMap((r) => (r.status === 'rejected' ? [r.reason] : []));
    expect(played).toHaveLength(1);
    expect(refused).toHaveLength(1);
    expect(refused[0]).toBeInstanceOf(ConflictError);
    expect(String(refused[0])).toContain('is being resumed by another caller');
    const log = await store.read('r-1');
    expect(kinds(log).filter((k) => k === 'run.resumed')).toHaveLength(1);
    expect(log.filter((e) => e.kind === 'text.delta')).toHaveLength(2);
    expect(await terminals(store, 'r-1')).toHaveLength(1);
  });

  it('refuses to resume while another holds the resume lock, until it is freed', async () => {
    const { runtime, store } = await pausedRun();
    const lock = { key: resumeLockKey('r-1'), runId: 'another-resumer', staleAfterMs: 60_000 };
    expect((await store.claim(lock)).acquired).toBe(true);
    await expect(
      play(runtime.resumeAgent(agent, 'r-1', { resumeRequestId: null })),
    ).rejects.toBeInstanceOf(ConflictError);
    expect(await runtime.status('r-1')).toBe('paused');
    expect(await store.readContinuation('r-1')).not.toBeNull();

    await store.release(lock.key, lock.runId);
    const resumed = await play(runtime.resumeAgent(agent, 'r-1', { resumeRequestId: null }));
    expect(kinds(resumed.events).at(-1)).toBe('run.completed');
  });

  it('refuses to resume a run that is not paused (NotFoundError), and records nothing', async () => {
    const { runtime, store } = testRuntime({ turns: [{ steps: [{ text: 'done' }] }] });
    await play(runtime.streamAgent(agent, 'Hello', { runId: 'r-1' }));
    const before = await store.read('r-1');
    await expect(
      play(runtime.resumeAgent(agent, 'r-1', { resumeRequestId: null })),
    ).rejects.toBeInstanceOf(NotFoundError);
    await expect(
      play(runtime.resumeAgent(agent, 'no-such-run', { resumeRequestId: null })),
    ).rejects.toThrow(/no run 'no-such-run'/);
    expect(await store.read('r-1')).toEqual(before);
  });

  it('cancels a turn on a cancel request: control.observed, then run.cancelled with its reason', async () => {
    const { runtime, store } = testRuntime({ turns: [{ steps: [{ text: 'a' }, { hang: true }] }] });
    const { events } = await play(runtime.streamAgent(agent, 'Hello', { runId: 'r-1' }), (e) =>
      e.kind === 'message.completed'
        ? request(runtime, 'r-1', 'cancel', 'not needed').then(() => {})
        : undefined,
    );
    expect(kinds(events).slice(-2)).toEqual(['control.observed', 'run.cancelled']);
    expect(kinds(await store.read('r-1')).slice(-3)).toEqual([
      'control.requested',
      'control.observed',
      'run.cancelled',
    ]);
    expect(events.at(-1)?.payload).toEqual({ reason: 'not needed' });
    expect(await terminals(store, 'r-1')).toHaveLength(1);
  });

  it('resumes nothing once closed', async () => {
    const { runtime } = await pausedRun();
    await runtime.close();
    await expect(
      play(runtime.resumeAgent(agent, 'r-1', { resumeRequestId: null })),
    ).rejects.toThrow(/the deck is closed/);
    expect(await runtime.status('r-1')).toBe('paused');
  });
});
