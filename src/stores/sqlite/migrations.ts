/**
 * The SQLite event store's schema: versioned migrations, and the statements that read and
 * write the current version, kept here so that a schema change and the queries it affects
 * are made in one place (the row mappings both SQL stores share are in `shared/rows.ts`). Each applied migration is recorded in
 * `schema_migrations` under its component's name, so several components (events, workflow
 * checkpoints...) can share one database file, each with its own version sequence. Opening
 * a store runs the missing migrations in one `BEGIN IMMEDIATE` transaction: two processes
 * opening a fresh file at once serialize on it, and the second finds nothing left to do.
 */
import type { DatabaseSync, SQLInputValue, StatementSync } from 'node:sqlite';
import { DEFAULT_LIST_LIMIT, type ListRunsFilter } from '../../core/store.js';
import {
  checkLayout,
  type LayoutRow,
  layoutRow,
  type Migration,
  reportLayout,
  SCHEMA_LAYOUT_TABLE,
  type StoreLayout,
} from '../shared/migration.js';

export type { Migration };

/** `toISOString()` text of the years 1000-2999: `YYYY-MM-DDTHH:MM:SS.mmmZ`. */
const ISO_GLOB =
  '[12][0-9][0-9][0-9]-[01][0-9]-[0-3][0-9]T[0-2][0-9]:[0-5][0-9]:[0-5][0-9].[0-9][0-9][0-9]Z';

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
    compatibility: 'breaking',
    release: '0.1.0',
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
  {
    version: 2,
    name: "claims: the holder's lease (a live run renews within it)",
    compatibility: 'expand',
    release: '0.1.0',
    sql: 'ALTER TABLE claims ADD COLUMN lease_ms INTEGER',
  },
  {
    version: 3,
    name: 'continuations of paused runs',
    compatibility: 'expand',
    release: '0.1.0',
    sql: `
      CREATE TABLE continuations (
        run_id TEXT PRIMARY KEY,
        state TEXT NOT NULL,
        saved_at TEXT NOT NULL
      );
    `,
  },
  {
    // `ended_at`: the `ts` of an ended run's last event (NULL while it has not ended), so the
    // runs pruning selects are one range of a partial index, which only an ending writes.
    version: 4,
    name: 'runs: when an ended run ended, indexed for pruning',
    compatibility: 'expand',
    release: '0.1.0',
    sql: `
      ALTER TABLE runs ADD COLUMN ended_at TEXT;
      UPDATE runs SET ended_at =
        (SELECT ts FROM events e WHERE e.run_id = runs.run_id ORDER BY seq DESC LIMIT 1)
        WHERE status IN ('completed', 'failed', 'cancelled');
      CREATE INDEX runs_by_end ON runs (ended_at, run_id) WHERE ended_at IS NOT NULL;
      CREATE INDEX runs_by_origin_end ON runs (origin, ended_at, run_id)
        WHERE ended_at IS NOT NULL;
    `,
  },
  {
    // Compact event rows: an event's envelope (v, session, namespace, origin) is kept once,
    // in its run's row (`runs.v` is new), and `env` holds it only for an event whose envelope
    // differs; `ts` has no type, so it holds epoch milliseconds (an INTEGER) when the text is
    // canonical `toISOString()` output (checked by strftime giving it back), else the text.
    version: 5,
    name: "events: the run's envelope once in runs, ts as epoch milliseconds",
    compatibility: 'breaking',
    release: '0.1.0',
    sql: `
      ALTER TABLE runs ADD COLUMN v INTEGER;
      UPDATE runs SET v =
        (SELECT v FROM events e WHERE e.run_id = runs.run_id ORDER BY seq LIMIT 1);
      CREATE TABLE events_compact (
        run_id TEXT NOT NULL,
        seq INTEGER NOT NULL,
        kind TEXT NOT NULL,
        ts NOT NULL,
        payload TEXT NOT NULL,
        env TEXT,
        PRIMARY KEY (run_id, seq)
      ) WITHOUT ROWID;
      INSERT INTO events_compact (run_id, seq, kind, ts, payload, env)
        SELECT e.run_id, e.seq, e.kind,
          CASE WHEN e.ts GLOB '${ISO_GLOB}'
              AND strftime('%Y-%m-%dT%H:%M:%fZ', e.ts) = e.ts
            THEN CAST(round(unixepoch(e.ts, 'subsec') * 1000) AS INTEGER)
            ELSE e.ts END,
          e.payload,
          CASE WHEN r.run_id IS NOT NULL AND r.v IS e.v AND r.session_id IS e.session_id
              AND r.namespace IS e.namespace AND r.origin IS e.origin
            THEN NULL
            ELSE json_array(e.v, e.session_id, e.namespace, e.origin) END
        FROM events e LEFT JOIN runs r ON r.run_id = e.run_id;
      DROP TABLE events;
      ALTER TABLE events_compact RENAME TO events;
    `,
  },
  {
    // Listing by status (the inbox: `waiting_human`; the resume watch: `paused`; `GET /runs
    // ?status=`) reads one range of this index, newest first (the rowid, implicit in the
    // index, breaks ties as ORDER BY does). A partial index on the waiting statuses would be
    // smaller, but SQLite does not prove `status = ?` (or a literal) implies `status IN (...)`,
    // so it would never be used; and a `runs` row is written only by lifecycle events (a run's
    // start, a pause or question, its end), so the whole index costs an append nothing.
    version: 6,
    name: 'runs: indexed by status, newest first (inboxes)',
    compatibility: 'expand',
    release: '0.1.0',
    sql: 'CREATE INDEX runs_by_status ON runs (status, started_at)',
  },
  {
    // Listing one tenant's runs (`listRunsIn`: `GET /runs`, the inbox and a thread's run as a
    // tenant sees them, docs/tenants.md) reads one range of this index, newest first, as
    // `runs_by_status` does for a status. Only lifecycle events write a `runs` row.
    version: 7,
    name: 'runs: indexed by namespace (tenant), newest first',
    compatibility: 'expand',
    release: '0.1.0',
    sql: 'CREATE INDEX runs_by_namespace ON runs (namespace, started_at)',
  },
  {
    // The run queue (queue.ts): one entry per queued run, `seq` its enqueue order; `ready_at`
    // (epoch ms) is when a take may have it: a waiting entry's `available_at`, a held one's
    // `taken_at` + `lease_ms` + 1 (its hold lapsed), so the candidates are one range per origin.
    // `queue_turns`: when each key was last served (a counter, fair turns); `queue_buckets`:
    // the token buckets (`updated_at` in epoch ms).
    version: 8,
    name: 'run queue: entries, the turns of keys, token buckets',
    compatibility: 'expand',
    release: '0.1.0',
    sql: `
      CREATE TABLE queue_entries (
        seq INTEGER PRIMARY KEY AUTOINCREMENT,
        run_id TEXT NOT NULL UNIQUE,
        origin TEXT NOT NULL,
        session_id TEXT,
        namespace TEXT,
        key TEXT NOT NULL,
        priority INTEGER NOT NULL,
        concurrency INTEGER,
        rate_limit INTEGER,
        rate_period_ms REAL,
        enqueued_at TEXT NOT NULL,
        available_at TEXT NOT NULL,
        attempts INTEGER NOT NULL DEFAULT 0,
        taken_by TEXT,
        taken_at TEXT,
        lease_ms INTEGER NOT NULL DEFAULT 0,
        ready_at INTEGER NOT NULL
      );
      CREATE INDEX queue_by_ready ON queue_entries (origin, ready_at);
      CREATE INDEX queue_by_order ON queue_entries (priority DESC, seq);
      CREATE INDEX queue_holds ON queue_entries (origin, key, ready_at) WHERE taken_by IS NOT NULL;
      CREATE TABLE queue_turns (key TEXT PRIMARY KEY, turn INTEGER NOT NULL);
      CREATE INDEX queue_turns_by_turn ON queue_turns (turn);
      CREATE TABLE queue_buckets (
        bucket TEXT PRIMARY KEY,
        tokens REAL NOT NULL,
        updated_at INTEGER NOT NULL
      );
    `,
  },
  {
    // Evals (evals.ts, #41): datasets and their items in order (`position` 0, 1, 2...), and
    // experiments with the run each item played; `namespace` is the tenant, '' for none (a
    // key column). Inputs, references, variants and scorer lists are JSON text.
    version: 9,
    name: 'evals: datasets, their items, experiments and their runs',
    compatibility: 'expand',
    release: '0.1.0',
    sql: `
      CREATE TABLE eval_datasets (
        namespace TEXT NOT NULL,
        name TEXT NOT NULL,
        description TEXT NOT NULL,
        created_at TEXT NOT NULL,
        PRIMARY KEY (namespace, name)
      );
      CREATE TABLE eval_items (
        namespace TEXT NOT NULL,
        dataset TEXT NOT NULL,
        position INTEGER NOT NULL,
        id TEXT NOT NULL,
        input TEXT NOT NULL,
        reference TEXT NOT NULL,
        run_id TEXT,
        PRIMARY KEY (namespace, dataset, position)
      );
      CREATE TABLE eval_experiments (
        id TEXT PRIMARY KEY,
        namespace TEXT NOT NULL,
        name TEXT NOT NULL,
        dataset TEXT NOT NULL,
        target_type TEXT NOT NULL,
        target_name TEXT NOT NULL,
        variant TEXT NOT NULL,
        scorers TEXT NOT NULL,
        status TEXT NOT NULL,
        error TEXT,
        created_at TEXT NOT NULL
      );
      CREATE INDEX eval_experiments_by_namespace ON eval_experiments (namespace, created_at);
      CREATE TABLE eval_experiment_items (
        experiment_id TEXT NOT NULL,
        position INTEGER NOT NULL,
        item_id TEXT NOT NULL,
        run_id TEXT,
        PRIMARY KEY (experiment_id, position)
      );
    `,
  },
];

