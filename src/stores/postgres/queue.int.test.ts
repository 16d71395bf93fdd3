/**
 * What the run queue has to prove on Postgres beyond the contract suite: a concurrency limit
 * holds across stores (processes) taking at once, a watcher wakes on another store's enqueue
 * (LISTEN), and pruning a run removes its entry. Every store uses a schema of its own.
 */
import { describe, expect, it } from 'vitest';
import { schemaStores } from '../../../test/support/postgres.js';
import { TextBlock } from '../../core/blocks.js';
import type { NewEvent } from '../../core/events.js';
import { ev, run, sleep, uid } from '../../testing/event-store-events.js';

const { freshSchema, open } = schemaStores(4);

const queued = (origin: string, key: string): NewEvent => ({
  ...run({ origin }),
  kind: 'run.queued',
  payload: { invocableType: 'agent', input: [new TextBlock('later')], key, priority: 0 },
});

describe('PostgresEventStore run queue', () => {
  it('holds a concurrency limit across stores taking at once', async () => {
    const schema = freshSchema();
    const stores = [open(schema), open(schema), open(schema)];
    const [first] = stores as [(typeof stores)[0]];
    const origin = uid('o');
    for (let i = 0; i < 8; i++) {
      await first.enqueue(queued(origin, 'k'), { concurrency: 2, rate: null });
    }
    const batches = await Promise.all(
      stores.map((store, i) =>
        store.take({ worker: `w${i}`, origins: [origin], max: 5, leaseMs: 60_000 }),
      ),
    );
    expect(batches.flat()).toHaveLength(2);
  });

  it("wakes a watcher on another store's enqueue, and pruning removes the entry", async () => {
    const schema = freshSchema();
    const [a, b] = [open(schema), open(schema)];
    let woken = 0;
    const unwatch = await b.watchQueue(() => {
      woken += 1;
    });
    const origin = uid('o');
    const stored = await a.enqueue(queued(origin, 'k'), { concurrency: null, rate: null });
    const deadline = Date.now() + 2_000;
    while (woken === 0 && Date.now() < deadline) await sleep(5);
    expect(woken).toBeGreaterThan(0);
    unwatch();
    const envelope = { ...run({ origin }), runId: stored.runId };
    await a.append([ev.cancelled(envelope)]);
    const pruned = await a.pruneRuns({ endedBefore: '9999-01-01T00:00:00Z', limit: 10 });
    expect(pruned.map((r) => r.runId)).toEqual([stored.runId]);
    expect(await a.queueEntry(stored.runId)).toBeNull();
  });
});
