/**
 * Giving disk space back. An SQLite file never shrinks by itself: a DELETE puts the pages it
 * empties on the file's freelist, for later writes to reuse. With `auto_vacuum = INCREMENTAL`
 * the file keeps what moving pages needs (pointer maps), and `PRAGMA incremental_vacuum(N)`
 * moves up to N pages from the end of the file into free slots and cuts the end off (in WAL
 * mode, at the next checkpoint). A prune or a thread deletion runs one such bounded step after
 * it commits, so retention shrinks the file a few MiB at a time, off the hot path.
 *
 * The mode is part of the file: it can be chosen only before the first table is created,
 * which {@link openDatabaseFile} does for every new file. A file created before (mode NONE)
 * needs one full `VACUUM` to convert, which rewrites it whole, holding the write lock for the
 * time it takes (roughly 4 ms per MiB here, seconds per GiB on a busy disk) and needing free
 * space for a second copy in the WAL. So a store converts such a file when it opens it only
 * while it is small ({@link CONVERT_AT_OPEN_MAX_BYTES}: a fraction of a second); a larger one
 * is left as it is, said once, and converted by an explicit `SqliteEventStore.vacuum()` at a
 * quiet time. Until then pruning still frees pages for reuse: the file stops growing, it only
 * does not shrink.
 */
import type { DatabaseSync } from 'node:sqlite';
import { log } from '../../core/log.js';
import { flushGroupCommits } from './group-commit.js';

/** A file without incremental vacuum up to this size is converted when a store opens it. */
export const CONVERT_AT_OPEN_MAX_BYTES = 32 * 1024 * 1024;

/** Most pages one reclaiming step gives back: 8 MiB at 4 KiB pages, about 15 ms here. */
export const RECLAIM_PAGES_PER_STEP = 2_048;

/** SQLite's `PRAGMA auto_vacuum` values. */
const AUTO_VACUUM = { none: 0, full: 1, incremental: 2 } as const;

/** Files already told to be converted by hand, so it is said once per process. */
const told = new Set<string>();

function pragmaNumber(db: DatabaseSync, name: string): number {
  const row = db.prepare(`PRAGMA ${name}`).get();
  return Number(row?.[name] ?? 0);
}

/** The file's size in pages times the page size (the main file once checkpointed). */
export function databaseBytes(db: DatabaseSync): number {
  return pragmaNumber(db, 'page_count') * pragmaNumber(db, 'page_size');
}

/**
 * Choose incremental vacuum for a file that has no tables yet. Run first on a new
 * connection, before anything (even `journal_mode = WAL`) writes the file's first page.
 */
export function chooseIncrementalVacuum(db: DatabaseSync): void {
  if (pragmaNumber(db, 'auto_vacuum') === AUTO_VACUUM.none) {
    db.exec('PRAGMA auto_vacuum = INCREMENTAL');
  }
}

/**
 * A file that was created without incremental vacuum: converted now when it is small (a
 * failure, such as another process holding the lock, leaves it for the next open), otherwise
 * said once, with what to do.
 */
export function convertIfSmall(
  db: DatabaseSync,
  path: string,
  maxBytes: number = CONVERT_AT_OPEN_MAX_BYTES,
): void {
  if (pragmaNumber(db, 'auto_vacuum') !== AUTO_VACUUM.none) return;
  const bytes = databaseBytes(db);
  if (bytes <= maxBytes) {
    try {
      vacuumFile(db, path);
    } catch {
      // Busy or short of space: the file works as it is, and the next open tries again.
    }
    return;
  }
  if (told.has(path)) return;
  told.add(path);
  log.error(
    `[agentdeck] the SQLite file '${path}' (${Math.round(bytes / 1024 / 1024)} MiB) was created ` +
      'without incremental vacuum: pruned runs free space inside it for reuse, but the file ' +
      'will not shrink until it is converted once, with SqliteEventStore.vacuum() at a quiet ' +
      'time (it rewrites the file, and needs as much free disk again)',
  );
}

/**
 * Rewrite the whole file (`VACUUM`) in incremental-vacuum mode. Commits this process's open
 * group commits on the file first; throws the driver's error.
 */
export function vacuumFile(db: DatabaseSync, path: string): void {
  if (path !== ':memory:') flushGroupCommits(path);
  db.exec('PRAGMA auto_vacuum = INCREMENTAL');
  db.exec('VACUUM');
}

/**
 * Give up to `maxPages` free pages back to the file system, in one write of their own; the
 * main file shrinks at the next checkpoint. Nothing on a file without incremental vacuum.
 * Returns how many pages were given back. The caller has committed the groups that hold the
 * write lock. A failure (busy) is left to the next step: it is only housekeeping.
 */
export function reclaimFreePages(
  db: DatabaseSync,
  maxPages: number = RECLAIM_PAGES_PER_STEP,
): number {
  try {
    const free = pragmaNumber(db, 'freelist_count');
    if (free === 0 || maxPages <= 0) return 0;
    if (pragmaNumber(db, 'auto_vacuum') !== AUTO_VACUUM.incremental) return 0;
    // `exec`, not a prepared statement's `run()`: the pragma frees one page per step.
    db.exec(`PRAGMA incremental_vacuum(${Math.floor(maxPages)})`);
    return free - pragmaNumber(db, 'freelist_count');
  } catch {
    return 0;
  }
}
