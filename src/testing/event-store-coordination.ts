/**
 * The part of the event store contract through which processes coordinate: claims (one
 * turn per session, stale takeover, leases), run boundaries written with the claim (the
 * optional RunBoundaries ability), pauses written with the claim they keep (RunPauses), a
 * claim with a read of the run (ClaimAndRead), control requests and the saved continuations
 * of paused runs. Registered by `describeEventStoreContract` inside its suite.
 */
import { beforeEach, describe, expect, it } from 'vitest';
import { InvalidInputError } from '../core/errors.js';
import type { NewEvent } from '../core/events.js';
import { canClaimAndRead, canPauseRuns, type EventStore, hasRunBoundaries } from '../core/store.js';
import { ev, ISO_MS_UTC, run, sleep, uid } from './event-store-events.js';

/** Register the coordination cases on the store the enclosing suite made for each test. */
export function describeCoordinationContract(current: () => EventStore): void {
  let store: EventStore;
  beforeEach(() => {
    store = current();
  });

  describe('claims', () => {
    it('acquires, reports the holder, and releases only for the holder', async () => {
      const key = uid('session');
      const before = new Date().toISOString();
      expect(await store.claimHolder(key)).toBeNull();
      const first = await store.claim({ key, runId: 'run-a', staleAfterMs: 60_000 });
      expect(first).toEqual({ acquired: true, tookOverFrom: null });
      const holder = await store.claimHolder(key);
      expect(holder?.runId).toBe('run-a');
      expect(holder?.claimedAt).toMatch(ISO_MS_UTC);
      expect((holder?.claimedAt ?? '') >= before).toBe(true);
      const busy = await store.claim({ key, runId: 'run-b', staleAfterMs: 60_000 });
      expect(busy).toEqual({ acquired: false, holder });
      expect(await store.release(key, 'run-b')).toBe(false);
      expect((await store.claimHolder(key))?.runId).toBe('run-a');
      expect(await store.release(key, 'run-a')).toBe(true);
      expect(await store.claimHolder(key)).toBeNull();
      expect(await store.release(key, 'run-a')).toBe(false);
      expect(await store.claim({ key, runId: 'run-b', staleAfterMs: 60_000 })).toEqual({
        acquired: true,
        tookOverFrom: null,
      });
    });

    it('keeps keys and run ids with quotes, backslashes and dollar signs exactly', async () => {
      // A backend may send them inside its statements' text (Postgres escapes them as literals).
      const odd = `'; DROP TABLE claims; --\\ $1 $& $' "x"`;
      const key = uid(`session:${odd}`);
      const runId = `run-${odd}`;
      expect(await store.claim({ key, runId, staleAfterMs: 60_000, leaseMs: 30_000 })).toEqual({
        acquired: true,
        tookOverFrom: null,
      });
      expect(await store.claimHolder(key)).toMatchObject({ runId, leaseMs: 30_000 });
      const busy = await store.claim({ key, runId: `${runId}2`, staleAfterMs: 60_000 });
      expect(busy).toMatchObject({ acquired: false, holder: { runId } });
      expect(await store.claimHolder(uid(`session:${odd}`))).toBeNull();
      expect(await store.release(key, runId)).toBe(true);
    });

    it('lets the holder claim again, renewing the claim', async () => {
      const key = uid('thread');
      await store.claim({ key, runId: 'run-a', staleAfterMs: 60_000 });
      const taken = await store.claimHolder(key);
      await sleep(5);
      const again = await store.claim({ key, runId: 'run-a', staleAfterMs: 60_000 });
      expect(again).toEqual({ acquired: true, tookOverFrom: null });
      const renewed = await store.claimHolder(key);
      expect(renewed?.runId).toBe('run-a');
      expect((renewed?.claimedAt ?? '') > (taken?.claimedAt ?? '')).toBe(true);
    });

    it('takes over a stale claim and reports whom it took it from', async () => {
      const key = uid('session');
      await store.claim({ key, runId: 'run-old', staleAfterMs: 60_000 });
      const old = await store.claimHolder(key);
      await sleep(30);
      const fresh = await store.claim({ key, runId: 'run-x', staleAfterMs: 60_000 });
      expect(fresh.acquired).toBe(false);
      const taken = await store.claim({ key, runId: 'run-new', staleAfterMs: 10 });
      expect(taken).toEqual({ acquired: true, tookOverFrom: old });
      expect((await store.claimHolder(key))?.runId).toBe('run-new');
      expect(await store.release(key, 'run-old')).toBe(false);
    });

    it('takes over a claim not renewed within its lease, whatever the claimer allows', async () => {
      const key = uid('session');
      // A lease long enough for the early claim to come within it on a loaded machine.
      await store.claim({ key, runId: 'run-live', staleAfterMs: 60_000, leaseMs: 500 });
      expect((await store.claimHolder(key))?.leaseMs).toBe(500);
      const early = await store.claim({ key, runId: 'run-x', staleAfterMs: 60_000 });
      expect(early.acquired).toBe(false);
      await sleep(600);
      const taken = await store.claim({ key, runId: 'run-new', staleAfterMs: 60_000 });
      expect(taken).toMatchObject({
        acquired: true,
        tookOverFrom: { runId: 'run-live', leaseMs: 500 },
      });
    });

    it('drops the lease when the holder renews without one (a paused run keeps its claim)', async () => {
      const key = uid('thread');
      await store.claim({ key, runId: 'run-a', staleAfterMs: 60_000, leaseMs: 20 });
      await store.claim({ key, runId: 'run-a', staleAfterMs: 60_000 });
      const kept = await store.claimHolder(key);
      expect(kept?.runId).toBe('run-a');
      expect(kept?.leaseMs).toBeUndefined();
      await sleep(40);
      const busy = await store.claim({ key, runId: 'run-b', staleAfterMs: 60_000 });
      expect(busy).toEqual({ acquired: false, holder: kept });
    });

    it('gives a key to exactly one of several concurrent claimers', async () => {
      const key = uid('session');
      const runIds = Array.from({ length: 8 }, (_, i) => `run-${i}`);
      const results = await Promise.all(
        runIds.map((runId) => store.claim({ key, runId, staleAfterMs: 60_000 })),
      );
      const winners = results.filter((result) => result.acquired);
      expect(winners).toHaveLength(1);
      const holder = await store.claimHolder(key);
      for (const result of results) {
        if (!result.acquired) expect(result.holder).toEqual(holder);
      }
    });
  });

  describe('run boundaries (the RunBoundaries ability)', () => {
    const boundaries = () => (hasRunBoundaries(store) ? store : null);
    const skip = 'the store does not write run boundaries with claims (hasRunBoundaries)';

    it('takes a free claim and appends the first events in one call', async (ctx) => {
      const b = boundaries();
      if (!b) return ctx.skip(skip);
      const r = run();
      const key = uid('session');
      const written = await b.claimAndAppend({ key, runId: r.runId, staleAfterMs: 60_000 }, [
        ev.started(r),
      ]);
      expect(written.claim).toEqual({ acquired: true, tookOverFrom: null });
      expect(written.events).toMatchObject([{ kind: 'run.started', seq: 0 }]);
      expect((await store.claimHolder(key))?.runId).toBe(r.runId);
      expect((await store.getRun(r.runId))?.status).toBe('running');
      // The run holds the key already: claiming again renews it and appends.
      const again = await b.claimAndAppend({ key, runId: r.runId, staleAfterMs: 60_000 }, [
        ev.delta(r, 'x'),
      ]);
      expect(again.events).toMatchObject([{ kind: 'text.delta', seq: 1 }]);
    });

    it('appends nothing when the claim is refused or taken over from a stale run', async (ctx) => {
      const b = boundaries();
      if (!b) return ctx.skip(skip);
      const key = uid('session');
      await store.claim({ key, runId: 'run-old', staleAfterMs: 60_000 });
      const refused = run();
      const busy = await b.claimAndAppend({ key, runId: refused.runId, staleAfterMs: 60_000 }, [
        ev.started(refused),
      ]);
      expect(busy).toMatchObject({ claim: { acquired: false }, events: null });
      expect(await store.read(refused.runId)).toEqual([]);
      await sleep(20);
      const next = run();
      const taken = await b.claimAndAppend({ key, runId: next.runId, staleAfterMs: 10 }, [
        ev.started(next),
      ]);
      expect(taken).toMatchObject({
        claim: { acquired: true, tookOverFrom: { runId: 'run-old' } },
        events: null,
      });
      expect(await store.read(next.runId)).toEqual([]);
      expect((await store.claimHolder(key))?.runId).toBe(next.runId);
    });

    it('refuses a malformed first event and takes no claim', async (ctx) => {
      const b = boundaries();
      if (!b) return ctx.skip(skip);
      const key = uid('session');
      const bad = { ...run(), kind: 'run.started', payload: null } as unknown as NewEvent;
      await expect(
        b.claimAndAppend({ key, runId: 'run-bad', staleAfterMs: 60_000 }, [bad]),
      ).rejects.toBeInstanceOf(InvalidInputError);
      expect(await store.claimHolder(key)).toBeNull();
    });

    it('ends a run and frees its claim in one call, once', async (ctx) => {
      const b = boundaries();
      if (!b) return ctx.skip(skip);
      const r = run();
      const key = uid('session');
      await b.claimAndAppend({ key, runId: r.runId, staleAfterMs: 60_000 }, [ev.started(r)]);
      await store.append([ev.delta(r, 'a')]);
      const ended = await b.endRun(ev.completed(r), key);
      expect(ended).toMatchObject({ kind: 'run.completed', seq: 2 });
      expect(await store.claimHolder(key)).toBeNull();
      expect((await store.getRun(r.runId))?.status).toBe('completed');
      // Another writer ended it: nothing more is appended, and a claim it holds is freed.
      await store.claim({ key, runId: r.runId, staleAfterMs: 60_000 });
      expect(await b.endRun(ev.failed(r), key)).toBeNull();
      expect(await store.claimHolder(key)).toBeNull();
      expect((await store.read(r.runId)).map((e) => e.kind)).toEqual([
        'run.started',
        'text.delta',
        'run.completed',
      ]);
    });

    it('ends a run without touching a claim another run holds, or with no claim', async (ctx) => {
      const b = boundaries();
      if (!b) return ctx.skip(skip);
      const r = run();
      const key = uid('session');
      await store.append([ev.started(r)]);
      await store.claim({ key, runId: 'run-other', staleAfterMs: 60_000 });
      expect(await b.endRun(ev.failed(r), key)).toMatchObject({ kind: 'run.failed', seq: 1 });
      expect((await store.claimHolder(key))?.runId).toBe('run-other');
      const lone = run();
      await store.append([ev.started(lone)]);
      expect(await b.endRun(ev.completed(lone), null)).toMatchObject({ seq: 1 });
      expect((await store.getRun(lone.runId))?.status).toBe('completed');
    });

    it('takes only a terminal event to end a run', async (ctx) => {
      const b = boundaries();
      if (!b) return ctx.skip(skip);
      const r = run();
      await store.append([ev.started(r)]);
      await expect(b.endRun(ev.paused(r), null)).rejects.toBeInstanceOf(InvalidInputError);
      expect(await store.read(r.runId)).toHaveLength(1);
    });
  });

  describe('run pauses (the RunPauses ability)', () => {
    const pauses = () => (canPauseRuns(store) ? store : null);
    const skip = 'the store does not write pauses with the claim they keep (canPauseRuns)';

    it('pauses a run and keeps its claim without a lease in one call', async (ctx) => {
      const p = pauses();
      if (!p) return ctx.skip(skip);
      const r = run();
      const key = uid('thread');
      await store.claim({ key, runId: r.runId, staleAfterMs: 60_000, leaseMs: 30_000 });
      await store.append([ev.started(r)]);
      const before = new Date().toISOString();
      expect(await p.pauseRun(ev.interrupted(r), key)).toMatchObject({
        kind: 'run.interrupted',
        seq: 1,
      });
      expect((await store.getRun(r.runId))?.status).toBe('waiting_human');
      const holder = await store.claimHolder(key);
      expect(holder).toMatchObject({ runId: r.runId });
      expect(holder?.leaseMs).toBeUndefined();
      expect((holder?.claimedAt ?? '') >= before).toBe(true);
    });

    it('leaves a claim another run holds, and takes only a pause', async (ctx) => {
      const p = pauses();
      if (!p) return ctx.skip(skip);
      const r = run();
      const key = uid('thread');
      await store.claim({ key, runId: 'run-other', staleAfterMs: 60_000, leaseMs: 30_000 });
      await store.append([ev.started(r)]);
      await expect(p.pauseRun(ev.completed(r), key)).rejects.toBeInstanceOf(InvalidInputError);
      expect(await p.pauseRun(ev.paused(r), key)).toMatchObject({ kind: 'run.paused', seq: 1 });
      expect(await store.claimHolder(key)).toMatchObject({ runId: 'run-other', leaseMs: 30_000 });
      expect(await store.claimHolder(uid('thread'))).toBeNull();
    });
  });

  describe('a claim with a read (the ClaimAndRead ability)', () => {
    it('claims as claim() does and reads the run once the claim is decided', async (ctx) => {
      if (!canClaimAndRead(store)) {
        return ctx.skip('the store does not read a run with a claim (canClaimAndRead)');
      }
      const r = run();
      const key = uid('resume');
      await store.append([ev.started(r), ev.interrupted(r)]);
      const taken = await store.claimAndGetRun(
        { key, runId: 'lock-a', staleAfterMs: 60_000 },
        r.runId,
      );
      expect(taken.claim).toEqual({ acquired: true, tookOverFrom: null });
      expect(taken.run).toEqual(await store.getRun(r.runId));
      expect(taken.run).toMatchObject({ status: 'waiting_human', lastSeq: 1 });
      const busy = await store.claimAndGetRun(
        { key, runId: 'lock-b', staleAfterMs: 60_000 },
        r.runId,
      );
      expect(busy.claim).toMatchObject({ acquired: false, holder: { runId: 'lock-a' } });
      const none = await store.claimAndGetRun(
        { key: uid('resume'), runId: 'lock-c', staleAfterMs: 60_000 },
        uid('run'),
      );
      expect(none).toEqual({ claim: { acquired: true, tookOverFrom: null }, run: null });
    });
  });

  describe('control requests', () => {
    it('records requests with unique ids and reads them per run, oldest first', async () => {
      const runId = uid('run');
      const pause = await store.recordControl(runId, 'pause', 'coffee');
      await store.recordControl(uid('run'), 'cancel', null);
      const resume = await store.recordControl(runId, 'resume', null);
      expect(pause).toMatchObject({ runId, verb: 'pause', reason: 'coffee' });
      expect(pause.requestedAt).toMatch(ISO_MS_UTC);
      expect(pause.requestId).toEqual(expect.any(String));
      expect(pause.requestId).not.toBe(resume.requestId);
      expect(await store.readControl(runId)).toEqual([pause, resume]);
      expect(await store.readControl(uid('run'))).toEqual([]);
    });
  });

  describe('continuations', () => {
    it("saves, replaces, reads and drops a paused run's saved state, per run", async () => {
      const runId = uid('run');
      const other = uid('run');
      expect(await store.readContinuation(runId)).toBeNull();
      await store.saveContinuation(runId, '{"step":1}');
      await store.saveContinuation(other, 'other');
      await store.saveContinuation(runId, '{"step":2,"text":"ünïcödé"}');
      expect(await store.readContinuation(runId)).toBe('{"step":2,"text":"ünïcödé"}');
      expect(await store.dropContinuation(runId)).toBe(true);
      expect(await store.dropContinuation(runId)).toBe(false);
      expect(await store.readContinuation(runId)).toBeNull();
      expect(await store.readContinuation(other)).toBe('other');
    });
  });
}
