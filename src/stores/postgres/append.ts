/**
 * Appending to the Postgres event store, durably: each run's share of a batch is ONE
 * statement (one round trip). It upserts the run's row in `runs`, which locks it until the
 * statement's transaction ends, and takes the next seqs from the row's `last_seq` counter;
 * the events are inserted in the same statement. Concurrent appenders to one run, in any
 * number of processes, therefore queue on that row lock and each sees the counter its
 * predecessor committed: seq is gap-free, and a failed statement rolls the counter back with
 * its events. A batch that spans several runs runs its statements in one transaction,
 * locking the runs in id order so two such batches cannot deadlock.
 *
 * The status fold (`nextStatus`) stays in TypeScript: the statement is given the status the
 * batch leads to from each possible current status, and picks the one matching the row.
 */
import type { Pool } from 'pg';
import { EVENT_SCHEMA_VERSION, type Event } from '../../core/events.js';
import { nextStatus, RUN_STATUSES, type RunStatus } from '../../core/status.js';
import { isoNow, type PreparedEvent, stampPrepared } from '../shared/stored-event.js';
import { ENDED_SQL, envSql } from './migrations.js';
import { inTransaction } from './pool.js';

/** Every status a run row can hold, to precompute a batch's effect on each. */
const STATUSES: readonly RunStatus[] = RUN_STATUSES;

/**
 * Upsert-and-lock a run's row, advancing its counter by `$7` (its status by the map `$8`),
 * all stamped with the later of the run's last `ts` and `$6` (and `ended_at` with it, once
 * the run has ended); `guard` may leave the row alone, and `gate`, given, writes nothing
 * (not even a new row) where it is false.
 */
export const upsertRun = (guard: string, gate?: string) => `
    INSERT INTO runs AS r
      (run_id, origin, session_id, namespace, status, started_at, updated_at, last_seq, ended_at, v)
    ${gate === undefined ? 'VALUES (' : 'SELECT '}$1, $2, $3, $4, $5, $6, $6, $7::int - 1,
      CASE WHEN $5::text IN ${ENDED_SQL} THEN $6::text END, $9::int${
        gate === undefined
          ? ')'
          : `
    WHERE ${gate}`
      }
    ON CONFLICT (run_id) DO UPDATE SET
      last_seq = r.last_seq + $7::int,
      updated_at = GREATEST(r.updated_at, $6),
      status = COALESCE($8::jsonb ->> r.status, r.status),
      ended_at = CASE WHEN COALESCE($8::jsonb ->> r.status, r.status) IN ${ENDED_SQL}
        THEN GREATEST(r.updated_at, $6) END
    ${guard}
    RETURNING last_seq, updated_at, v, session_id, namespace, origin`;

/**
 * Insert the events (`$9`: schema version, `$10`-`$14`: their columns) at the seqs `run`
 * freed, each with its envelope only where it differs from the run's row (see `envSql`).
 */
export const INSERT_AT_RUN = `
    INSERT INTO events (run_id, seq, kind, ts, payload, env)
    SELECT $1, run.last_seq - $7::int + e.ord, e.kind, run.updated_at, e.payload,
      ${envSql('$9::int', 'e', 'run')}
    FROM run, unnest($10::text[], $11::text[], $12::text[], $13::text[], $14::text[])
      WITH ORDINALITY AS e(kind, session_id, namespace, origin, payload, ord)`;

/** One run's events: its row upserted and locked, then the events at the seqs it frees. */
const APPEND_RUN = `
  WITH run AS (${upsertRun('')}
  ), inserted AS (${INSERT_AT_RUN}
  )
  SELECT last_seq, updated_at FROM run`;

/**
 * The CTEs of a new run's first events that write nothing when the run exists (the upsert
 * leaves its row alone and returns nothing): the start of a statement that goes on (the
 * run queue's `enqueue`, queue-sql.ts, adds its entry and the final SELECT).
 */
export const APPEND_RUN_GUARDED = `
  WITH run AS (${upsertRun('WHERE false')}
  ), inserted AS (${INSERT_AT_RUN}
  )`;

/**
 * A run's terminal event, appended unless the run has already ended (the upsert's `WHERE`
 * leaves an ended run's row alone and returns nothing, so nothing is inserted), and the
 * claim `$15` freed if the run holds it: one statement, one commit.
 */
const END_RUN = `
  WITH released AS (
    DELETE FROM claims WHERE key = $15 AND run_id = $1
  ), run AS (${upsertRun(`WHERE r.status NOT IN ${ENDED_SQL}`)}
  ), inserted AS (${INSERT_AT_RUN}
  )
  SELECT last_seq, updated_at FROM run`;

/**
 * A run's pause (`run.interrupted`, `run.paused`) appended and the claim `$15` it keeps
 * renewed without a lease (`claimed_at` `$16`), if the run holds it: one statement, one commit.
 * The renewal takes no advisory lock: a claimer holding it decides on the row as this commit
 * leaves it (its upsert re-reads a row updated meanwhile), as it does after a release.
 */
const PAUSE_RUN = `
  WITH kept AS (
    UPDATE claims SET claimed_at = $16, lease_ms = NULL WHERE key = $15 AND run_id = $1
  ), run AS (${upsertRun('')}
  ), inserted AS (${INSERT_AT_RUN}
  )
  SELECT last_seq, updated_at FROM run`;

