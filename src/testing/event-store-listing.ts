/**
 * The event store contract's listing cases the inbox relies on (#29): a status listed newest
 * first and paged exactly with the `after` keyset cursor, also across runs that started in
 * the same millisecond; one thread's waiting run found by origin, session and status; and a
 * cursor whose run has left the index. And runs found by the start of their id (RunIdSearch),
 * and one namespace's (a tenant's) runs alone (NamespaceListing).
 */
import { describe, expect, it } from 'vitest';
import {
  canListByNamespace,
  canSearchRunIds,
  type EventStore,
  type RunSummary,
} from '../core/store.js';
import { ev, run, sleep, uid } from './event-store-events.js';

const ids = (runs: RunSummary[]) => runs.map((summary) => summary.runId);

/** Register the listing cases; `store` gives the current test's store. */
export function describeListingContract(store: () => EventStore): void {
  describe('listing by status (inboxes)', () => {
    it('pages a status exactly with the after cursor, each run once', async () => {
      const origin = uid('origin');
      // One batch: the runs share a start time (or a few), so the cursor must order ties.
      const batch = Array.from({ length: 7 }, () => run({ origin }));
      await store().append(batch.map((r) => ev.started(r)));
      await sleep(3);
      const later = Array.from({ length: 3 }, () => run({ origin }));
      for (const r of later) await store().append([ev.started(r)]);
      const waiting = [...batch, ...later].filter((_, i) => i % 3 !== 1);
      for (const r of waiting) await store().append([ev.interrupted(r)]);
      const all = await store().listRuns({ origin, status: 'waiting_human', limit: 100 });
      expect(new Set(ids(all))).toEqual(new Set(waiting.map((r) => r.runId)));
      for (let i = 1; i < all.length; i++) {
        expect((all[i - 1] as RunSummary).startedAt >= (all[i] as RunSummary).startedAt).toBe(true);
      }
      const seen: RunSummary[] = [];
      let page = await store().listRuns({ origin, status: 'waiting_human', limit: 2 });
      while (page.length > 0) {
        expect(page.length).toBeLessThanOrEqual(2);
        seen.push(...page);
        const last = page.at(-1) as RunSummary;
        page = await store().listRuns({
          origin,
          status: 'waiting_human',
          limit: 2,
          after: { startedAt: last.startedAt, runId: last.runId },
        });
      }
      expect(ids(seen)).toEqual(ids(all));
      const running = await store().listRuns({ origin, status: 'running', limit: 100 });
      expect(running).toHaveLength(10 - waiting.length);
    });

    it("finds one thread's waiting run by origin, session and status", async () => {
      const origin = uid('origin');
      const thread = uid('thread');
      const ended = run({ origin, sessionId: thread });
      await store().append([ev.started(ended), ev.completed(ended)]);
      const other = run({ origin, sessionId: uid('thread') });
      const mine = run({ origin, sessionId: thread });
      for (const r of [other, mine]) await store().append([ev.started(r), ev.interrupted(r)]);
      const filter = { origin, sessionId: thread, status: 'waiting_human' as const, limit: 1 };
      expect(ids(await store().listRuns(filter))).toEqual([mine.runId]);
      await store().append([ev.resumed(mine)]);
      expect(await store().listRuns(filter)).toEqual([]);
    });

    it('lists, after a cursor whose run is gone, the runs that started before it', async () => {
      const origin = uid('origin');
      const older = run({ origin });
      await store().append([ev.started(older)]);
      await sleep(3);
      const newer = run({ origin });
      const [started] = await store().append([ev.started(newer)]);
      const after = { startedAt: started?.ts ?? '', runId: uid('gone') };
      expect(ids(await store().listRuns({ origin, after }))).toEqual([older.runId]);
    });
  });
  describe('runs by the start of their id (the RunIdSearch ability)', () => {
    const skip = 'the store cannot find runs by the start of their id (canSearchRunIds)';
    it('lists the ids that start with a prefix, in id order, at most the limit', async (context) => {
      const search = store();
      if (!canSearchRunIds(search)) return context.skip(skip);
      const prefix = uid('find');
      const named = ['b', 'a1', 'a2', 'A3'].map((tail) => ({
        ...run(),
        runId: `${prefix}-${tail}`,
      }));
      await search.append(named.map((r) => ev.started(r)));
      expect(await search.runIdsStartingWith(`${prefix}-a`, 10)).toEqual([
        `${prefix}-a1`,
        `${prefix}-a2`,
      ]);
      expect(await search.runIdsStartingWith(`${prefix}-a`, 1)).toEqual([`${prefix}-a1`]);
      expect(await search.runIdsStartingWith(`${prefix}-b`, 10)).toEqual([`${prefix}-b`]);
      expect(await search.runIdsStartingWith(prefix, 10)).toHaveLength(4);
      expect(await search.runIdsStartingWith(`${prefix}-c`, 10)).toEqual([]);
    });
  });
  describe("one namespace's runs (the NamespaceListing ability: tenants)", () => {
    const skip = "the store cannot list one namespace's runs (canListByNamespace)";
    it("lists, pages and filters one namespace's runs, never another's", async (context) => {
      const scoped = store();
      if (!canListByNamespace(scoped)) return context.skip(skip);
      const [a, b] = [uid('tenant-a'), uid('tenant-b')];
      const origin = uid('origin');
      const session = uid('session');
      const mine = Array.from({ length: 5 }, (_, i) =>
        run({ origin, namespace: a, sessionId: i === 0 ? session : null }),
      );
      const theirs = [run({ origin, namespace: b, sessionId: session }), run({ origin })];
      await scoped.append([...mine, ...theirs].map((r) => ev.started(r)));
      await scoped.append([ev.interrupted(mine[1] as (typeof mine)[number])]);
      const all = await scoped.listRunsIn(a, { limit: 100 });
      expect(new Set(ids(all))).toEqual(new Set(mine.map((r) => r.runId)));
      expect(all.every((summary) => summary.namespace === a)).toBe(true);
      expect(ids(await scoped.listRunsIn(a, { origin, status: 'waiting_human' }))).toEqual([
        mine[1]?.runId,
      ]);
      expect(ids(await scoped.listRunsIn(a, { sessionId: session }))).toEqual([mine[0]?.runId]);
      expect(ids(await scoped.listRunsIn(b, { sessionId: session }))).toEqual([theirs[0]?.runId]);
      expect(await scoped.listRunsIn(uid('nobody'))).toEqual([]);
      const seen: RunSummary[] = [];
      let page = await scoped.listRunsIn(a, { limit: 2 });
      while (page.length > 0) {
        seen.push(...page);
        const last = page.at(-1) as RunSummary;
        const after = { startedAt: last.startedAt, runId: last.runId };
        page = await scoped.listRunsIn(a, { limit: 2, after });
      }
      expect(ids(seen)).toEqual(ids(all));
      // The unscoped listing still sees every namespace (an operator's view).
      expect(await scoped.listRuns({ origin, limit: 100 })).toHaveLength(7);
    });
  });
}
