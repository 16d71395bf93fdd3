/**
 * The retention part of the event store contract: the optional RunPruning ability. What a
 * prune removes (runs that ended before the cut, the longest-ended first, up to the limit,
 * with their events, index row, control requests, continuation and run-id reservation), what
 * it never removes (a run that has not ended, however old; other runs; other claims), what a
 * dry run does, and that concurrent pruners, on one store or on two over the same database,
 * report each run once. Each case keeps its runs apart by origin, and the one that prunes
 * every origin checks only its own runs, so a backend may share one database between tests.
 * Registered by `describeEventStoreContract` inside its suite.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { InvalidInputError } from '../core/errors.js';
import {
  canPruneRuns,
  type EventStore,
  type PruneRequest,
  type RunPruning,
  type RunSummary,
  runIdReservationKey,
} from '../core/store.js';
import { type Envelope, ev, run, sleep, uid } from './event-store-events.js';

type Ending = 'completed' | 'failed' | 'cancelled';
type PruningStore = EventStore & RunPruning;

/** A cut later than any run's end. */
const LATEST = '9999-12-31T23:59:59.999Z';
const FOREVER = Number.MAX_SAFE_INTEGER;
const SKIP = 'the store cannot prune runs (canPruneRuns)';

const ids = (runs: readonly { runId: string }[]) => runs.map((r) => r.runId);
const envelopeOf = ({ runId, sessionId, namespace, origin }: RunSummary): Envelope => ({
  runId,
  sessionId,
  namespace,
  origin,
});

/** Wait until the clock has passed `ts`, so that what is written next is stamped later. */
async function pastTime(ts: string): Promise<void> {
  while (Date.now() <= Date.parse(ts)) await sleep(1);
}

/** End `r` with `ending`, after `previous` ended when given; its index row. */
async function endRun(
  store: EventStore,
  r: Envelope,
  ending: Ending,
  previous?: RunSummary,
): Promise<RunSummary> {
  if (previous) await pastTime(previous.updatedAt);
  await store.append([ev[ending](r)]);
  const row = await store.getRun(r.runId);
  expect(row?.status).toBe(ending);
  return row as RunSummary;
}

/** A run of `origin` that starts and ends (after `previous` when given); its index row. */
async function endedRun(
  store: EventStore,
  origin: string,
  ending: Ending = 'completed',
  previous?: RunSummary,
): Promise<RunSummary> {
  const r = run({ origin });
  await store.append([ev.started(r), ev.delta(r, 'x')]);
  return endRun(store, r, ending, previous);
}

/**
 * Register the pruning cases on the store the enclosing suite made for each test. `another`
 * opens a second store on the same database (another process's view), closed after the test;
 * `null` when the backend has none (the cases then use the one store twice).
 */
