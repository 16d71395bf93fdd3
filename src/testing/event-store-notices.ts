/**
 * The part of the event store contract for stores that announce appends (`AppendNotifier`):
 * a run's watchers are woken after each append to it (a plain append, a run's first events
 * with its claim, its end), not by another run's, and no more once they stop; through another
 * store on the same database (another process), too, where the backend has one. A live tail
 * reads nothing between wake-ups, so a lost wake-up is a tail that hangs: these cases wait
 * for each one, boundedly, rather than sleeping. A store without the ability skips them.
 */
import { describe, expect, it } from 'vitest';
import { type EventStore, hasRunBoundaries, isAppendNotifier } from '../core/store.js';
import { ev, run, sleep, uid } from './event-store-events.js';

/** Counts wake-ups; `next()` resolves at the next one, or rejects after `ms`. */
function wakeups() {
  let count = 0;
  let waiting: (() => void) | null = null;
  return {
    hit: () => {
      count += 1;
      waiting?.();
    },
    get count() {
      return count;
    },
    async next(what: string, ms = 5_000): Promise<void> {
      const from = count;
      const deadline = Date.now() + ms;
      while (count === from) {
        if (Date.now() > deadline) throw new Error(`no wake-up for ${what} within ${ms} ms`);
        await Promise.race([new Promise<void>((r) => (waiting = r)), sleep(50)]);
      }
    },
  };
}

export function describeNoticesContract(
  store: () => EventStore,
  another: (() => Promise<EventStore> | EventStore) | null,
): void {
  describe('append notices (AppendNotifier)', () => {
    it('wakes the watchers of a run after each append to it, not for other runs, and not once stopped', async (t) => {
      const events = store();
      if (!isAppendNotifier(events)) return t.skip('the store does not announce appends');
      const [watched, other] = [run(), run()];
      const mine = wakeups();
      const theirs = wakeups();
      const stop = await events.watchRun(watched.runId, mine.hit);
      const stopOther = await events.watchRun(other.runId, theirs.hit);
      const woken = mine.next('an append');
      await events.append([ev.started(watched)]);
      await woken;
      expect(theirs.count).toBe(0);
      if (hasRunBoundaries(events)) {
        const ended = mine.next('endRun');
        await events.endRun(ev.completed(watched), null);
        await ended;
        const claimed = theirs.next('claimAndAppend');
        await events.claimAndAppend({ key: uid('key'), runId: other.runId, staleAfterMs: 60_000 }, [
          ev.started(other),
        ]);
        await claimed;
      }
      stop();
      const seen = mine.count;
      await events.append([ev.delta(watched, 'after stop')]);
      // Notices of one store arrive in order: once the other run's came, the stopped one would have.
      const later = theirs.next('a later append');
      await events.append([ev.delta(other, 'later')]);
      await later;
      expect(mine.count).toBe(seen);
      stopOther();
    });

    it("wakes a watcher for another store's appends on the same database (another process)", async (t) => {
      const events = store();
      if (!isAppendNotifier(events)) return t.skip('the store does not announce appends');
      if (!another) return t.skip('the backend has no second store on the same database');
      const writer = await another();
      try {
        const watched = run();
        const mine = wakeups();
        const stop = await events.watchRun(watched.runId, mine.hit);
        const woken = mine.next("another store's append");
        await writer.append([ev.started(watched), ev.interrupted(watched)]);
        await woken;
        expect((await events.read(watched.runId)).map((e) => e.kind)).toEqual([
          'run.started',
          'run.interrupted',
        ]);
        stop();
      } finally {
        await writer.close();
      }
    });
  });
}
