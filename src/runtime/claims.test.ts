/**
 * A stale session claim is taken over by the next turn, and the run that held it is closed
 * with `run.failed` (StaleRunError) saying why it was stale: its lease ran out (its process
 * stopped renewing) or it outlived the stale-run timeout.
 */
import { describe, expect, it } from 'vitest';
import { agent, kinds, play, terminals, testRuntime } from '../../test/support/runtimes.js';
import type { EventStore } from '../core/store.js';

/** A run that started on session `s-1` and holds its claim, as a process that died would leave it. */
async function abandonedRun(store: EventStore, claim: { staleAfterMs: number; leaseMs?: number }) {
  const identity = { runId: 'r-old', sessionId: 's-1', namespace: null, origin: 'scripted' };
  await store.append([
    { ...identity, kind: 'run.started', payload: { invocableType: 'agent', input: [] } },
  ]);
  expect((await store.claim({ key: 'session:s-1', runId: 'r-old', ...claim })).acquired).toBe(true);
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('stale claims', () => {
  it('takes over a claim whose lease ran out, closing its run with run.failed', async () => {
    const { runtime, store } = testRuntime({ turns: [{ steps: [{ text: 'mine now' }] }] });
    await abandonedRun(store, { staleAfterMs: 3_600_000, leaseMs: 10 });
    await sleep(30);
    const { events } = await play(
      runtime.streamAgent(agent, 'Hello', { sessionId: 's-1', runId: 'r-new' }),
    );
    expect(kinds(events).at(-1)).toBe('run.completed');
    const [ended] = await terminals(store, 'r-old');
    expect(ended?.kind).toBe('run.failed');
    expect(ended?.payload).toMatchObject({ errorType: 'StaleRunError' });
    expect(JSON.stringify(ended?.payload)).toMatch(
      /not renewed for 0\.01 s .*taken over by run 'r-new'/,
    );
    expect(await terminals(store, 'r-old')).toHaveLength(1);
  });

  it('takes over a claim older than the stale-run timeout', async () => {
    const { runtime, store } = testRuntime({
      turns: [{ steps: [{ text: 'mine now' }] }],
      settings: { staleRunAfterSeconds: 0.05 },
    });
    await abandonedRun(store, { staleAfterMs: 50 });
    await sleep(80);
    await play(runtime.streamAgent(agent, 'Hello', { sessionId: 's-1', runId: 'r-new' }));
    const [ended] = await terminals(store, 'r-old');
    expect(JSON.stringify(ended?.payload)).toMatch(/older than 0\.05 s/);
  });
});
