/**
 * The contract every `EventStore` backend passes: one vitest suite, run by each backend's own
 * test file with a factory. It pins what callers rely on and the port only states in prose:
 * gap-free `seq` per run under concurrent appends, atomic batches, store-assigned ordered
 * timestamps, unknown kinds and content blocks surviving the round trip, the run index
 * folded from lifecycle events, (in `event-store-coordination.ts`) claims, run boundaries,
 * control requests and continuations, (in `event-store-listing.ts`) paging a status with the
 * `after` cursor, (in `event-store-pruning.ts`) pruning, (in `event-store-notices.ts`)
 * append notices, and (in `event-store-queue.ts`) the run queue, and (in `event-store-evals.ts`) datasets and experiments. Ids are random, and listings filter on a per-test origin, so a backend may
 * share one database between tests.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { AudioBlock, DataBlock, ImageBlock, ResourceBlock, TextBlock } from '../core/blocks.js';
import { InvalidInputError } from '../core/errors.js';
import { EVENT_SCHEMA_VERSION, type NewEvent } from '../core/events.js';
import type { EventStore, RunSummary } from '../core/store.js';
import { describeCoordinationContract } from './event-store-coordination.js';
import { describeEvalsContract } from './event-store-evals.js';
import { ev, ISO_MS_UTC, run, sleep, textsOf, uid } from './event-store-events.js';
import { describeListingContract } from './event-store-listing.js';
import { describeNoticesContract } from './event-store-notices.js';
import { describePruningContract } from './event-store-pruning.js';
import { describeQueueContract } from './event-store-queue.js';

/** How the suite gets a fresh store for each test and disposes of it. */
export interface EventStoreFactory {
  create(): Promise<EventStore> | EventStore;
  /** Dispose of a store (delete its file...). @default `store.close()` */
  destroy?(store: EventStore): Promise<void> | void;
  /**
   * Another store on the same database as `store`, as a second process would open it (for
   * concurrent pruning); the suite closes it. @default none: such cases use `store` twice
   */
  another?(store: EventStore): Promise<EventStore> | EventStore;
}
/**
 * Register the event store contract suite for one backend.
 *
 * @example
 * ```ts
 * describeEventStoreContract('memory', { create: () => new MemoryEventStore() });
 * ```
 */
