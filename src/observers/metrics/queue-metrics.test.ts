/**
 * The run queue's metrics on a real memory store, without a deck: depth by origin, key and
 * state with the keys past the limit as `other`, the oldest waiting entry's age, and the wait
 * from `run.queued` to `run.started` of the runs a worker of this process took, by key.
 * (Over HTTP with a deck's worker: surfaces/http/background.test.ts.)
 */
import { describe, expect, it } from 'vitest';
import { parseExposition } from '../../../test/support/prometheus.js';
import type { NewEvent } from '../../core/events.js';
import type { QueueEntry } from '../../core/queue.js';
import { MemoryEventStore } from '../../stores/memory/index.js';
import { DeckMetrics } from './deck-metrics.js';
import { depthOf } from './queue-metrics.js';

const NO_LIMITS = { concurrency: null, rate: null };
const queued = (runId: string, key: string, origin = 'A'): NewEvent => ({
  runId,
  sessionId: null,
  namespace: null,
  origin,
  kind: 'run.queued',
  payload: { invocableType: 'agent', input: [], key, priority: 0 },
});

function metered(keyLabels = 20) {
  const metrics = new DeckMetrics({ queueKeyLabels: keyLabels });
  const store = metrics.meterEventStore(new MemoryEventStore(), 'memory');
  metrics.watch({ liveRuns: () => 0, observers: [], runs: store, queue: store });
  const scrape = async () => parseExposition((await metrics.scrape()).body);
  return { store, scrape };
}

describe('queue metrics', () => {
  it('counts waiting and held entries by origin and key, and the oldest waiting one', async () => {
    const { store, scrape } = metered();
    await store.enqueue(queued('r-1', 'acme'), NO_LIMITS);
    await store.enqueue(queued('r-2', 'acme'), NO_LIMITS);
    await store.enqueue(queued('r-3', 'beta', 'B'), NO_LIMITS);
    await store.take({ worker: 'w', origins: ['B'], max: 1, leaseMs: 60_000 });
    const m = await scrape();
    const depth = 'agentdeck_queue_depth';
    expect(m.value(depth, { origin: 'A', key: 'acme', state: 'waiting' })).toBe(2);
    expect(m.value(depth, { origin: 'B', key: 'beta', state: 'held' })).toBe(1);
    expect(m.has(depth, { origin: 'B', state: 'waiting' })).toBe(false);
    expect(m.value('agentdeck_queue_oldest_wait_seconds', { origin: 'A' })).toBeGreaterThanOrEqual(
      0,
    );
    expect(m.has('agentdeck_queue_oldest_wait_seconds', { origin: 'B' })).toBe(false);
  });

  it('times a taken run from run.queued to run.started, once, and counts it by key', async () => {
    const { store, scrape } = metered();
    await store.enqueue(queued('r-1', 'acme'), NO_LIMITS);
    await store.enqueue(queued('r-2', 'acme'), NO_LIMITS);
    await store.take({ worker: 'w', origins: ['A'], max: 2, leaseMs: 60_000 });
    const envelope = { sessionId: null, namespace: null, origin: 'A' };
    await store.append([
      {
        ...envelope,
        runId: 'r-1',
        kind: 'run.started',
        payload: { invocableType: 'agent', input: [] },
      },
    ]);
    // r-2 is cancelled before it starts: no wait is observed for it
    await store.append([
      { ...envelope, runId: 'r-2', kind: 'run.cancelled', payload: { reason: 'no' } },
    ]);
    const m = await scrape();
    expect(m.value('agentdeck_queue_wait_seconds_count', { origin: 'A' })).toBe(1);
    expect(m.value('agentdeck_queue_runs_started_total', { origin: 'A', key: 'acme' })).toBe(1);
    expect(m.types.get('agentdeck_queue_wait_seconds')).toBe('histogram');
  });

  it('names the deepest keys and counts the rest as other', () => {
    const entry = (runId: string, key: string, takenBy: string | null = null) =>
      ({ runId, origin: 'A', key, takenBy, enqueuedAt: new Date().toISOString() }) as QueueEntry;
    const depth = depthOf(
      [entry('1', 'a'), entry('2', 'a'), entry('3', 'b'), entry('4', 'c', 'w'), entry('5', 'b')],
      1,
    );
    expect(depth).toEqual([
      [{ origin: 'A', key: 'a', state: 'waiting' }, 2],
      [{ origin: 'A', key: 'other', state: 'waiting' }, 2],
      [{ origin: 'A', key: 'other', state: 'held' }, 1],
    ]);
  });
});
