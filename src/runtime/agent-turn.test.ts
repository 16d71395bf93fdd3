/**
 * An agent turn's envelope (agent-turn.ts, run-lease.ts), on the scripted agent engine and
 * the memory store: every event is stored before it is yielded, the turn ends with exactly one
 * terminal event whichever way it ends (completed, failed when the engine throws, cancelled
 * when its signal aborts, its consumer leaves or the Runtime closes), and the session claim is
 * taken before anything is recorded and freed at the end.
 */
import { describe, expect, it } from 'vitest';
import {
  agent,
  gate,
  kinds,
  play,
  StoreDownAfterClaim,
  terminals,
  testRuntime,
  usage,
} from '../../test/support/runtimes.js';
import { ConflictError, StoreUnavailableError } from '../core/errors.js';

describe('an agent turn', () => {
  it('is refused with the outage when the store cannot take its first event; nothing is recorded', async () => {
    const store = new StoreDownAfterClaim();
    const { runtime } = testRuntime({ store, turns: [{ steps: [{ text: 'never' }] }] });
    await expect(
      play(runtime.streamAgent(agent, 'Hello', { sessionId: 's-1', runId: 'r-1' })),
    ).rejects.toBeInstanceOf(StoreUnavailableError);
    expect(await store.getRun('r-1')).toBeNull();
    expect(await store.claimHolder('session:s-1')).toBeNull();
  });

  it('records run.started, the drafts in order and one run.completed with the totals, then frees its session', async () => {
    const { runtime, store, sessions } = testRuntime({
      turns: [{ steps: [usage(10), { text: ['Hi ', 'there.'] }, usage(20)] }],
    });
    const { events, outcome } = await play(
      runtime.streamAgent(agent, 'Hello', { sessionId: 's-1', runId: 'r-1' }),
    );
    expect(kinds(events)).toEqual([
      'run.started',
      'usage.reported',
      'text.delta',
      'text.delta',
      'message.completed',
      'usage.reported',
      'run.completed',
    ]);
    expect(events.map((e) => e.seq)).toEqual([0, 1, 2, 3, 4, 5, 6]);
    expect(await store.read('r-1')).toEqual(events);
    expect(outcome).toEqual({});
    const completed = events.at(-1);
    expect(completed?.kind === 'run.completed' && completed.payload.usage).toMatchObject({
      requests: 2,
      inputTokens: 30,
      outputTokens: 2,
    });
    expect(await runtime.status('r-1')).toBe('completed');
    expect(await store.claimHolder('session:s-1')).toBeNull();
    expect(runtime.liveRuns).toBe(0);
    expect(sessions.get('s-1')?.items).toEqual([
      { role: 'user', content: 'Hello' },
      { role: 'assistant', content: 'Hi there.' },
    ]);
  });

  it('records run.failed when the engine throws, and returns the original error', async () => {
    const boom = new TypeError('the engine broke');
    const { runtime, store } = testRuntime({
      turns: [{ steps: [{ text: 'partial' }, { fail: boom }] }],
    });
    const { events, outcome } = await play(
      runtime.streamAgent(agent, 'Hello', { sessionId: 's-1', runId: 'r-1' }),
    );
    expect(kinds(events).at(-1)).toBe('run.failed');
    expect(events.at(-1)?.payload).toEqual({
      errorType: 'TypeError',
      message: 'the engine broke',
      stack: boom.stack,
    });
    expect(outcome.error).toBe(boom);
    expect(await terminals(store, 'r-1')).toHaveLength(1);
    expect(await runtime.status('r-1')).toBe('failed');
    expect(await store.claimHolder('session:s-1')).toBeNull();
  });

  it('records run.cancelled with the reason when its run is stopped, after aborting the engine', async () => {
    const { runtime, store, agentEngine } = testRuntime({
      turns: [{ steps: [{ text: 'working' }, { hang: true }] }],
    });
    const { events, outcome } = await play(
      runtime.streamAgent(agent, 'Hello', { sessionId: 's-1', runId: 'r-1' }),
      (event) => {
        if (event.kind === 'message.completed') runtime.stopRun('r-1', 'the client left');
      },
    );
    expect(kinds(events).at(-1)).toBe('run.cancelled');
    expect(events.at(-1)?.payload).toEqual({ reason: 'the client left' });
    expect(outcome).toEqual({});
    expect(agentEngine.requests[0]?.scope.signal.aborted).toBe(true);
    expect(await terminals(store, 'r-1')).toHaveLength(1);
    expect(await store.claimHolder('session:s-1')).toBeNull();
    expect(runtime.liveRuns).toBe(0);
  });

  it('records run.cancelled when its consumer stops reading', async () => {
    const { runtime, store, agentEngine } = testRuntime({
      turns: [{ steps: [{ text: 'one' }, { text: 'two' }] }],
    });
    for await (const event of runtime.streamAgent(agent, 'Hello', { runId: 'r-1' })) {
      if (event.kind === 'text.delta') break;
    }
    const log = await store.read('r-1');
    expect(kinds(log)).toEqual(['run.started', 'text.delta', 'run.cancelled']);
    expect(log.at(-1)?.payload).toEqual({ reason: 'the consumer stopped reading the stream' });
    expect(agentEngine.requests[0]?.scope.signal.aborted).toBe(true);
  });

  it('is cancelled when the Runtime closes, and its claim freed', async () => {
    const { runtime, store } = testRuntime({ turns: [{ steps: [{ hang: true }] }] });
    const turn = play(runtime.streamAgent(agent, 'Hello', { sessionId: 's-1', runId: 'r-1' }));
    await expect.poll(() => runtime.liveRuns).toBe(1);
    await runtime.close();
    const { events } = await turn;
    expect(kinds(events).at(-1)).toBe('run.cancelled');
    expect(events.at(-1)?.payload).toEqual({
      reason: 'the deck closed while the turn was running',
    });
    expect(await terminals(store, 'r-1')).toHaveLength(1);
    expect(await store.claimHolder('session:s-1')).toBeNull();
  });

  it('refuses a second turn on a busy session with ConflictError, leaving no trace of it', async () => {
    const hold = gate();
    const { runtime, store } = testRuntime({
      turns: [{ steps: [{ until: hold.wait }, { text: 'done' }] }, { steps: [{ text: 'never' }] }],
    });
    const first = play(runtime.streamAgent(agent, 'one', { sessionId: 's-1', runId: 'r-1' }));
    await expect.poll(() => runtime.liveRuns).toBe(1);
    expect((await store.claimHolder('session:s-1'))?.runId).toBe('r-1');

    const second = play(runtime.streamAgent(agent, 'two', { sessionId: 's-1', runId: 'r-2' }));
    await expect(second).rejects.toBeInstanceOf(ConflictError);
    await expect(second).rejects.toMatchObject({ holderRunId: 'r-1' });
    expect(await store.read('r-2')).toEqual([]);

    hold.open();
    expect(kinds((await first).events).at(-1)).toBe('run.completed');
    expect(await store.claimHolder('session:s-1')).toBeNull();
    // Free again: the next turn on the session plays.
    const third = await play(runtime.streamAgent(agent, 'three', { sessionId: 's-1' }));
    expect(kinds(third.events).at(-1)).toBe('run.completed');
  });

  it('takes no claim without a session, so one-off turns run side by side', async () => {
    const hold = gate();
    const { runtime } = testRuntime({
      turns: [{ steps: [{ until: hold.wait }] }, { steps: [{ text: 'quick' }] }],
    });
    const slow = play(runtime.streamAgent(agent, 'slow'));
    await expect.poll(() => runtime.liveRuns).toBe(1);
    const quick = await play(runtime.streamAgent(agent, 'quick'));
    expect(kinds(quick.events).at(-1)).toBe('run.completed');
    hold.open();
    expect(kinds((await slow).events).at(-1)).toBe('run.completed');
  });
});
