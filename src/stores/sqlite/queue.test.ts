/**
 * What the SQLite run queue has to prove beyond the contract suite (queue.ts): pruning a run
 * removes its entry, a take plans one index range per origin, a take on one connection does not
 * wait on a group commit another connection of this process holds open, and an enqueue wakes
 * the watchers of another store of this process on the same file.
 */
import type { DatabaseSync } from 'node:sqlite';
import { describe, expect, it } from 'vitest';
import { openSqliteStore, tempStateFile } from '../../../test/support/sqlite-files.js';
import type { NewEvent } from '../../core/events.js';
import type { QueueLimits } from '../../core/queue.js';
import { QUEUE_SQL } from './queue.js';

const NO_LIMITS: QueueLimits = { concurrency: null, rate: null };
const LEASE = 60_000;

function queued(runId: string, origin = 'agent-a', key = 'k'): NewEvent {
  return {
    runId,
    sessionId: null,
    namespace: null,
    origin,
    kind: 'run.queued',
    payload: { invocableType: 'agent', input: [], key, priority: 0 },
  };
}

describe('SQLite run queue', () => {
  it("removes a pruned run's entry with the run", async () => {
    const store = openSqliteStore(tempStateFile('queue'));
    await store.enqueue(queued('q-1'), NO_LIMITS);
    await store.enqueue(queued('q-2'), NO_LIMITS);
    await store.endRun(
      { ...queued('q-1'), kind: 'run.cancelled', payload: { reason: 'no longer wanted' } },
      null,
    );
    const pruned = await store.pruneRuns({ endedBefore: '9999-12-31T23:59:59.999Z', limit: 10 });
    expect(pruned.map((run) => run.runId)).toEqual(['q-1']);
    expect(await store.queueEntry('q-1')).toBeNull();
    expect(await store.queueEntry('q-2')).not.toBeNull();
  });

  it('takes from one range of queue_by_ready per origin, and counts holds on queue_holds', () => {
    const store = openSqliteStore(tempStateFile('queue'));
    const db = store.connection as DatabaseSync;
    const plan = (sql: string, ...args: (string | number)[]) =>
      db
        .prepare(`EXPLAIN QUERY PLAN ${sql}`)
        .all(...args)
        .map((row) => String(row.detail))
        .join('\n');
    expect(plan(QUEUE_SQL.candidates, '["a","b"]', Date.now())).toMatch(
      /SEARCH q USING INDEX queue_by_ready \(origin=\? AND ready_at<\?\)/,
    );
    expect(plan(QUEUE_SQL.liveHolds, 'a', 'k', Date.now())).toMatch(/queue_holds/);
    expect(plan(QUEUE_SQL.list, 10)).toMatch(/queue_by_order/);
  });

  it('takes while another store of this process on the file holds a group commit open', async () => {
    const path = tempStateFile('queue');
    const [grouping, taking] = [
      openSqliteStore(path),
      openSqliteStore(path, { busyTimeoutMs: 200 }),
    ];
    await taking.enqueue(queued('q-1'), NO_LIMITS);
    const envelope = { runId: 'streaming', sessionId: null, namespace: null, origin: 'agent-b' };
    await grouping.append([
      { ...envelope, kind: 'run.started', payload: { invocableType: 'agent', input: [] } },
    ]);
    // A delta opens a group commit on `grouping`'s connection, holding the file's write lock.
    await grouping.append([
      { ...envelope, kind: 'text.delta', payload: { messageId: 'm', text: 'x' } },
    ]);
    const taken = await taking.take({ worker: 'w', origins: ['agent-a'], max: 1, leaseMs: LEASE });
    expect(taken.map((entry) => entry.runId)).toEqual(['q-1']);
    expect(
      await grouping.take({ worker: 'v', origins: ['agent-a'], max: 1, leaseMs: LEASE }),
    ).toEqual([]);
    expect(await grouping.read('streaming')).toHaveLength(2);
  });

  it('wakes the watchers of another store of this process on the same file', async () => {
    const path = tempStateFile('queue');
    const [watching, enqueuing] = [openSqliteStore(path), openSqliteStore(path)];
    let woken = 0;
    const unwatch = await watching.watchQueue(() => {
      woken += 1;
    });
    await enqueuing.enqueue(queued('q-1'), NO_LIMITS);
    await Promise.resolve();
    expect(woken).toBe(1);
    unwatch();
    await enqueuing.enqueue(queued('q-2'), NO_LIMITS);
    await Promise.resolve();
    expect(woken).toBe(1);
  });
});