export function describeEventStoreContract(name: string, factory: EventStoreFactory): void {
  describe(`EventStore contract: ${name}`, () => {
    let store: EventStore;
    beforeEach(async () => {
      store = await factory.create();
    });
    afterEach(async () => {
      await (factory.destroy ? factory.destroy(store) : store.close());
    });

    describe('append and read', () => {
      it('assigns v, seq from 0 without gaps, and returns the stored events', async () => {
        const r = run({ sessionId: 's1', namespace: 'ns' });
        const first = await store.append([ev.started(r)]);
        const rest = await store.append([ev.delta(r, 'a'), ev.delta(r, 'b')]);
        const last = await store.append([ev.delta(r, 'c')]);
        const stored = [...first, ...rest, ...last];
        expect(stored.map((e) => e.seq)).toEqual([0, 1, 2, 3]);
        expect(stored.every((e) => e.v === EVENT_SCHEMA_VERSION)).toBe(true);
        expect(stored[1]).toMatchObject({ ...r, kind: 'text.delta', payload: { text: 'a' } });
        expect(await store.read(r.runId)).toEqual(stored);
      });

      it('numbers each run on its own', async () => {
        const a = run();
        const b = run();
        await store.append([ev.started(a), ev.started(b), ev.delta(a, 'a1'), ev.delta(b, 'b1')]);
        await store.append([ev.delta(b, 'b2')]);
        expect((await store.read(a.runId)).map((e) => e.seq)).toEqual([0, 1]);
        expect((await store.read(b.runId)).map((e) => e.seq)).toEqual([0, 1, 2]);
        expect(textsOf((await store.read(b.runId)).slice(1))).toEqual(['b1', 'b2']);
      });

      it('returns [] for an unknown run and for an empty batch', async () => {
        expect(await store.read(uid('missing'))).toEqual([]);
        expect(await store.append([])).toEqual([]);
      });

      it('writes a batch in order and all or nothing', async () => {
        const r = run();
        const batch = ['a', 'b', 'c', 'd', 'e'].map((text) => ev.delta(r, text));
        const stored = await store.append(batch);
        expect(stored.map((e) => e.seq)).toEqual([0, 1, 2, 3, 4]);
        expect(textsOf(await store.read(r.runId))).toEqual(['a', 'b', 'c', 'd', 'e']);

        const other = run();
        const bad = { ...ev.delta(other, 'x'), payload: { messageId: 'm', text: 'x', n: 1n } };
        const refused = store.append([ev.started(other), bad as NewEvent]);
        await expect(refused).rejects.toBeInstanceOf(InvalidInputError);
        expect(await store.read(other.runId)).toEqual([]);
        expect(await store.getRun(other.runId)).toBeNull();
        expect((await store.append([ev.started(other)]))[0]?.seq).toBe(0);
      });

      it('keeps seq gap-free under concurrent appends to one run', async () => {
        const r = run();
        await store.append([ev.started(r)]);
        const singles = Array.from({ length: 60 }, (_, i) => store.append([ev.delta(r, `s${i}`)]));
        const batches = Array.from({ length: 10 }, (_, i) =>
          store.append([ev.delta(r, `b${i}.0`), ev.delta(r, `b${i}.1`), ev.delta(r, `b${i}.2`)]),
        );
        const results = await Promise.all([...singles, ...batches]);
        for (const batch of results) {
          const seqs = batch.map((e) => e.seq);
          expect(seqs).toEqual(seqs.map((_, i) => (seqs[0] ?? 0) + i));
        }
        const events = await store.read(r.runId);
        expect(events.map((e) => e.seq)).toEqual(events.map((_, i) => i));
        expect(events).toHaveLength(91);
        const bySeq = new Map(results.flat().map((e) => [e.seq, e]));
        for (const event of events.slice(1)) expect(event).toEqual(bySeq.get(event.seq));
      });

      it('reads after a seq', async () => {
        const r = run();
        await store.append(['a', 'b', 'c', 'd'].map((text) => ev.delta(r, text)));
        expect(textsOf(await store.read(r.runId, { afterSeq: 1 }))).toEqual(['c', 'd']);
        expect(await store.read(r.runId, { afterSeq: -1 })).toHaveLength(4);
        expect(await store.read(r.runId, { afterSeq: 3 })).toEqual([]);
        expect(await store.read(r.runId, { afterSeq: 99 })).toEqual([]);
      });

      it('reads a page: at most `limit` events after a seq', async () => {
        const r = run();
        await store.append(['a', 'b', 'c', 'd'].map((text) => ev.delta(r, text)));
        expect(textsOf(await store.read(r.runId, { afterSeq: 0, limit: 2 }))).toEqual(['b', 'c']);
        expect(textsOf(await store.read(r.runId, { afterSeq: 2, limit: 5 }))).toEqual(['d']);
        expect(await store.read(r.runId, { limit: 1 })).toHaveLength(1);
        expect(await store.read(r.runId, { afterSeq: 3, limit: 2 })).toEqual([]);
      });

      it('stamps ISO-8601 UTC timestamps with milliseconds, never decreasing in a run', async () => {
        const r = run();
        const before = new Date().toISOString();
        await store.append([ev.started(r)]);
        for (let i = 0; i < 5; i += 1) {
          await store.append([ev.delta(r, `t${i}`), ev.delta(r, `u${i}`)]);
          await sleep(1);
        }
        const after = new Date().toISOString();
        const stamps = (await store.read(r.runId)).map((e) => e.ts);
        for (const [i, ts] of stamps.entries()) {
          expect(ts).toMatch(ISO_MS_UTC);
          expect(ts >= before && ts <= after).toBe(true);
          if (i > 0) expect(ts >= (stamps[i - 1] ?? '')).toBe(true);
        }
      });

      it('returns copies: changing a read event does not change the log', async () => {
        const r = run();
        await store.append([ev.delta(r, 'kept')]);
        const [event] = await store.read(r.runId);
        (event?.payload as { text: string }).text = 'changed';
        expect(textsOf(await store.read(r.runId))).toEqual(['kept']);
      });
    });

    describe('round trip', () => {
      it('keeps an unknown kind as an UnknownEvent with its raw kind and payload', async () => {
        const r = run();
        const raw = { some_field: 1, nested: { camelCase: [1, 'two', null] } };
        const relayed = { ...r, kind: 'unknown', rawKind: 'future.thing', payload: raw };
        const bare = { ...r, kind: 'future.other', payload: { keptAsWritten: true } };
        const stored = await store.append([relayed, bare] as unknown as NewEvent[]);
        expect(stored[0]).toMatchObject({ kind: 'unknown', rawKind: 'future.thing', payload: raw });
        expect(stored[1]).toMatchObject({
          kind: 'unknown',
          rawKind: 'future.other',
          payload: { keptAsWritten: true },
        });
        expect(await store.read(r.runId)).toEqual(stored);
      });

      it('reads a known kind with an unreadable payload as an UnknownEvent', async () => {
        const r = run();
        const odd = { ...r, kind: 'text.delta', payload: { messageId: 'm', text: 42 } };
        await store.append([odd as unknown as NewEvent]);
        const [event] = await store.read(r.runId);
        expect(event).toMatchObject({ kind: 'unknown', rawKind: 'text.delta' });
        expect(event?.payload).toEqual({ message_id: 'm', text: 42 });
      });

      it('round-trips content blocks and opaque JSON as equal data', async () => {
        const r = run();
        const image = new ImageBlock({ mediaType: 'image/png', dataB64: 'iVBORw0KGgo=' });
        const input = [new TextBlock('look'), image, new DataBlock({ a: [1, 2], b: null })];
        const output = [
          new ResourceBlock({ uri: 'https://example.com/r.pdf', mediaType: 'application/pdf' }),
          new DataBlock({ final: true }),
        ];
        const stored = await store.append([
          ev.started(r, input),
          {
            ...r,
            kind: 'tool.call.started',
            payload: { callId: 'c1', name: 'find', arguments: { dayOfWeek: 'mon' } },
          },
          {
            ...r,
            kind: 'message.completed',
            payload: { messageId: 'm1', role: 'assistant', content: [new TextBlock('Hi')] },
          },
          {
            ...r,
            kind: 'artifact.created',
            payload: {
              name: 'clip',
              block: new AudioBlock({ mediaType: 'audio/wav', dataB64: 'UklGRg==' }),
            },
          },
          {
            ...r,
            kind: 'run.completed',
            payload: {
              output,
              usage: { requests: 1, inputTokens: 3, outputTokens: 4, totalTokens: 7, usd: null },
            },
          },
        ]);
        const events = await store.read(r.runId);
        expect(events).toEqual(stored);
        const started = events[0];
        if (started?.kind !== 'run.started') throw new Error('expected run.started first');
        expect(started.payload.input[1]).toBeInstanceOf(ImageBlock);
        expect(started.payload.input[1]).toEqual(image);
        const completed = events[4];
        if (completed?.kind !== 'run.completed') throw new Error('expected run.completed last');
        expect(completed.payload.output[0]).toBeInstanceOf(ResourceBlock);
        expect(completed.payload.usage?.totalTokens).toBe(7);
      });
    });

    describe('run index', () => {
      it('folds the status from lifecycle events and tracks the latest event', async () => {
        const r = run({ sessionId: uid('session'), namespace: 'team' });
        expect(await store.getRun(r.runId)).toBeNull();
        const [first] = await store.append([ev.started(r)]);
        const expectRun = async (status: string, lastSeq: number) => {
          const events = await store.read(r.runId);
          expect(await store.getRun(r.runId)).toEqual({
            ...r,
            status,
            startedAt: first?.ts,
            updatedAt: events.at(-1)?.ts,
            lastSeq,
          });
        };
        await expectRun('running', 0);
        await store.append([ev.delta(r, 'a')]);
        await store.append([ev.delta(r, 'b')]);
        await expectRun('running', 2);
        await store.append([ev.interrupted(r)]);
        await expectRun('waiting_human', 3);
        await store.append([ev.resumed(r)]);
        await expectRun('running', 4);
        await store.append([ev.paused(r)]);
        await expectRun('paused', 5);
        await store.append([ev.resumed(r), ev.delta(r, 'c'), ev.completed(r)]);
        await expectRun('completed', 8);
        await store.append([ev.failed(r), ev.started(r)]); // a terminal status never changes
        await expectRun('completed', 10);
      });

      it('indexes a run whose first event is not run.started as pending', async () => {
        const r = run({ origin: uid('origin') });
        await store.append([ev.delta(r, 'early')]);
        expect(await store.getRun(r.runId)).toMatchObject({ ...r, status: 'pending', lastSeq: 0 });
        await store.append([ev.failed(r)]);
        expect(await store.getRun(r.runId)).toMatchObject({ status: 'failed', lastSeq: 1 });
      });

      it('lists runs newest first, filtered by status, origin and session', async () => {
        const origin = uid('origin');
        const session = uid('session');
        const a = run({ origin, sessionId: session });
        const b = run({ origin });
        const c = run({ origin, sessionId: session });
        for (const r of [a, b, c]) {
          await store.append([ev.started(r)]);
          await sleep(3);
        }
        await store.append([ev.completed(b)]);
        await store.append([ev.interrupted(c)]);
        await store.append([ev.started(run({ sessionId: session }))]); // another origin
        const ids = (runs: RunSummary[]) => runs.map((summary) => summary.runId);
        const listed = await store.listRuns({ origin });
        expect(ids(listed)).toEqual([c.runId, b.runId, a.runId]);
        for (const summary of listed) expect(await store.getRun(summary.runId)).toEqual(summary);
        expect(ids(await store.listRuns({ origin, status: 'completed' }))).toEqual([b.runId]);
        expect(ids(await store.listRuns({ origin, status: 'waiting_human' }))).toEqual([c.runId]);
        expect(ids(await store.listRuns({ origin, sessionId: session }))).toEqual([
          c.runId,
          a.runId,
        ]);
        expect(await store.listRuns({ sessionId: session })).toHaveLength(3);
        expect(await store.listRuns({ origin: uid('nobody') })).toEqual([]);
      });

      it('pages with limit and the startedBefore cursor', async () => {
        const origin = uid('origin');
        const runs = [run({ origin }), run({ origin }), run({ origin })];
        for (const r of runs) {
          await store.append([ev.started(r)]);
          await sleep(3);
        }
        const [c, b, a] = [...runs].reverse().map((r) => r.runId);
        const page1 = await store.listRuns({ origin, limit: 2 });
        expect(page1.map((r) => r.runId)).toEqual([c, b]);
        const cursor = page1.at(-1)?.startedAt ?? '';
        const page2 = await store.listRuns({ origin, limit: 2, startedBefore: cursor });
        expect(page2.map((r) => r.runId)).toEqual([a]);
        expect(await store.listRuns({ origin, limit: 0 })).toEqual([]);
      });

      it('lists at most 50 runs when no limit is given', async () => {
        const origin = uid('origin');
        await store.append(Array.from({ length: 52 }, () => ev.started(run({ origin }))));
        expect(await store.listRuns({ origin })).toHaveLength(50);
        expect(await store.listRuns({ origin, limit: 100 })).toHaveLength(52);
      });
    });

    describeCoordinationContract(() => store);
    describeListingContract(() => store);

    const { another } = factory;
    describePruningContract(() => store, another ? () => another.call(factory, store) : null);
    describeNoticesContract(() => store, another ? () => another.call(factory, store) : null);
    describeQueueContract(() => store, another ? () => another.call(factory, store) : null);

    describeEvalsContract(() => store);

    describe('close', () => {
      it('is idempotent, and the store refuses work afterwards', async () => {
        await store.close();
        await store.close();
        await expect(store.append([ev.started(run())])).rejects.toThrow(/closed/);
        await expect(store.read(uid('run'))).rejects.toThrow(/closed/);
      });
    });
  });
}
