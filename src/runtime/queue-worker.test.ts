import { describe, expect, it } from 'vitest';
import { TextBlock } from '../core/blocks.js';
import type { QueueEntry } from '../core/queue.js';
import { MemoryEventStore } from '../stores/memory/index.js';
import { QueueWorker } from './queue-worker.js';

const sleep = (ms: number) => new Promise((done) => setTimeout(done, ms));

async function queueOne(store: MemoryEventStore, runId: string) {
  await store.enqueue(
    {
      kind: 'run.queued',
      runId,
      sessionId: null,
      namespace: null,
      origin: 'helper',
      payload: { invocableType: 'agent', input: [new TextBlock('hi')], key: 'k', priority: 0 },
    },
    { concurrency: null, rate: null },
  );
}

describe('the queue worker', () => {
  it('stops a run it plays, recording nothing, once its hold lapsed and another worker took it', async () => {
    const store = new MemoryEventStore();
    await queueOne(store, 'r-1');
    // This process stalls: its renewals wait 200 ms (a blocked event loop, a busy pool).
    let stalled = false;
    const renew = store.renewTaken.bind(store);
    store.renewTaken = async (worker, ids) => {
      if (stalled) await sleep(200);
      return renew(worker, ids);
    };
    const abandoned: string[] = [];
    let stop = () => {};
    const worker = new QueueWorker({
      store,
      origins: ['helper'],
      concurrency: 1,
      leaseMs: 60,
      pollMs: 10_000,
      play: (_entry: QueueEntry) =>
        new Promise((done) => {
          stop = () => done('finished');
        }),
      abandon: (runId) => {
        abandoned.push(runId);
        stop();
        return true;
      },
    });
    await worker.start();
    for (let i = 0; i < 100 && (await store.queueEntry('r-1'))?.takenBy !== worker.id; i++) {
      await sleep(5);
    }
    stalled = true;
    await sleep(100); // past the lease: another worker takes the run
    const [retaken] = await store.take({
      worker: 'other',
      origins: ['helper'],
      max: 1,
      leaseMs: 60_000,
    });
    expect(retaken?.runId).toBe('r-1');
    for (let i = 0; i < 100 && abandoned.length === 0; i++) await sleep(10);
    expect(abandoned).toEqual(['r-1']);
    await worker.halt();
    await worker.stop();
    // The other worker still holds it: the stalled one could not finish it.
    expect((await store.queueEntry('r-1'))?.takenBy).toBe('other');
  });

  it('keeps a run whose hold it renews, and finishes its entry when the run ends', async () => {
    const store = new MemoryEventStore();
    await queueOne(store, 'r-2');
    let end = () => {};
    const worker = new QueueWorker({
      store,
      origins: ['helper'],
      concurrency: 1,
      leaseMs: 60,
      pollMs: 10_000,
      play: () =>
        new Promise((done) => {
          end = () => done('finished');
        }),
      abandon: () => {
        throw new Error('not abandoned');
      },
    });
    await worker.start();
    await sleep(200); // several leases: renewed all along
    expect(await store.take({ worker: 'other', origins: ['helper'], max: 1, leaseMs: 60 })).toEqual(
      [],
    );
    end();
    for (let i = 0; i < 100 && (await store.queueEntry('r-2')) !== null; i++) await sleep(5);
    expect(await store.queueEntry('r-2')).toBeNull();
    await worker.halt();
  });
});
