/**
 * Append notices on SQLite (`AppendNotifier`), so a live tail of `GET /runs/{id}/events`
 * waits instead of reading the file on a timer. Two sources:
 *
 * - this store's own appends wake the run's watchers as soon as they are visible on its
 *   connection (a held group commit included: the tail reads through the same connection);
 * - any other connection's commit (another server process on the file, an `agentdeck`
 *   command, another store in this process) moves SQLite's `PRAGMA data_version`. While a run
 *   is watched, the store looks at it every {@link CHANGE_CHECK_MS} (it reads no page: a
 *   counter in the WAL index), and when it moved reads the last seq of each watched run (one
 *   indexed row each) and wakes the watchers of those that moved.
 *
 * So the cost of following is one counter look per store per 250 ms, however many clients
 * follow, and nothing per client while the run waits.
 */
import type { DatabaseSync, StatementSync } from 'node:sqlite';
import { RunWatchers } from '../shared/run-watchers.js';

/** How often a store with watchers looks for other connections' commits, in ms. */
export const CHANGE_CHECK_MS = 250;

export class AppendWatch {
  readonly #watchers = new RunWatchers();
  /** The last seq known of each watched run (-1: none yet). */
  readonly #lastSeqs = new Map<string, number>();
  readonly #dataVersion: StatementSync;
  readonly #lastSeqOf: (runId: string) => number;
  #version: unknown = null;
  #timer: NodeJS.Timeout | null = null;

  /** `lastSeqOf` reads a run's last seq on this store's connection (-1 for an unknown run). */
  constructor(db: DatabaseSync, lastSeqOf: (runId: string) => number) {
    this.#dataVersion = db.prepare('PRAGMA data_version');
    this.#lastSeqOf = lastSeqOf;
  }

  /** Watch `runId`; returns the function that stops watching. */
  watch(runId: string, onAppend: () => void): () => void {
    if (!this.#watchers.has(runId)) this.#lastSeqs.set(runId, this.#lastSeqOf(runId));
    const stop = this.#watchers.watch(runId, onAppend);
    if (!this.#timer) {
      this.#version = this.#readVersion();
      this.#timer = setInterval(() => this.#check(), CHANGE_CHECK_MS);
      this.#timer.unref();
    }
    return () => {
      stop();
      if (!this.#watchers.has(runId)) this.#lastSeqs.delete(runId);
      if (this.#watchers.size === 0) this.#stopChecking();
    };
  }

  /** This store appended `events` (visible on its connection now): wake their runs' watchers. */
  appended(events: readonly { runId: string; seq: number }[]): void {
    if (this.#watchers.size === 0) return;
    for (const event of events) {
      const known = this.#lastSeqs.get(event.runId);
      if (known !== undefined && event.seq > known) this.#lastSeqs.set(event.runId, event.seq);
    }
    this.#watchers.wakeFor(events);
  }

  close(): void {
    this.#stopChecking();
    this.#watchers.clear();
    this.#lastSeqs.clear();
  }

  #check(): void {
    let version: unknown;
    try {
      version = this.#readVersion();
    } catch {
      // The file cannot be read now: the watchers' own reads will say why.
      this.#watchers.wakeAll();
      return;
    }
    if (version === this.#version) return;
    this.#version = version;
    for (const runId of this.#watchers.runIds()) {
      let seq: number;
      try {
        seq = this.#lastSeqOf(runId);
      } catch {
        seq = Number.NaN; // unreadable: wake, the watcher's read reports it
      }
      if (seq === this.#lastSeqs.get(runId)) continue;
      if (!Number.isNaN(seq)) this.#lastSeqs.set(runId, seq);
      this.#watchers.wake(runId);
    }
  }

  #readVersion(): unknown {
    return (this.#dataVersion.get() as { data_version: unknown } | undefined)?.data_version;
  }

  #stopChecking(): void {
    if (this.#timer) clearInterval(this.#timer);
    this.#timer = null;
  }
}
