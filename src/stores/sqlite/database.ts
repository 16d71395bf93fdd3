/**
 * Opening an SQLite file the way every store here does: the directory created, WAL
 * journaling (readers never block the writer) with `synchronous = NORMAL` (durable at each
 * checkpoint of the WAL, one fsync fewer per commit), a busy timeout for other processes'
 * locks; and preparing a store's statements once.
 */
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import type { DatabaseSync, StatementSync } from 'node:sqlite';
import { sqliteModule } from './driver.js';

export function openDatabaseFile(path: string, busyTimeoutMs: number): DatabaseSync {
  const inMemory = path === ':memory:';
  if (!inMemory && !path.startsWith('file:')) mkdirSync(dirname(path), { recursive: true });
  const db = new (sqliteModule().DatabaseSync)(path, { timeout: busyTimeoutMs });
  try {
    if (!inMemory) db.exec('PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL;');
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
