/**
 * Test support: SQLite event stores on files of their own, in temporary directories that are
 * removed (and stores closed) after each test.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { DatabaseSync } from 'node:sqlite';
import { SqliteEventStore, type SqliteEventStoreOptions } from '../../src/stores/sqlite/events.js';
import { listRunsSql } from '../../src/stores/sqlite/migrations.js';
import { afterEachTest } from './after-each-test.js';

const dirs: string[] = [];
const stores: SqliteEventStore[] = [];

afterEachTest(async () => {
  for (const store of stores.splice(0)) await store.close();
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A path `state.db` in a new temporary directory (`prefix` names it, for a reader of /tmp). */
export function tempStateFile(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), `agentdeck-${prefix}-`));
  dirs.push(dir);
  return join(dir, 'state.db');
}

/** An event store on `path`, closed after the test. */
export function openSqliteStore(
  path: string,
  options: Partial<SqliteEventStoreOptions> = {},
): SqliteEventStore {
  const store = new SqliteEventStore({ path, ...options });
  stores.push(store);
  return store;
}

/** The listing's cursor condition (`after` a run), with its two parameters. */
export const LISTING_AFTER =
  '(r.started_at, r.rowid) < (?, coalesce((SELECT c.rowid FROM runs c WHERE c.run_id = ?), -1))';

/** The steps of SQLite's plan for the run listing filtered by `where` (`args`: its parameters). */
export function listingPlan(db: DatabaseSync, where: string[], args: unknown[]): string[] {
  return db
    .prepare(`EXPLAIN QUERY PLAN ${listRunsSql(where)}`)
    .all(...(args as string[]), 50)
    .map((row) => String(row.detail));
}
