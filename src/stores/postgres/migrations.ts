/**
 * The Postgres event store's schema: versioned migrations, and the statements that read
 * and write the current version, kept in one place as for SQLite.
 * Each applied migration is recorded in `schema_migrations` under its component's name, so
 * several components can share a schema, each with its own version sequence. Migrating runs
 * in one transaction that first takes a transaction-level advisory lock named after the
 * schema: two processes opening a fresh database at once serialize on it, and the second
 * finds nothing left to do (DDL is transactional in Postgres, so a failed step leaves
 * nothing behind).
 */
import pg, { type PoolClient } from 'pg';
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
import { EVALS_TABLES } from './evals-schema.js';

export type { Migration };

/**
 * An event row's `env`: NULL when the event (`event`'s columns, schema version `v`) has
 * its run's envelope (the `runs` row `run`), else `[v, session_id, namespace, origin]`
 * as JSON text (see `compactEnvelope` in shared/rows.ts, which reads it back).
 */
export function envSql(v: string, event: string, run: string): string {
  return `CASE WHEN ${run}.v = ${v}
      AND ${run}.session_id IS NOT DISTINCT FROM ${event}.session_id
      AND ${run}.namespace IS NOT DISTINCT FROM ${event}.namespace
      AND ${run}.origin = ${event}.origin
    THEN NULL
    ELSE json_build_array(${v}, ${event}.session_id, ${event}.namespace, ${event}.origin)::text
    END`;
}

/** The statuses of a run that has ended, as an SQL list. */
export const ENDED_SQL = "('completed', 'failed', 'cancelled')";