/**
 * Bring `component`'s schema up to the last of `migrations`; returns the versions applied
 * (empty when the file was already current, or ahead of this code by expansions only: a
 * newer release's rolling upgrade, shared/migration.ts). Throws a `ConfigError` when the file
 * is ahead by a contraction; otherwise the driver's error, which callers wrap.
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
  db.exec(SCHEMA_LAYOUT_TABLE);
  db.exec('BEGIN IMMEDIATE');
  try {
    const applied = new Set(
      db
        .prepare('SELECT version FROM schema_migrations WHERE component = ?')
        .all(component)
        .map((row) => Number(row.version)),
    );
    const stored = Math.max(0, ...applied);
    const row = readLayoutRow(db, component);
    if (checkLayout(`the '${component}' schema`, stored, row, migrations) === 'use') {
      db.exec('COMMIT');
      return [];
    }
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
    const layout = layoutRow(migrations);
    if (
      !row ||
      Number(row.version) !== layout.version ||
      Number(row.oldest_usable) !== layout.oldest_usable
    ) {
      db.prepare(
        `INSERT INTO schema_layout
          (component, version, oldest_usable, oldest_usable_release, written_by, updated_at)
          VALUES (?, ?, ?, ?, ?, ?)
          ON CONFLICT (component) DO UPDATE SET version = excluded.version,
            oldest_usable = excluded.oldest_usable,
            oldest_usable_release = excluded.oldest_usable_release,
            written_by = excluded.written_by, updated_at = excluded.updated_at`,
      ).run(
        component,
        layout.version,
        layout.oldest_usable,
        layout.oldest_usable_release,
        migrations.at(-1)?.release ?? '',
        new Date().toISOString(),
      );
    }
    db.exec('COMMIT');
    return done;
  } catch (error) {
    if (db.isTransaction) db.exec('ROLLBACK');
    throw error;
  }
}

function readLayoutRow(db: DatabaseSync, component: string): LayoutRow | undefined {
  const row = db
    .prepare(
      'SELECT version, oldest_usable, oldest_usable_release FROM schema_layout WHERE component = ?',
    )
    .get(component);
  return row as LayoutRow | undefined;
}

/**
 * `component`'s layout in the file as this code sees it (for `/health/ready` and `agentdeck
 * status`); reads only, and reports layout 0 for a file never migrated.
 */
