/**
 * Versioned schema migrations for the SQLite stores. Each applied migration is recorded in
 * `schema_migrations` under its component's name, so several components (events, workflow
 * checkpoints...) can share one database file, each with its own version sequence. Opening
 * a store runs the missing migrations in one `BEGIN IMMEDIATE` transaction: two processes
 * opening a fresh file at once serialize on it, and the second finds nothing left to do.
 */
import type { DatabaseSync } from 'node:sqlite';

/** One schema step. Never edit a released migration; add the next version instead. */
export interface Migration {
  /** 1, 2, 3... in order, per component. */
  version: number;
  /** A few words on what the step does, recorded with it. */
  name: string;
  /** The statements, run as one script inside the migration transaction. */
  sql: string;
}

/**
 * The event store's schema. `events` is keyed by (run_id, seq) and stored WITHOUT ROWID, so a
 * run's events sit together in key order and an append writes one b-tree, not a table and an
 * index. `runs` holds what only lifecycle events change (status) and what the first event
 * fixes (origin, session, start); `updatedAt` and `lastSeq` are read from the run's last
 * event instead, so a `text.delta` never writes the index.
 */
export const EVENT_STORE_MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    name: 'events, run index, claims, control requests',
    sql: `
      CREATE TABLE events (
        run_id TEXT NOT NULL,
        seq INTEGER NOT NULL,
        v INTEGER NOT NULL,
        kind TEXT NOT NULL,
        session_id TEXT,
        namespace TEXT,
        origin TEXT NOT NULL,
        ts TEXT NOT NULL,
        payload TEXT NOT NULL,
        PRIMARY KEY (run_id, seq)
      ) WITHOUT ROWID;
      CREATE TABLE runs (
        run_id TEXT PRIMARY KEY,
        origin TEXT NOT NULL,
        session_id TEXT,
        namespace TEXT,
        status TEXT NOT NULL,
        started_at TEXT NOT NULL
      );
      CREATE INDEX runs_by_start ON runs (started_at);
      CREATE INDEX runs_by_session ON runs (session_id, started_at);
      CREATE TABLE claims (
        key TEXT PRIMARY KEY,
        run_id TEXT NOT NULL,
        claimed_at TEXT NOT NULL
      );
      CREATE TABLE control_requests (
        id INTEGER PRIMARY KEY,
        request_id TEXT NOT NULL UNIQUE,
        run_id TEXT NOT NULL,
        verb TEXT NOT NULL,
        reason TEXT,
        requested_at TEXT NOT NULL
      );
      CREATE INDEX control_requests_by_run ON control_requests (run_id, id);
    `,
  },
];

/**
 * Bring `component`'s schema up to the last of `migrations`; returns the versions applied
 * (empty when the file was already current). Throws the driver's error; callers wrap it.
 */
export function migrate(
  db: DatabaseSync,
  component: string,
  migrations: readonly Migration[],
): number[] {
  db.exec(`CREATE TABLE IF NOT EXISTS schema_migrations (
    component TEXT NOT NULL,
    version INTEGER NOT NULL,
    name TEXT NOT NULL,
    applied_at TEXT NOT NULL,
    PRIMARY KEY (component, version)
  )`);
  db.exec('BEGIN IMMEDIATE');
  try {
    const applied = new Set(
      db
        .prepare('SELECT version FROM schema_migrations WHERE component = ?')
        .all(component)
        .map((row) => Number(row.version)),
    );
    const record = db.prepare(
      'INSERT INTO schema_migrations (component, version, name, applied_at) VALUES (?, ?, ?, ?)',
    );
    const done: number[] = [];
    for (const migration of [...migrations].sort((a, b) => a.version - b.version)) {
      if (applied.has(migration.version)) continue;
      db.exec(migration.sql);
      record.run(component, migration.version, migration.name, new Date().toISOString());
      done.push(migration.version);
    }
    db.exec('COMMIT');
    return done;
  } catch (error) {
    if (db.isTransaction) db.exec('ROLLBACK');
    throw error;
  }
}