/**
 * The event store's schema. `events` is keyed by (run_id, seq). Unlike SQLite, `runs` also
 * keeps `last_seq` and `updated_at`: the row is the per-run counter every append locks
 * (an upsert), which is what keeps `seq` gap-free across processes, and it makes the run
 * index one row read. `created` orders runs started in the same millisecond. Timestamps and
 * payloads are the stored text of every backend, so they round-trip byte for byte; the
 * timestamps compare bytewise (COLLATE "C"), as ISO-8601 text must.
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
        ts TEXT COLLATE "C" NOT NULL,
        payload TEXT NOT NULL,
        PRIMARY KEY (run_id, seq)
      );
      CREATE TABLE runs (
        run_id TEXT PRIMARY KEY,
        created BIGINT GENERATED ALWAYS AS IDENTITY,
        origin TEXT NOT NULL,
        session_id TEXT,
        namespace TEXT,
        status TEXT NOT NULL,
        started_at TEXT COLLATE "C" NOT NULL,
        updated_at TEXT COLLATE "C" NOT NULL,
        last_seq INTEGER NOT NULL
      );
      CREATE INDEX runs_by_start ON runs (started_at, created);
      CREATE INDEX runs_by_session ON runs (session_id, started_at);
      CREATE TABLE claims (
        key TEXT PRIMARY KEY,
        run_id TEXT NOT NULL,
        claimed_at TEXT COLLATE "C" NOT NULL
      );
      CREATE TABLE control_requests (
        id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
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
    // `ended_at`: `updated_at` once the run has ended, NULL before. Pruning reads one range of
    // a partial index on it, and a run that plays never changes an indexed column (its
    // `ended_at` stays NULL), so its appends keep updating the row in place (HOT); an index
    // on (status, updated_at) would have cost every append an index write.
    version: 4,
    name: 'runs: when an ended run ended, indexed for pruning',
    compatibility: 'expand',
    release: '0.1.0',
    sql: `
      ALTER TABLE runs ADD COLUMN ended_at TEXT COLLATE "C";
      UPDATE runs SET ended_at = updated_at WHERE status IN ('completed', 'failed', 'cancelled');
      CREATE INDEX runs_by_end ON runs (ended_at, run_id) WHERE ended_at IS NOT NULL;
      CREATE INDEX runs_by_origin_end ON runs (origin, ended_at, run_id)
        WHERE ended_at IS NOT NULL;
    `,
  },
  {
    // Compact event rows: an event's envelope (v, session, namespace, origin) is kept once,
    // in its run's row (`runs.v` is new), and `env` holds it only for an event whose envelope
    // differs. The table is rewritten (a copy, then a swap) so existing rows shrink at once;
    // the fixed-width `seq` leads, so no padding sits between it and the text columns.
    version: 5,
    name: "events: the run's envelope once in runs",
    compatibility: 'breaking',
    release: '0.1.0',
    sql: `
      ALTER TABLE runs ADD COLUMN v INTEGER;
      UPDATE runs r SET v =
        (SELECT e.v FROM events e WHERE e.run_id = r.run_id ORDER BY e.seq LIMIT 1);
      CREATE TABLE events_compact (
        seq INTEGER NOT NULL,
        run_id TEXT NOT NULL,
        kind TEXT NOT NULL,
        ts TEXT COLLATE "C" NOT NULL,
        payload TEXT NOT NULL,
        env TEXT,
        PRIMARY KEY (run_id, seq)
      );
      INSERT INTO events_compact (seq, run_id, kind, ts, payload, env)
        SELECT e.seq, e.run_id, e.kind, e.ts, e.payload, ${envSql('e.v', 'e', 'r')}
        FROM events e LEFT JOIN runs r ON r.run_id = e.run_id;
      DROP TABLE events;
      ALTER TABLE events_compact RENAME TO events;
      ALTER INDEX events_compact_pkey RENAME TO events_pkey;
    `,
  },
  {
    // Listing by status (the inbox: `waiting_human`; the resume watch: `paused`; `GET /runs
    // ?status=`) reads one range of this index in ORDER BY's order. No column an append
    // changes (`updated_at`, `last_seq`) is in it, so appends stay HOT updates, as after
    // version 4; only a status change (a lifecycle event) writes it.
    version: 6,
    name: 'runs: indexed by status, newest first (inboxes)',
    compatibility: 'expand',
    release: '0.1.0',
    sql: 'CREATE INDEX runs_by_status ON runs (status, started_at, created)',
  },
  {
    // Listing one tenant's runs (`listRunsIn`: `GET /runs`, the inbox and a thread's run as a
    // tenant sees them, docs/tenants.md) reads one range of this index in ORDER BY's order,
    // as `runs_by_status` does for a status; appends stay HOT updates (no column they change).
    version: 7,
    name: 'runs: indexed by namespace (tenant), newest first',
    compatibility: 'expand',
    release: '0.1.0',
    sql: 'CREATE INDEX runs_by_namespace ON runs (namespace, started_at, created)',
  },
  {
    // The run queue (queue.ts; core/queue.ts): one entry per queued run, written with its
    // `run.queued` event. `ord` is enqueue order (first in first out within a key); times a
    // take compares are the process clock's epoch ms, as claims compare `claimed_at` with the
    // process clock: `available_ms` (not taken before), `lapse_ms` (a hold is live up to it:
    // taken or renewed + `lease_ms`); `taken_at` is the ISO text callers see. `bucket` is the
    // entry's `rateBucket(origin, key)`. Takes read waiting entries through the partial index
    // and count an origin and key's holds through the other; `queue_turns` keeps the turn
    // each key was last served at (`queue_turn`), and `queue_buckets` the token buckets.
    version: 8,
    name: 'run queue: entries, turns of keys, token buckets',
    compatibility: 'expand',
    release: '0.1.0',
    sql: `
      CREATE TABLE queue (
        run_id TEXT PRIMARY KEY,
        ord BIGINT GENERATED ALWAYS AS IDENTITY,
        priority INTEGER NOT NULL,
        attempts INTEGER NOT NULL DEFAULT 0,
        concurrency INTEGER,
        rate_limit INTEGER,
        rate_period_ms DOUBLE PRECISION,
        available_ms BIGINT NOT NULL,
        lease_ms INTEGER,
        lapse_ms BIGINT,
        origin TEXT NOT NULL,
        key TEXT NOT NULL,
        session_id TEXT,
        namespace TEXT,
        bucket TEXT,
        enqueued_at TEXT COLLATE "C" NOT NULL,
        taken_by TEXT,
        taken_at TEXT COLLATE "C"
      );
      CREATE INDEX queue_waiting ON queue (origin, priority DESC, ord) WHERE taken_by IS NULL;
      CREATE INDEX queue_held ON queue (origin, key) WHERE taken_by IS NOT NULL;
      CREATE INDEX queue_by_order ON queue (priority DESC, ord);
      CREATE SEQUENCE queue_turn;
      CREATE TABLE queue_turns (
        key TEXT PRIMARY KEY,
        turn BIGINT NOT NULL
      );
      CREATE TABLE queue_buckets (
        bucket TEXT PRIMARY KEY,
        tokens DOUBLE PRECISION NOT NULL,
        updated_ms BIGINT NOT NULL
      );
    `,
  },
  {
    // Evals (evals.ts, #41): datasets and their items in order (`position` 0, 1, 2...), and
    // experiments with the run each item played; `namespace` is the tenant, '' for none (a
    // key column). Inputs, references, variants and scorer lists are JSON text; names and
    // times sort by code point ("C"), as the other backends sort them.
    version: 9,
    name: 'evals: datasets, their items, experiments and their runs',
    compatibility: 'expand',
    release: '0.1.0',
    sql: EVALS_TABLES,
  },
];

/**
 * Bring `component`'s schema up to the last of `migrations`; returns the versions applied
 * (empty when already current). `schema` (first on the client's search path) is created if
 * missing; `null` uses the search path as it is. Throws the driver's error; callers wrap it.
 */
