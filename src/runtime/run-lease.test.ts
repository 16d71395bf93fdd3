/**
 * What a live run holds (run-lease.ts, heartbeat.ts): its session claim is renewed while it
 * plays, each renewal promising a lease of three heartbeats; a paused run keeps the claim
 * with no lease (it follows the stale-run timeout); a run that loses its claim to another
 * stops with `run.cancelled` and does not free the other's claim.
 */
import { describe, expect, it } from 'vitest';
import { agent, gate, kinds, play, request, testRuntime } from '../../test/support/runtimes.js';

/** Heartbeats every 20 ms, so a lease is 60 ms. */
const settings = { heartbeatSeconds: 0.02 };

describe('a run lease', () => {
  it('renews the claim while the run plays, with a lease of three heartbeats, and frees it at the end', async () => {
    const hold = gate();
    const { runtime, store } = testRuntime({
      settings,
      turns: [{ steps: [{ until: hold.wait }, { text: 'done' }] }],
    });
    const turn = play(runtime.streamAgent(agent, 'Hello', { sessionId: 's-1', runId: 'r-1' }));
    await expect.poll(() => runtime.liveRuns).toBe(1);
    const first = await store.claimHolder('session:s-1');
    expect(first).toMatchObject({ runId: 'r-1', leaseMs: 60 });
    await expect
      .poll(async () => (await store.claimHolder('session:s-1'))?.claimedAt)
      .not.toBe(first?.claimedAt);
    hold.open();
    await turn;
    expect(await store.claimHolder('session:s-1')).toBeNull();
  });

  it('keeps a paused run claim, with no lease and no more renewals', async () => {
    const hold = gate();
    const { runtime, store } = testRuntime({
      settings,
      turns: [{ steps: [{ until: hold.wait }, { safePoint: true }, { text: 'later' }] }],
    });
    const turn = play(runtime.streamAgent(agent, 'Hello', { sessionId: 's-1', runId: 'r-1' }));
    await expect.poll(() => runtime.liveRuns).toBe(1);
    await request(runtime, 'r-1', 'pause');
    hold.open();
    expect(kinds((await turn).events).at(-1)).toBe('run.paused');
    const kept = await store.claimHolder('session:s-1');
    expect(kept?.runId).toBe('r-1');
    expect(kept?.leaseMs).toBeUndefined();
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect((await store.claimHolder('session:s-1'))?.claimedAt).toBe(kept?.claimedAt);
  });

  it('stops a run whose claim another took, recording run.cancelled, and leaves the claim to it', async () => {
    const { runtime, store } = testRuntime({ settings, turns: [{ steps: [{ hang: true }] }] });
    const turn = play(runtime.streamAgent(agent, 'Hello', { sessionId: 's-1', runId: 'r-1' }));
    await expect.poll(() => runtime.liveRuns).toBe(1);
    // As if this process had stalled past its lease and another process took the session.
    await store.release('session:s-1', 'r-1');
    await store.claim({ key: 'session:s-1', runId: 'r-other', staleAfterMs: 3_600_000 });
    const { events } = await turn;
    expect(kinds(events).at(-1)).toBe('run.cancelled');
    expect(events.at(-1)?.payload).toEqual({
      reason: "its claim was taken over by run 'r-other'",
    });
    expect((await store.claimHolder('session:s-1'))?.runId).toBe('r-other');
  });
});
