/**
 * Whether a server is serving on an SQLite state file, as the operating system knows it. Each
 * `agentdeck serve` on the file holds a shared lock on a small file beside it
 * (`<file>-serving`, an SQLite database that is never written) for as long as it runs; a
 * command that must not run under a server (`agentdeck runs vacuum`, which rewrites the file
 * whole and holds its write lock meanwhile, so a server's writes would wait and fail) takes
 * that file's exclusive lock, which it gets only when no server holds a shared one, and holds
 * it while it works, so no server starts meanwhile. The locks are SQLite's own file locks, so
 * a server that dies, even by SIGKILL, lets go of its lock with its process: no pid to check,
 * no lease to wait out. Several servers on one file hold theirs together.
 */
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { StoreError } from '../../core/errors.js';

/** SQLite's result code for a lock another connection holds. */
const SQLITE_BUSY = 5;

/** The file servers lock beside the state file `path`. */
export function servingLockPath(path: string): string {
  return `${path}-serving`;
}

/** A serving lock held; `release()` lets it go (the process's end does too). */
export interface ServingLock {
  release(): void;
}

/**
 * Hold the shared serving lock of the state file `path` while this process serves on it.
 * Throws a StoreError, saying so, when a command holds the file's exclusive lock (a vacuum).
 */
export function holdServingLock(path: string): ServingLock {
  const db = openLockFile(path);
  try {
    // A read transaction keeps its shared lock until it ends.
    db.exec('BEGIN');
    db.prepare('SELECT count(*) FROM sqlite_schema').get();
  } catch (error) {
    db.close();
    if (!isBusy(error)) throw error;
    throw new StoreError(
      `'agentdeck runs vacuum' is rewriting ${path}; start the server again when it is done`,
    );
  }
  return {
    release() {
      if (db.isOpen) db.close();
    },
  };
}

/**
 * Run `work` holding the exclusive serving lock of the state file `path`, so that no server
 * serves on it meanwhile; `null`, and `work` not run, when a server holds its lock.
 */
export async function withNoServer<T>(path: string, work: () => Promise<T>): Promise<T | null> {
  const db = openLockFile(path);
  try {
    try {
      db.exec('BEGIN EXCLUSIVE');
    } catch (error) {
      if (isBusy(error)) return null;
      throw error;
    }
    return await work();
  } finally {
    db.close();
  }
}

function openLockFile(path: string): DatabaseSync {
  mkdirSync(dirname(path), { recursive: true });
  const db = new DatabaseSync(servingLockPath(path));
  db.exec('PRAGMA busy_timeout = 0');
  return db;
}

function isBusy(error: unknown): boolean {
  return (error as { errcode?: unknown } | null)?.errcode === SQLITE_BUSY;
}