/** A run's last stored event, as an append left it. */
export interface Tail {
  seq: number;
  ts: string;
}

/** Store `prepared` (not empty) durably; returns the stored events and each run's new tail. */
export async function appendDurably(
  pool: Pool,
  prepared: readonly PreparedEvent[],
): Promise<{ events: Event[]; tails: Map<string, Tail> }> {
  const byRun = new Map<string, PreparedEvent[]>();
  for (const item of prepared) {
    const list = byRun.get(item.event.runId);
    if (list) list.push(item);
    else byRun.set(item.event.runId, [item]);
  }
  const now = isoNow();
  const tails = new Map<string, Tail>();
  const [only, ...others] = byRun;
  if (only && others.length === 0) {
    // One run: one statement, its own transaction.
    tails.set(only[0], await appendRun(pool, only[1], now));
  } else {
    await inTransaction(pool, async (client) => {
      for (const runId of [...byRun.keys()].sort()) {
        tails.set(runId, await appendRun(client, byRun.get(runId) ?? [], now));
      }
    });
  }
  return { events: stampAtTails(prepared, tails), tails };
}

/**
 * One run's terminal event (`item`), unless the run has already ended, and the release of
 * `releaseKey` if the run holds it, in one statement (see END_RUN): the stored event and
 * the run's new tail, or `null` when the run had already ended.
 */
export async function endRun(
  pool: Pool,
  item: PreparedEvent,
  releaseKey: string | null,
): Promise<{ event: Event; tail: Tail } | null> {
  const tail = await appendRun(pool, [item], isoNow(), END_RUN, [releaseKey]);
  return tail ? { event: stampPrepared(item, tail.seq, tail.ts), tail } : null;
}

/** A run's pause (`item`) and the renewal of the claim `keepKey` in one statement (PAUSE_RUN). */
export async function pauseRun(
  pool: Pool,
  item: PreparedEvent,
  keepKey: string,
): Promise<{ event: Event; tail: Tail }> {
  const renewedAt = new Date().toISOString();
  const tail = await appendRun(pool, [item], isoNow(), PAUSE_RUN, [keepKey, renewedAt]);
  if (!tail) throw new Error(`the pause of run '${item.event.runId}' returned no row`);
  return { event: stampPrepared(item, tail.seq, tail.ts), tail };
}

/** Each run's events take the seqs that end at its new tail, in batch order. */
export function stampAtTails(
  prepared: readonly PreparedEvent[],
  tails: ReadonlyMap<string, Tail>,
): Event[] {
  const counts = new Map<string, number>();
  for (const item of prepared) {
    const { runId } = item.event;
    counts.set(runId, (counts.get(runId) ?? 0) + 1);
  }
  const next = new Map<string, number>();
  return prepared.map((item) => {
    const { runId } = item.event;
    const tail = tails.get(runId) as Tail;
    const count = counts.get(runId) ?? 0;
    const index = next.get(runId) ?? 0;
    next.set(runId, index + 1);
    return stampPrepared(item, tail.seq - count + 1 + index, tail.ts);
  });
}

export interface Queryable {
  query: Pool['query'];
}

/** One run's events in one statement (APPEND_RUN): the run's new tail. */
export async function appendRun(db: Queryable, items: PreparedEvent[], now: string): Promise<Tail>;
/** The same with another statement of the same shape and extra parameters; `null` when it returns no row. */
export async function appendRun(
  db: Queryable,
  items: PreparedEvent[],
  now: string,
  statement: string,
  extra: unknown[],
): Promise<Tail | null>;
export async function appendRun(
  db: Queryable,
  items: PreparedEvent[],
  now: string,
  statement = APPEND_RUN,
  extra: unknown[] = [],
): Promise<Tail | null> {
  const { runId } = (items[0] as PreparedEvent).event;
  const result = await db.query<{ last_seq: number; updated_at: string }>(statement, [
    ...appendValues(items, now),
    ...extra,
  ]);
  const row = result.rows[0];
  if (!row && statement !== APPEND_RUN) return null;
  if (!row) throw new Error(`the append statement for run '${runId}' returned no row`);
  return { seq: Number(row.last_seq), ts: String(row.updated_at) };
}

/** The parameters `$1`-`$14` of an append of one run's `items` (see {@link upsertRun}, {@link INSERT_AT_RUN}). */
export function appendValues(items: readonly PreparedEvent[], now: string): unknown[] {
  const [first] = items as [PreparedEvent, ...PreparedEvent[]];
  const { runId, origin, sessionId, namespace } = first.event;
  const lifecycle = items.filter((item) => item.lifecycle).map((i) => stampPrepared(i, 0, now));
  // Only lifecycle events move a status; a new run starts from 'pending' (see nextStatus).
  const fold = (from: RunStatus | null) =>
    lifecycle.reduce<RunStatus>((status, event) => nextStatus(status, event), from ?? 'pending');
  const statusMap = lifecycle.length
    ? JSON.stringify(Object.fromEntries(STATUSES.map((status) => [status, fold(status)])))
    : null;
  return [
    runId,
    origin,
    sessionId,
    namespace,
    fold(null),
    now,
    items.length,
    statusMap,
    EVENT_SCHEMA_VERSION,
    items.map((item) => item.kind),
    items.map((item) => item.event.sessionId),
    items.map((item) => item.event.namespace),
    items.map((item) => item.event.origin),
    items.map((item) => item.payload),
  ];
}