export async function migrate(
  client: PoolClient,
  schema: string | null,
  component: string,
  migrations: readonly Migration[],
): Promise<number[]> {
  await client.query('BEGIN');
  try {
    // Held to COMMIT; named after the schema so separate schemas (tests) do not wait on each other.
    await client.query('SELECT pg_advisory_xact_lock(hashtext($1))', [
      `agentdeck.migrate:${schema ?? ''}`,
    ]);
    if (schema !== null) await client.query(`CREATE SCHEMA IF NOT EXISTS ${quoteIdent(schema)}`);
    await client.query(`CREATE TABLE IF NOT EXISTS schema_migrations (
      component TEXT NOT NULL,
      version INTEGER NOT NULL,
      name TEXT NOT NULL,
      applied_at TEXT NOT NULL,
      PRIMARY KEY (component, version)
    )`);
    await client.query(SCHEMA_LAYOUT_TABLE);
    const { rows } = await client.query<{ version: number }>(
      'SELECT version FROM schema_migrations WHERE component = $1',
      [component],
    );
    const applied = new Set(rows.map((row) => Number(row.version)));
    const stored = Math.max(0, ...applied);
    const row = await readLayoutRow(client, component);
    const what = `the '${component}' schema${schema === null ? '' : ` in '${schema}'`}`;
    if (checkLayout(what, stored, row, migrations) === 'use') {
      await client.query('COMMIT');
      return [];
    }
    const done: number[] = [];
    for (const migration of [...migrations].sort((a, b) => a.version - b.version)) {
      if (applied.has(migration.version)) continue;
      await client.query(migration.sql);
      await client.query(
        'INSERT INTO schema_migrations (component, version, name, applied_at) VALUES ($1, $2, $3, $4)',
        [component, migration.version, migration.name, new Date().toISOString()],
      );
      done.push(migration.version);
    }
    const layout = layoutRow(migrations);
    if (
      !row ||
      Number(row.version) !== layout.version ||
      Number(row.oldest_usable) !== layout.oldest_usable
    ) {
      await client.query(
        `INSERT INTO schema_layout
          (component, version, oldest_usable, oldest_usable_release, written_by, updated_at)
          VALUES ($1, $2, $3, $4, $5, $6)
          ON CONFLICT (component) DO UPDATE SET version = excluded.version,
            oldest_usable = excluded.oldest_usable,
            oldest_usable_release = excluded.oldest_usable_release,
            written_by = excluded.written_by, updated_at = excluded.updated_at`,
        [
          component,
          layout.version,
          layout.oldest_usable,
          layout.oldest_usable_release,
          migrations.at(-1)?.release ?? '',
          new Date().toISOString(),
        ],
      );
    }
    await client.query('COMMIT');
    return done;
  } catch (error) {
    await client.query('ROLLBACK').catch(() => {});
    throw error;
  }
}