export function describePruningContract(
  current: () => EventStore,
  another: (() => Promise<EventStore> | EventStore) | null,
): void {
  describe('pruning (the RunPruning ability)', () => {
    const opened: EventStore[] = [];
    afterEach(async () => {
      await Promise.all(opened.splice(0).map((store) => store.close()));
    });
    const pruning = (): PruningStore | null => {
      const store = current();
      return canPruneRuns(store) ? store : null;
    };

    it('removes runs that ended before endedBefore, the longest-ended first, up to limit', async (ctx) => {
      const s = pruning();
      if (!s) return ctx.skip(SKIP);
      const origin = uid('origin');
      const [a, b, c, late] = [run({ origin }), run({ origin }), run({ origin }), run({ origin })];
      for (const r of [a, b, c, late]) await s.append([ev.started(r)]);
      // Started a, b, c; ended b, c, a: the order of their ends is the order of removal.
      const bRow = await endRun(s, b, 'completed');
      const cRow = await endRun(s, c, 'failed', bRow);
      const aRow = await endRun(s, a, 'cancelled', cRow);
      const lateRow = await endRun(s, late, 'completed', aRow);
      // Strictly before: the run that ended at the cut itself stays.
      const request = { endedBefore: lateRow.updatedAt, origin, limit: 2 };
      expect(await s.pruneRuns(request)).toEqual([bRow, cRow]);
      expect(await s.pruneRuns(request)).toEqual([aRow]);
      expect(await s.pruneRuns(request)).toEqual([]);
      expect(await s.listRuns({ origin })).toEqual([lateRow]);
      expect(await s.pruneRuns({ endedBefore: LATEST, origin, limit: 0 })).toEqual([]);
      expect(await s.pruneRuns({ endedBefore: LATEST, origin, limit: 5 })).toEqual([lateRow]);
    });

    it('removes everything kept for a pruned run, nothing else, and frees its id', async (ctx) => {
      const s = pruning();
      if (!s) return ctx.skip(SKIP);
      const origin = uid('origin');
      const gone = run({ origin });
      const kept = run({ origin });
      const reserve = (runId: string) =>
        s.claim({ key: runIdReservationKey(runId), runId: uid('holder'), staleAfterMs: FOREVER });
      await reserve(gone.runId);
      await reserve(kept.runId);
      await s.append([ev.started(gone), ev.delta(gone, 'a'), ev.paused(gone)]);
      await s.saveContinuation(gone.runId, '{"paused":true}');
      await s.recordControl(gone.runId, 'resume', null);
      await s.append([ev.resumed(gone), ev.completed(gone)]); // its continuation was left behind
      // Claims that are not its reservation stay, even one the pruned run holds.
      const sessionKey = uid('session');
      const scheduleKey = `schedule:${uid('nightly')}:last`;
      await s.claim({ key: sessionKey, runId: gone.runId, staleAfterMs: 60_000 });
      await s.claim({ key: scheduleKey, runId: gone.runId, staleAfterMs: FOREVER });
      const goneRow = (await s.getRun(gone.runId)) as RunSummary;
      await pastTime(goneRow.updatedAt);
      await s.append([ev.started(kept)]);
      await s.saveContinuation(kept.runId, 'kept');
      await s.recordControl(kept.runId, 'cancel', 'later');
      await s.append([ev.cancelled(kept)]);
      const everything = async (runId: string) => ({
        events: await s.read(runId),
        row: await s.getRun(runId),
        control: await s.readControl(runId),
        continuation: await s.readContinuation(runId),
        reservation: await s.claimHolder(runIdReservationKey(runId)),
      });
      const keptBefore = await everything(kept.runId);
      const endedBefore = keptBefore.row?.updatedAt ?? '';

      expect(await s.pruneRuns({ endedBefore, origin, limit: 10 })).toEqual([goneRow]);
      expect(await everything(gone.runId)).toEqual({
        events: [],
        row: null,
        control: [],
        continuation: null,
        reservation: null,
      });
      expect(ids(await s.listRuns({ origin }))).toEqual([kept.runId]);
      expect(await everything(kept.runId)).toEqual(keptBefore);
      expect((await s.claimHolder(sessionKey))?.runId).toBe(gone.runId);
      expect((await s.claimHolder(scheduleKey))?.runId).toBe(gone.runId);

      // The id is free: it can be reserved again, and its next event starts a new run.
      expect((await reserve(gone.runId)).acquired).toBe(true);
      const [again] = await s.append([ev.started(gone)]);
      expect(again?.seq).toBe(0);
      expect(await s.read(gone.runId)).toEqual([again]);
      expect(await s.getRun(gone.runId)).toMatchObject({
        status: 'running',
        startedAt: again?.ts,
        lastSeq: 0,
      });
      expect(await s.readControl(gone.runId)).toEqual([]);
    });

    it('never removes a run that has not ended, however old', async (ctx) => {
      const s = pruning();
      if (!s) return ctx.skip(SKIP);
      const origin = uid('origin');
      const [running, paused, waiting, pending] = [
        run({ origin }),
        run({ origin }),
        run({ origin }),
        run({ origin }),
      ];
      await s.append([ev.started(running)]);
      await s.append([ev.started(paused), ev.paused(paused)]);
      await s.append([ev.started(waiting), ev.interrupted(waiting)]);
      await s.append([ev.delta(pending, 'no run.started yet')]);
      const done = await endedRun(s, origin, 'failed');
      const request = { endedBefore: LATEST, origin, limit: 100 };
      expect(await s.pruneRuns({ ...request, dryRun: true })).toEqual([done]);
      expect(await s.pruneRuns(request)).toEqual([done]);
      expect(await s.pruneRuns(request)).toEqual([]);
      const left = await s.listRuns({ origin });
      expect(left.map((r) => r.status).sort()).toEqual([
        'paused',
        'pending',
        'running',
        'waiting_human',
      ]);
      for (const r of left) expect(await s.read(r.runId)).toHaveLength(r.lastSeq + 1);
      const notEnded = { ...request, statuses: ['running'] } as unknown as PruneRequest;
      await expect(s.pruneRuns(notEnded)).rejects.toBeInstanceOf(InvalidInputError);
    });

    it('selects by status and by origin', async (ctx) => {
      const s = pruning();
      if (!s) return ctx.skip(SKIP);
      const origin = uid('origin');
      const other = uid('origin');
      const completed = await endedRun(s, origin, 'completed');
      const failed = await endedRun(s, origin, 'failed', completed);
      const cancelled = await endedRun(s, origin, 'cancelled', failed);
      const elsewhere = await endedRun(s, other, 'failed', cancelled);
      const all = { endedBefore: LATEST, limit: 10 };
      expect(
        await s.pruneRuns({ ...all, origin, statuses: ['failed', 'cancelled'], dryRun: true }),
      ).toEqual([failed, cancelled]);
      expect(await s.pruneRuns({ ...all, origin, statuses: ['cancelled', 'failed'] })).toEqual([
        failed,
        cancelled,
      ]);
      expect(await s.pruneRuns({ ...all, origin, statuses: ['failed'] })).toEqual([]);
      expect(await s.pruneRuns({ ...all, origin: other, statuses: [] })).toEqual([]);
      expect(await s.pruneRuns({ ...all, origin, statuses: ['completed'] })).toEqual([completed]);
      expect(await s.getRun(elsewhere.runId)).toEqual(elsewhere);
      expect(await s.pruneRuns({ ...all, origin: other })).toEqual([elsewhere]);
    });

    it("prunes every origin when none is given, by the time of each run's last event", async (ctx) => {
      const s = pruning();
      if (!s) return ctx.skip(SKIP);
      const origin = uid('origin');
      const early = await endedRun(s, origin, 'completed');
      const touched = await endedRun(s, origin, 'completed', early);
      const live = run({ origin });
      await s.append([ev.started(live)]);
      // Events after its end move it: one before the cut, then one after (a store may take
      // another path for the second event of a run than for the first).
      await s.append([ev.delta(envelopeOf(touched), 'after the end')]);
      const afterEnd = (await s.getRun(touched.runId)) as RunSummary;
      const cut = new Date(Date.parse(afterEnd.updatedAt) + 1).toISOString();
      await pastTime(cut);
      await s.append([ev.delta(envelopeOf(touched), 'after the cut')]);
      const fresh = await endedRun(s, uid('origin'), 'failed');

      const pruned = await s.pruneRuns({ endedBefore: cut, limit: 100_000 });
      expect(pruned).toContainEqual(early);
      for (const r of [touched, live, fresh]) expect(ids(pruned)).not.toContain(r.runId);
      for (const r of pruned) {
        expect(['completed', 'failed', 'cancelled']).toContain(r.status);
        expect(r.updatedAt < cut).toBe(true);
      }
      const ends = pruned.map((r) => r.updatedAt);
      expect(ends).toEqual([...ends].sort());
      const moved = await s.getRun(touched.runId);
      expect(moved).toMatchObject({ status: 'completed', lastSeq: touched.lastSeq + 2 });
      expect(await s.pruneRuns({ endedBefore: LATEST, origin, limit: 10 })).toEqual([moved]);
      expect(ids(await s.listRuns({ origin }))).toEqual([live.runId]);
    });

    it('removes nothing in a dry run, and lists what a prune then removes', async (ctx) => {
      const s = pruning();
      if (!s) return ctx.skip(SKIP);
      const origin = uid('origin');
      const a = await endedRun(s, origin, 'completed');
      const b = await endedRun(s, origin, 'cancelled', a);
      await s.recordControl(a.runId, 'cancel', null);
      const reservation = runIdReservationKey(a.runId);
      await s.claim({ key: reservation, runId: 'holder', staleAfterMs: FOREVER });
      const request = { endedBefore: LATEST, origin, limit: 10 };
      const dry = await s.pruneRuns({ ...request, dryRun: true });
      expect(dry).toEqual([a, b]);
      expect(await s.pruneRuns({ ...request, dryRun: true })).toEqual(dry);
      expect(await s.getRun(a.runId)).toEqual(a);
      expect(await s.read(a.runId)).toHaveLength(a.lastSeq + 1);
      expect(await s.readControl(a.runId)).toHaveLength(1);
      expect((await s.claimHolder(reservation))?.runId).toBe('holder');
      expect(await s.pruneRuns(request)).toEqual(dry);
      expect(await s.pruneRuns({ ...request, dryRun: true })).toEqual([]);
    });

    it('reports each run to exactly one of several concurrent pruners', async (ctx) => {
      const s = pruning();
      if (!s) return ctx.skip(SKIP);
      const origin = uid('origin');
      const runs = Array.from({ length: 24 }, () => run({ origin }));
      await s.append(runs.flatMap((r) => [ev.started(r), ev.delta(r, 'x'), ev.completed(r)]));
      const second = another ? await another() : s;
      if (second !== s) opened.push(second);
      if (!canPruneRuns(second)) throw new Error('the other store cannot prune runs');
      const request = { endedBefore: LATEST, origin, limit: 5 };
      const reported: string[] = [];
      const drain = async (pruner: RunPruning) => {
        for (;;) {
          const batch = await pruner.pruneRuns(request);
          if (batch.length === 0) return;
          reported.push(...ids(batch));
        }
      };
      await Promise.all([drain(s), drain(second), drain(s), drain(second)]);
      expect([...reported].sort()).toEqual(ids(runs).sort());
      expect(await s.listRuns({ origin })).toEqual([]);
      expect(await second.listRuns({ origin })).toEqual([]);
    });

    it('refuses a malformed request, and compares instants whatever their offset', async (ctx) => {
      const s = pruning();
      if (!s) return ctx.skip(SKIP);
      for (const bad of [
        { endedBefore: 'last week', limit: 1 },
        { endedBefore: '2026-01-01T00:00:00', limit: 1 }, // no offset: which instant?
        { endedBefore: LATEST, limit: -1 },
        { endedBefore: LATEST, limit: 1.5 },
        { endedBefore: LATEST, limit: Number.NaN },
        { endedBefore: LATEST, limit: 1, statuses: ['paused'] },
      ]) {
        await expect(s.pruneRuns(bad as PruneRequest)).rejects.toBeInstanceOf(InvalidInputError);
      }
      const origin = uid('origin');
      const r = await endedRun(s, origin, 'completed');
      const inParis = (ms: number) => new Date(ms + 3_600_000).toISOString().replace('Z', '+01:00');
      const at = Date.parse(r.updatedAt);
      expect(await s.pruneRuns({ endedBefore: inParis(at), origin, limit: 1 })).toEqual([]);
      expect(await s.pruneRuns({ endedBefore: inParis(at + 1), origin, limit: 1 })).toEqual([r]);
    });
  });
}
