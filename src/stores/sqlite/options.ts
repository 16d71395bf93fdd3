/**
 * The SQLite event store's options, and the free space its readiness asks of the disk.
 */
import { statfs } from 'node:fs/promises';
import { dirname } from 'node:path';
import { StorageFullError } from '../../core/errors.js';
import { RECLAIM_PAGES_PER_STEP } from './vacuum.js';

/** Below this much free space on the file's disk, the store is not ready (a WAL needs room). */
export const MIN_FREE_BYTES = 1024 * 1024;

/** Free bytes on the disk holding `path`, or `null` for an in-memory database. */
async function freeBytes(path: string): Promise<number | null> {
  if (path === ':memory:' || path.startsWith('file:')) return null;
  const stats = await statfs(dirname(path));
  return stats.bavail * stats.bsize;
}

/** Rejects with a StorageFullError when the disk holding `path` has under {@link MIN_FREE_BYTES} free. */
export async function requireFreeSpace(path: string): Promise<void> {
  const free = await freeBytes(path);
  if (free !== null && free < MIN_FREE_BYTES) {
    throw new StorageFullError(
      'sqlite',
      `the disk of the SQLite event store at '${path}' has ${free} bytes free ` +
        `(under ${MIN_FREE_BYTES}); free space on it`,
    );
  }
}

/** Options for {@link SqliteEventStore}. */
export interface SqliteEventStoreOptions {
  /** The database file (`':memory:'` for a private one); its directory is created if missing. */
  path: string;
  /** How long a write waits for another process's lock before failing, in ms. @default 5000 */
  busyTimeoutMs?: number;
  /**
   * Commit the appends of what runs record while they play (`text.delta`, `thought.delta`,
   * `usage.reported`, `tool.call.started`, `tool.call.completed`, `message.completed`,
   * `node.updated`) together. The first such event of an event-loop turn opens a write
   * transaction that later ones (of any run on this connection) join, committed at the end
   * of the turn or after `GROUP_COMMIT_MAX_EVENTS` (1,000) events. Other events (a `run.*`
   * event, with the claim `claimAndAppend` or `endRun` write beside it) join that transaction
   * too, but their `append` resolves only once it has committed: durable when it resolves,
   * as always, with everything before it, while the runs of one turn share a commit. It trades:
   * another process sees such an event, and can write to the file, up to one turn later; a
   * process crash loses the current turn's held events; and another connection *in this process* that
   * writes to the same file while a group is open waits out its busy timeout, since the turn
   * cannot end while it waits. Stores in this module flush each other's groups first; other
   * code writing to the same file (a workflow checkpointer) must call
   * {@link SqliteEventStore.flushGroupCommits}. `false` commits every append before it
   * resolves, at roughly 40-60k one-event appends/s on a small VM.
   * @default true
   */
  groupCommit?: boolean;
  /**
   * Most free pages of the file a `pruneRuns` call gives back to the file system after it
   * commits (one bounded `PRAGMA incremental_vacuum` step, see vacuum.ts), which bounds the
   * time it adds to the call; the file shrinks at the next WAL checkpoint. `0` gives none
   * back (the pages are still reused by later writes).
   * @default 2048 (8 MiB at 4 KiB pages)
   */
  reclaimPagesPerPrune?: number;
}

export const DEFAULTS = {
  busyTimeoutMs: 5_000,
  groupCommit: true,
  reclaimPagesPerPrune: RECLAIM_PAGES_PER_STEP,
};