async function readLayoutRow(
  client: Pick<PoolClient, 'query'>,
  component: string,
): Promise<LayoutRow | undefined> {
  const { rows } = await client.query<LayoutRow>(
    'SELECT version, oldest_usable, oldest_usable_release FROM schema_layout WHERE component = $1',
    [component],
  );
  return rows[0];
}

/**
 * `component`'s layout as this code sees it (for `/health/ready` and `agentdeck status`),
 * read on the client's search path; layout 0 for a schema never migrated.
 */
export async function readLayout(
  client: Pick<PoolClient, 'query'>,
  component: string,
  migrations: readonly Migration[],
): Promise<StoreLayout> {
  const { rows: tables } = await client.query<{ m: string | null; l: string | null }>(
    "SELECT to_regclass('schema_migrations')::text AS m, to_regclass('schema_layout')::text AS l",
  );
  if (!tables[0]?.m) return reportLayout(undefined, 0, migrations);
  const { rows } = await client.query<{ v: number | null }>(
    'SELECT max(version) AS v FROM schema_migrations WHERE component = $1',
    [component],
  );
  const row = tables[0].l ? await readLayoutRow(client, component) : undefined;
  return reportLayout(row, Number(rows[0]?.v ?? 0), migrations);
}

/**
 * Run `body` while holding a session-level advisory lock named `name`, on a connection of its
 * own: for a schema setup that is not ours and takes no lock. LangGraph's
 * `PostgresSaver.setup()` runs its migrations outside a transaction, so two processes
 * starting at once on a fresh database race on them (a duplicate key in its migrations
 * table, or in `pg_type`); under this lock the second finds them done.
 */
export async function withAdvisoryLock<T>(
  url: string,
  name: string,
  body: () => Promise<T>,
): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  client.on('error', () => {}); // a broken lock connection fails the query below, not the process
  await client.connect();
  try {
    await client.query('SELECT pg_advisory_lock(hashtext($1))', [name]);
    return await body();
  } finally {
    // Ending the session frees the lock, whatever body did.
    await client.end().catch(() => {});
  }
}

/** An SQL identifier, quoted. */
export function quoteIdent(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}

const SUMMARY_COLUMNS =
  'run_id, origin, session_id, namespace, status, started_at, updated_at, last_seq';

/** The statements of the current schema (see append.ts for the append statements). */
export const SQL = {
  read: `SELECT e.run_id, e.seq, e.kind, e.ts, e.payload, e.env, r.v AS run_v,
      r.session_id AS run_session_id, r.namespace AS run_namespace, r.origin AS run_origin
    FROM events e LEFT JOIN runs r ON r.run_id = e.run_id
    WHERE e.run_id = $1 AND e.seq > $2 ORDER BY e.seq LIMIT $3`,
  getRun: `SELECT ${SUMMARY_COLUMNS} FROM runs WHERE run_id = $1`,
  runIdsStartingWith: `SELECT run_id FROM runs WHERE starts_with(run_id, $1)
    ORDER BY run_id COLLATE "C" LIMIT $2`,
  lockClaim: 'SELECT pg_advisory_xact_lock(hashtext($1))',
  claimHolder: 'SELECT run_id, claimed_at, lease_ms FROM claims WHERE key = $1',
  setClaim: `INSERT INTO claims (key, run_id, claimed_at, lease_ms) VALUES ($1, $2, $3, $4)
    ON CONFLICT (key) DO UPDATE SET run_id = excluded.run_id, claimed_at = excluded.claimed_at,
      lease_ms = excluded.lease_ms`,
  release: 'DELETE FROM claims WHERE key = $1 AND run_id = $2',
  insertControl: `INSERT INTO control_requests (request_id, run_id, verb, reason, requested_at)
    VALUES ($1, $2, $3, $4, $5)`,
  readControl: `SELECT request_id, run_id, verb, reason, requested_at FROM control_requests
    WHERE run_id = $1 ORDER BY id`,
  saveContinuation: `INSERT INTO continuations (run_id, state, saved_at) VALUES ($1, $2, $3)
    ON CONFLICT (run_id) DO UPDATE SET state = excluded.state, saved_at = excluded.saved_at`,
  readContinuation: 'SELECT state FROM continuations WHERE run_id = $1',
  dropContinuation: 'DELETE FROM continuations WHERE run_id = $1',
} as const;

