/**
 * The run queue part of the event store contract: the optional RunQueue ability
 * (core/queue.ts). What `enqueue` writes and refuses; that `take` serves priorities, then keys
 * in turn, then each key first in first out, passes over an origin and key at its concurrency
 * or out of tokens, and never lets two workers hold one entry (on one store, and on two over
 * the same database); holds that lapse, renewals, giving back, dropping a waiting entry; the
 * token buckets of synchronous starts; and the watch that wakes workers. Each case keeps to
 * its own origins, keys and buckets, so a backend may share one database between tests.
 * Registered by `describeEventStoreContract` inside its suite.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { TextBlock } from '../core/blocks.js';
import { ConflictError, InvalidInputError } from '../core/errors.js';
import type { NewEvent } from '../core/events.js';
import { isRunQueue, type QueueLimits, type RunQueue, rateBucket } from '../core/queue.js';
import type { EventStore } from '../core/store.js';
import { type Envelope, ev, run, sleep, uid } from './event-store-events.js';

type QueueStore = EventStore & RunQueue;
const SKIP = 'the store has no run queue (isRunQueue)';
const NO_LIMITS: QueueLimits = { concurrency: null, rate: null };
const LEASE = 60_000;

function queued(e: Envelope, key: string, priority = 0): NewEvent {
  return {
    ...e,
    kind: 'run.queued',
    payload: { invocableType: 'agent', input: [new TextBlock('later')], key, priority },
  };
}

export function describeQueueContract(
  current: () => EventStore,
  another: (() => Promise<EventStore> | EventStore) | null,
): void {
  describe('run queue', () => {
    const opened: EventStore[] = [];
    afterEach(async () => {
      for (const store of opened.splice(0)) await store.close();
    });
    const queueOf = (): QueueStore | null => {
      const store = current();
      return isRunQueue(store) ? (store as QueueStore) : null;
    };
    /** `count` runs of a fresh origin queued under `key`, oldest first; their ids. */
    const fill = async (
      q: QueueStore,
      origin: string,
      key: string,
      count: number,
      limits = NO_LIMITS,
    ) => {
      const ids: string[] = [];
      for (let i = 0; i < count; i++) {
        const stored = await q.enqueue(queued(run({ origin }), key), limits);
        ids.push(stored.runId);
      }
      return ids;
    };
    const take = (
      q: RunQueue,
      origin: string | string[],
      max = 1,
      worker = 'w1',
      leaseMs = LEASE,
    ) => q.take({ worker, origins: typeof origin === 'string' ? [origin] : origin, max, leaseMs });

    it("writes run.queued as the run's first event and an entry beside it; refuses a used id or a bad entry", async (ctx) => {
      const q = queueOf();
      if (!q) return ctx.skip(SKIP);
      const r = run({ origin: uid('o'), sessionId: 's-1', namespace: 'acme' });
      const stored = await q.enqueue(queued(r, 'acme', 3), { concurrency: 2, rate: null });
      expect(stored).toMatchObject({ kind: 'run.queued', seq: 0, runId: r.runId });
      expect((await q.getRun(r.runId))?.status).toBe('queued');
      const entry = await q.queueEntry(r.runId);
      expect(entry).toMatchObject({
        runId: r.runId,
        origin: r.origin,
        sessionId: 's-1',
        namespace: 'acme',
        key: 'acme',
        priority: 3,
        limits: { concurrency: 2, rate: null },
        attempts: 0,
        takenBy: null,
        takenAt: null,
      });
      expect(Date.parse(entry?.availableAt ?? '')).toBeLessThanOrEqual(Date.now());
      await expect(q.enqueue(queued(r, 'acme'), NO_LIMITS)).rejects.toThrow(ConflictError);
      const started = run();
      await q.append([ev.started(started)]);
      await expect(q.enqueue(queued(started, 'k'), NO_LIMITS)).rejects.toThrow(ConflictError);
      const bad = run();
      await expect(q.enqueue(ev.started(bad), NO_LIMITS)).rejects.toThrow(InvalidInputError);
      await expect(q.enqueue(queued(bad, 'k'), { concurrency: 0, rate: null })).rejects.toThrow(
        /concurrency must be a whole number of at least 1, got 0/,
      );
      await expect(
        q.enqueue(queued(bad, 'k'), { concurrency: null, rate: { limit: 0, periodMs: 1000 } }),
      ).rejects.toThrow(InvalidInputError);
      expect(await q.read(bad.runId)).toEqual([]);
      expect(await q.queueEntry(bad.runId)).toBeNull();
      expect(await q.read(r.runId)).toHaveLength(1);
    });

    it('takes the highest priority first, then first in first out, only of the origins asked', async (ctx) => {
      const q = queueOf();
      if (!q) return ctx.skip(SKIP);
      const origin = uid('o');
      const key = uid('k');
      const low = await fill(q, origin, key, 2);
      const high = (await q.enqueue(queued(run({ origin }), key, 5), NO_LIMITS)).runId;
      await fill(q, uid('other'), key, 1);
      const taken = await take(q, origin, 10);
      expect(taken.map((e) => e.runId)).toEqual([high, ...low]);
      expect(taken.every((e) => e.takenBy === 'w1' && e.attempts === 1)).toBe(true);
      expect(await take(q, origin, 10, 'w2')).toEqual([]);
      expect((await q.queueEntry(high))?.takenBy).toBe('w1');
    });

    it('gives keys turns: a key with many runs waiting does not hold back another key', async (ctx) => {
      const q = queueOf();
      if (!q) return ctx.skip(SKIP);
      const origin = uid('o');
      const [busy, quiet] = [uid('busy'), uid('quiet')];
      const many = await fill(q, origin, busy, 4);
      const one = await fill(q, origin, quiet, 1);
      const order: string[] = [];
      for (let i = 0; i < 5; i++) {
        const [entry] = await take(q, origin);
        if (!entry) break;
        order.push(entry.runId);
        expect(await q.finishTaken(entry.runId, 'w1')).toBe(true);
      }
      expect(order).toEqual([many[0], one[0], many[1], many[2], many[3]]);
      // Taken together, turns alternate too.
      const [a, b] = [await fill(q, origin, busy, 3), await fill(q, origin, quiet, 2)];
      const together = (await take(q, origin, 4)).map((e) => e.runId);
      expect(together.slice(0, 4).sort()).toEqual([a[0], a[1], b[0], b[1]].sort());
    });

    it('passes over an origin and key playing its concurrency, and counts only live holds', async (ctx) => {
      const q = queueOf();
      if (!q) return ctx.skip(SKIP);
      const origin = uid('o');
      const key = uid('k');
      const limited = await fill(q, origin, key, 4, { concurrency: 2, rate: null });
      const free = await fill(q, origin, uid('other-key'), 1, { concurrency: 2, rate: null });
      const first = (await take(q, origin, 10)).map((e) => e.runId);
      expect(first.sort()).toEqual([limited[0], limited[1], free[0]].sort());
      expect(await take(q, origin, 10)).toEqual([]);
      await q.finishTaken(limited[0] as string, 'w1');
      expect((await take(q, origin, 10)).map((e) => e.runId)).toEqual([limited[2]]);
      // A hold that lapsed frees its slot: the lapsed entry and the next are taken.
      const short = uid('o');
      const lapsing = await fill(q, short, key, 2, { concurrency: 1, rate: null });
      expect((await take(q, short, 5, 'w1', 30)).map((e) => e.runId)).toEqual([lapsing[0]]);
      await sleep(80);
      const again = await take(q, short, 5, 'w2');
      expect(again.map((e) => e.runId)).toEqual([lapsing[0]]);
      expect(again[0]?.attempts).toBe(2);
    });

    it('lets a hold lapse unless renewed; the lapsed holder can no longer renew nor finish it', async (ctx) => {
      const q = queueOf();
      if (!q) return ctx.skip(SKIP);
      const origin = uid('o');
      const [kept, dropped] = await fill(q, origin, uid('k'), 2);
      // Timers never fire early: `dropped` is past its lease at the take below, whatever the
      // load; `kept`, renewed 400 ms before it, has 200 ms of slack on a busy machine.
      expect(await take(q, origin, 2, 'w1', 600)).toHaveLength(2);
      await sleep(300);
      expect(await q.renewTaken('w1', [kept as string])).toEqual([kept]);
      await sleep(400);
      const retaken = await take(q, origin, 2, 'w2');
      expect(retaken.map((e) => e.runId)).toEqual([dropped]);
      expect(retaken[0]).toMatchObject({ takenBy: 'w2', attempts: 2 });
      expect(await q.renewTaken('w1', [kept as string, dropped as string])).toEqual([kept]);
      expect(await q.finishTaken(dropped as string, 'w1')).toBe(false);
      expect(await q.finishTaken(dropped as string, 'w2')).toBe(true);
      expect(await q.queueEntry(dropped as string)).toBeNull();
    });

    it('gives an entry back untouched, from a time on; drops only an entry nobody holds', async (ctx) => {
      const q = queueOf();
      if (!q) return ctx.skip(SKIP);
      const origin = uid('o');
      const [held, waiting] = await fill(q, origin, uid('k'), 2);
      await take(q, origin);
      const later = new Date(Date.now() + 200).toISOString();
      expect(await q.giveBack(held as string, 'w2', later)).toBe(false);
      expect(await q.giveBack(held as string, 'w1', later)).toBe(true);
      expect(await q.queueEntry(held as string)).toMatchObject({ takenBy: null, attempts: 0 });
      expect((await take(q, origin, 5)).map((e) => e.runId)).toEqual([waiting]);
      expect(await q.dropWaiting(waiting as string)).toBe(false);
      await sleep(250);
      expect((await take(q, origin, 5, 'w3')).map((e) => e.runId)).toEqual([held]);
      const another_ = (await fill(q, origin, uid('k'), 1))[0] as string;
      expect(await q.dropWaiting(another_)).toBe(true);
      expect(await q.queueEntry(another_)).toBeNull();
      expect(await q.dropWaiting(another_)).toBe(false);
      expect((await q.getRun(another_))?.status).toBe('queued'); // the caller records the cancel
    });

    it('spends a token of the bucket per take, shared with synchronous starts', async (ctx) => {
      const q = queueOf();
      if (!q) return ctx.skip(SKIP);
      const origin = uid('o');
      const key = uid('k');
      const rate = { limit: 2, periodMs: 60_000 };
      await fill(q, origin, key, 3, { concurrency: null, rate });
      expect(await take(q, origin, 5)).toHaveLength(2);
      const refused = await q.takeToken(rateBucket(origin, key), rate);
      expect(refused.ok).toBe(false);
      if (!refused.ok) expect(refused.retryAfterMs).toBeGreaterThan(20_000);
      const fast = { limit: 1, periodMs: 100 };
      const bucket = uid('bucket');
      expect(await q.takeToken(bucket, fast)).toEqual({ ok: true });
      const wait = await q.takeToken(bucket, fast);
      expect(wait.ok).toBe(false);
      await sleep(130);
      expect(await q.takeToken(bucket, fast)).toEqual({ ok: true });
    });

    it('lists entries by priority then age, and wakes watchers on enqueue', async (ctx) => {
      const q = queueOf();
      if (!q) return ctx.skip(SKIP);
      let woken = 0;
      const unwatch = await q.watchQueue(() => {
        woken += 1;
      });
      const origin = uid('o');
      const [first] = await fill(q, origin, uid('k'), 1);
      const urgent = (await q.enqueue(queued(run({ origin }), uid('k'), 9), NO_LIMITS)).runId;
      const listed = (await q.listQueue(1000))
        .map((e) => e.runId)
        .filter((id) => [first, urgent].includes(id));
      expect(listed).toEqual([urgent, first]);
      const deadline = Date.now() + 2_000;
      while (woken === 0 && Date.now() < deadline) await sleep(10);
      expect(woken).toBeGreaterThan(0);
      unwatch();
    });

    it('never lets two workers hold one entry, on one store or on two over the same database', async (ctx) => {
      const q = queueOf();
      if (!q) return ctx.skip(SKIP);
      const other = another ? await another() : q;
      if (other !== q) opened.push(other);
      const origin = uid('o');
      const ids = await fill(q, origin, uid('k'), 12);
      const batches = await Promise.all(
        [q, other, q, other].map((store, i) => take(store as QueueStore, origin, 5, `w${i}`)),
      );
      const taken = batches.flat().map((e) => e.runId);
      expect(new Set(taken).size).toBe(taken.length);
      expect(taken.sort()).toEqual([...ids].sort());
    });
  });
}