export function readLayout(
  db: DatabaseSync,
  component: string,
  migrations: readonly Migration[],
): StoreLayout {
  const has = (table: string) =>
    db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?").get(table) !==
    undefined;
  if (!has('schema_migrations')) return reportLayout(undefined, 0, migrations);
  const top = db
    .prepare('SELECT max(version) AS v FROM schema_migrations WHERE component = ?')
    .get(component) as { v: number | null } | undefined;
  const row = has('schema_layout') ? readLayoutRow(db, component) : undefined;
  return reportLayout(row, Number(top?.v ?? 0), migrations);
}

/** The statements the event store prepares once, against the last migration's schema. */
export const SQL = {
  begin: 'BEGIN IMMEDIATE',
  commit: 'COMMIT',
  rollback: 'ROLLBACK',
  savepoint: 'SAVEPOINT append',
  releaseSavepoint: 'RELEASE append',
  rollbackSavepoint: 'ROLLBACK TO append',
  insertEvent: 'INSERT INTO events (run_id, seq, kind, ts, payload, env) VALUES (?, ?, ?, ?, ?, ?)',
  tail: 'SELECT seq, ts FROM events WHERE run_id = ? ORDER BY seq DESC LIMIT 1',
  read: `SELECT e.run_id, e.seq, e.kind, e.ts, e.payload, e.env, r.v AS run_v,
      r.session_id AS run_session_id, r.namespace AS run_namespace, r.origin AS run_origin
    FROM events e LEFT JOIN runs r ON r.run_id = e.run_id
    WHERE e.run_id = ? AND e.seq > ? ORDER BY e.seq LIMIT ?`,
  runRow: 'SELECT status, v, origin, session_id, namespace FROM runs WHERE run_id = ?',
  insertRun: `INSERT INTO runs (run_id, origin, session_id, namespace, status, started_at, ended_at, v)
    VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
  updateStatus: 'UPDATE runs SET status = ?, ended_at = ? WHERE run_id = ?',
  getRun: `SELECT r.run_id, r.origin, r.session_id, r.namespace, r.status, r.started_at,
      e.seq AS last_seq, e.ts AS updated_at
    FROM runs r JOIN events e ON e.run_id = r.run_id
    WHERE r.run_id = ? ORDER BY e.seq DESC LIMIT 1`,
  // A range of the primary key (?2 is the prefix and the last code point), checked exactly.
  runIdsStartingWith: `SELECT run_id FROM runs WHERE run_id >= ?1 AND run_id < ?2
    AND substr(run_id, 1, length(?1)) = ?1 ORDER BY run_id LIMIT ?3`,
  claimHolder: 'SELECT run_id, claimed_at, lease_ms FROM claims WHERE key = ?',
  setClaim: `INSERT INTO claims (key, run_id, claimed_at, lease_ms) VALUES (?, ?, ?, ?)
    ON CONFLICT (key) DO UPDATE SET run_id = excluded.run_id, claimed_at = excluded.claimed_at,
      lease_ms = excluded.lease_ms`,
  release: 'DELETE FROM claims WHERE key = ? AND run_id = ?',
  insertControl: `INSERT INTO control_requests (request_id, run_id, verb, reason, requested_at)
    VALUES (?, ?, ?, ?, ?)`,
  readControl: `SELECT request_id, run_id, verb, reason, requested_at FROM control_requests
    WHERE run_id = ? ORDER BY id`,
  saveContinuation: `INSERT INTO continuations (run_id, state, saved_at) VALUES (?, ?, ?)
    ON CONFLICT (run_id) DO UPDATE SET state = excluded.state, saved_at = excluded.saved_at`,
  readContinuation: 'SELECT state FROM continuations WHERE run_id = ?',
  dropContinuation: 'DELETE FROM continuations WHERE run_id = ?',
  pruneEvents: 'DELETE FROM events WHERE run_id = ?',
  pruneRun: 'DELETE FROM runs WHERE run_id = ?',
  pruneControl: 'DELETE FROM control_requests WHERE run_id = ?',
  pruneClaim: 'DELETE FROM claims WHERE key = ?',
  pruneQueue: 'DELETE FROM queue_entries WHERE run_id = ?',
} as const;

export type Statements = { [K in keyof typeof SQL]: StatementSync };

/**
 * The runs a prune selects (`?1` the cut, `?2` the statuses as a JSON array, `?3` the limit,
 * `?4` the origin when `byOrigin`), longest-ended first: one range of `runs_by_end` (or
 * `runs_by_origin_end`), read in order up to the limit (`+r.status` keeps the planner off
 * `runs_by_status`, which would sort). The index rows as `getRun` gives them.
 */
export function pruneCandidatesSql(byOrigin: boolean): string {
  return `SELECT r.run_id, r.origin, r.session_id, r.namespace, r.status, r.started_at,
      (SELECT seq FROM events e WHERE e.run_id = r.run_id ORDER BY seq DESC LIMIT 1) AS last_seq,
      (SELECT ts FROM events e WHERE e.run_id = r.run_id ORDER BY seq DESC LIMIT 1) AS updated_at
    FROM runs r
    WHERE r.ended_at IS NOT NULL AND r.ended_at < ?1 ${byOrigin ? 'AND r.origin = ?4' : ''}
      AND +r.status IN ('completed', 'failed', 'cancelled')
      AND +r.status IN (SELECT value FROM json_each(?2))
    ORDER BY r.ended_at, r.run_id LIMIT ?3`;
}

/**
 * `listRuns` for a set of filter clauses; `updated_at` and `last_seq` come from each run's
 * last event (one primary-key probe each), so appends never write them.
 */
export function listRunsSql(where: readonly string[]): string {
  return `SELECT r.run_id, r.origin, r.session_id, r.namespace, r.status, r.started_at,
      (SELECT seq FROM events e WHERE e.run_id = r.run_id ORDER BY seq DESC LIMIT 1) AS last_seq,
      (SELECT ts FROM events e WHERE e.run_id = r.run_id ORDER BY seq DESC LIMIT 1) AS updated_at
    FROM runs r ${where.length ? `WHERE ${where.join(' AND ')}` : ''}
    ORDER BY r.started_at DESC, r.rowid DESC LIMIT ?`;
}

/** `listRuns`' statement and parameters for `filter`, within `namespace` when given. */
export function listRunsQuery(
  filter: ListRunsFilter,
  namespace: string | undefined,
): { sql: string; params: SQLInputValue[] } {
  const where: string[] = [];
  const params: SQLInputValue[] = [];
  const add = (clause: string, value: string | undefined) => {
    if (value === undefined) return;
    where.push(clause);
    params.push(value);
  };
  add('r.namespace = ?', namespace);
  add('r.status = ?', filter.status);
  add('r.origin = ?', filter.origin);
  add('r.session_id = ?', filter.sessionId);
  add('r.started_at < ?', filter.startedBefore);
  if (filter.after) {
    // Keyset: the cursor run's rowid orders the runs of its millisecond, as ORDER BY does.
    where.push(
      '(r.started_at, r.rowid) < (?, coalesce((SELECT c.rowid FROM runs c WHERE c.run_id = ?), -1))',
    );
    params.push(filter.after.startedAt, filter.after.runId);
  }
  params.push(Math.max(0, Math.floor(filter.limit ?? DEFAULT_LIST_LIMIT)));
  return { sql: listRunsSql(where), params };
}