/**
 * The runs a prune selects (`$1` the cut, `$2` the statuses, `$3` the limit, `$4` the origin
 * when `byOrigin`), longest-ended first: one range of `runs_by_end` (or `runs_by_origin_end`)
 * read in order. `lock` locks them, skipping rows another transaction holds (another pruner's,
 * or an appender's: a run taking events is not ended for long).
 */
export function pruneCandidatesSql(byOrigin: boolean, lock: boolean): string {
  return `SELECT ${SUMMARY_COLUMNS} FROM runs
    WHERE ended_at IS NOT NULL AND ended_at < $1 ${byOrigin ? 'AND origin = $4' : ''}
      AND status IN ${ENDED_SQL} AND status = ANY($2::text[])
    ORDER BY ended_at, run_id LIMIT $3${lock ? ' FOR UPDATE SKIP LOCKED' : ''}`;
}

/** Everything kept for the runs `$1` (locked), and their run-id reservations `$2`. */
export const PRUNE_RUNS = `
  WITH gone AS (
    DELETE FROM runs WHERE run_id = ANY($1::text[]) RETURNING run_id
  ), events_gone AS (
    DELETE FROM events WHERE run_id = ANY($1::text[])
  ), control_gone AS (
    DELETE FROM control_requests WHERE run_id = ANY($1::text[])
  ), continuations_gone AS (
    DELETE FROM continuations WHERE run_id = ANY($1::text[])
  ), queue_gone AS (
    DELETE FROM queue WHERE run_id = ANY($1::text[])
  ), reservations_gone AS (
    DELETE FROM claims WHERE key = ANY($2::text[])
  )
  SELECT count(*)::int AS pruned FROM gone`;

/** `listRuns` for a set of filter clauses (`$1`... in order); the limit is the last parameter. */
export function listRunsSql(where: readonly string[], limitParam: number): string {
  return `SELECT ${SUMMARY_COLUMNS} FROM runs
    ${where.length ? `WHERE ${where.join(' AND ')}` : ''}
    ORDER BY started_at DESC, created DESC LIMIT $${limitParam}`;
}

/** `listRuns` (of one namespace, when given): the statement and its parameters. */
export function listRunsQuery(
  filter: ListRunsFilter,
  namespace: string | undefined,
): { text: string; values: unknown[] } {
  const where: string[] = [];
  const values: unknown[] = [];
  const add = (column: string, value: string | undefined, op = '=') => {
    if (value === undefined) return;
    values.push(value);
    where.push(`${column} ${op} $${values.length}`);
  };
  add('namespace', namespace);
  add('status', filter.status);
  add('origin', filter.origin);
  add('session_id', filter.sessionId);
  add('started_at', filter.startedBefore, '<');
  if (filter.after) {
    // Keyset: the cursor run's `created` orders the runs of its millisecond, as ORDER BY does.
    values.push(filter.after.startedAt, filter.after.runId);
    where.push(
      `(started_at, created) < ($${values.length - 1}, ` +
        `coalesce((SELECT c.created FROM runs c WHERE c.run_id = $${values.length}), -1))`,
    );
  }
  values.push(Math.max(0, Math.floor(filter.limit ?? DEFAULT_LIST_LIMIT)));
  return { text: listRunsSql(where, values.length), values };
}
