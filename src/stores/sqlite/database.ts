/**
 * Opening an SQLite file the way every store here does: the directory created, incremental
 * vacuum for a new file (so pruning can shrink it, `vacuum.ts`), WAL journaling (readers
 * never block the writer) with `synchronous = NORMAL` (durable at each checkpoint of the
 * WAL, one fsync fewer per commit) and the WAL file cut back to {@link WAL_SIZE_LIMIT_BYTES}
 * whenever a checkpoint lets it start over (a burst of writes, a prune, a VACUUM, would
 * otherwise leave it at its largest size for good), a busy timeout for other processes'
 * locks; and preparing a store's statements once.
 */
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import type { DatabaseSync, StatementSync } from 'node:sqlite';
import { sqliteModule } from './driver.js';
import { chooseIncrementalVacuum, convertIfSmall } from './vacuum.js';

/**
 * The size the WAL file is cut back to after a checkpoint resets it (SQLite's
 * `journal_size_limit`): four times what SQLite's own automatic checkpoint lets it reach.
 */
export const WAL_SIZE_LIMIT_BYTES = 16 * 1024 * 1024;

export function openDatabaseFile(path: string, busyTimeoutMs: number): DatabaseSync {
  const inMemory = path === ':memory:';
  if (!inMemory && !path.startsWith('file:')) mkdirSync(dirname(path), { recursive: true });
  const db = new (sqliteModule().DatabaseSync)(path, { timeout: busyTimeoutMs });
  try {
    if (!inMemory) {
      chooseIncrementalVacuum(db); // first: `journal_mode = WAL` writes the file's first page
      db.exec(
        'PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL; ' +
          `PRAGMA journal_size_limit = ${WAL_SIZE_LIMIT_BYTES};`,
      );
      convertIfSmall(db, path);
    }
  } catch (error) {
    db.close();
    throw error;
  }
  return db;
}

/** Prepare each named statement of `sql` on `db`. */
export function prepareAll<K extends string>(
  db: DatabaseSync,
  sql: Record<K, string>,
): Record<K, StatementSync> {
  return Object.fromEntries(
    Object.entries<string>(sql).map(([name, text]) => [name, db.prepare(text)]),
  ) as Record<K, StatementSync>;
}
