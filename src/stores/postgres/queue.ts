/**
 * The run queue on Postgres (the RunQueue ability, core/queue.ts; statements in queue-sql.ts,
 * tables in migration 8), shared by every process on the database.
 *
 * `enqueue` is one statement: the run's row and its `run.queued` event (append.ts's
 * statement, guarded so that a run with events writes nothing), the entry, and the notice.
 *
 * `take` takes one entry per statement, in a loop, so that each pick sees the turns the one
 * before it advanced (keys alternate within one call too). The pick locks its entry
 * `FOR UPDATE SKIP LOCKED`, so two takers, in any processes, never get one entry: one skips
 * a row the other holds locked, and a row taken meanwhile no longer passes the pick's
 * condition when rechecked. An entry with a concurrency limit is taken in a transaction that
 * first takes an advisory lock named after its bucket (origin and key): takers of one group
 * queue on it, and the statement after the lock counts every hold committed before it. Such a
 * transaction takes one entry and commits, so no taker waits for a lock while holding another
 * group's (no deadlock). Tokens are spent by an upsert of the bucket's row, atomic across
 * processes, with `takeToken`'s.
 */
import type pg from 'pg';
import { ConflictError, InvalidInputError, StoreError } from '../../core/errors.js';
import type { Event } from '../../core/events.js';
import {
  msUntilToken,
  type QueueEntry,
  type QueueLimits,
  type RateLimit,
  rateBucket,
  refilled,
  type TakeRequest,
  type TokenResult,
} from '../../core/queue.js';
import { isoNow, type PreparedEvent, stampPrepared } from '../shared/stored-event.js';
import { APPEND_RUN_GUARDED, appendRun } from './append.js';
import { inTransaction } from './pool.js';
import { QUEUE_SQL } from './queue-sql.js';

interface EntryRow {
  run_id: string;
  origin: string;
  session_id: string | null;
  namespace: string | null;
  key: string;
  priority: number;
  concurrency: number | null;
  rate_limit: number | null;
  rate_period_ms: number | null;
  enqueued_at: string;
  available_ms: string | number;
  attempts: number;
  taken_by: string | null;
  taken_at: string | null;
}

interface TakeRow extends EntryRow {
  group_origin: string;
  group_key: string;
  limited: boolean;
  ok: boolean;
  taken_id: string | null;
}

/** Append `item` (a `run.queued`, validated) with its entry; ConflictError if the run exists. */
export async function enqueue(
  pool: pg.Pool,
  item: PreparedEvent,
  limits: QueueLimits,
): Promise<Event> {
  const { event } = item;
  if (event.kind !== 'run.queued') throw new InvalidInputError('enqueue takes a run.queued event');
  const { key, priority } = event.payload;
  const now = isoNow();
  const { concurrency, rate } = limits;
  const tail = await appendRun(pool, [item], now, APPEND_RUN_GUARDED + QUEUE_SQL.enqueueTail, [
    key,
    priority,
    concurrency,
    rate?.limit ?? null,
    rate?.periodMs ?? null,
    rate ? rateBucket(event.origin, key) : null,
    Date.parse(now),
  ]);
  if (!tail) {
    throw new ConflictError(`run '${event.runId}' already exists; a queued run needs a new id`);
  }
  return stampPrepared(item, tail.seq, tail.ts);
}

/** Take up to `max` entries for `worker` (see the file's comment). */
export async function take(pool: pg.Pool, request: TakeRequest): Promise<QueueEntry[]> {
  const { worker, origins, leaseMs } = request;
  const max = Math.max(0, Math.floor(request.max));
  const taken: QueueEntry[] = [];
  if (origins.length === 0) return taken;
  // Origin and key pairs passed over for the rest of this call (full, or out of tokens).
  const skipOrigins: string[] = [];
  const skipKeys: string[] = [];
  // One clock reading for the call, as the memory queue's: an entry taken in it is live through it.
  const now = Date.now();
  while (taken.length < max) {
    const params = [origins, now, skipOrigins, skipKeys, null, null, worker, iso(now), leaseMs];
    let row = await takeOne(pool, params);
    if (!row) break;
    if (!row.taken_id && row.limited && row.ok === false) {
      const group = [row.group_origin, row.group_key];
      row = await takeInGroup(pool, [...params.slice(0, 4), ...group, ...params.slice(6)]);
    }
    if (row?.taken_id) {
      taken.push(toEntry(row));
    } else if (row) {
      skipOrigins.push(row.group_origin);
      skipKeys.push(row.group_key);
    }
  }
  return taken;
}

async function takeOne(pool: pg.Pool, params: unknown[]): Promise<TakeRow | null> {
  const { rows } = await pool.query<TakeRow>(QUEUE_SQL.take, params);
  return rows[0] ?? null;
}

/**
 * Take the best entry of one origin and key (`params[4]`, `params[5]`) under the group's lock,
 * in a transaction of its own. Returns a row naming the group even when nothing fits.
 */
async function takeInGroup(pool: pg.Pool, params: unknown[]): Promise<TakeRow> {
  const [origin, key] = [String(params[4]), String(params[5])];
  const rows = await inTransaction(pool, async (client) => {
    await client.query(QUEUE_SQL.lockGroup, [`agentdeck.queue:${rateBucket(origin, key)}`]);
    return (await client.query<TakeRow>(QUEUE_SQL.take, params)).rows;
  });
  const none = { group_origin: origin, group_key: key, limited: true, ok: false, taken_id: null };
  return rows[0] ?? (none as TakeRow);
}

export async function renewTaken(
  pool: pg.Pool,
  worker: string,
  runIds: readonly string[],
): Promise<string[]> {
  if (runIds.length === 0) return [];
  const now = Date.now();
  const { rows } = await pool.query<{ run_id: string }>(QUEUE_SQL.renew, [
    worker,
    runIds,
    iso(now),
    now,
  ]);
  const renewed = new Set(rows.map((row) => row.run_id));
  return runIds.filter((runId) => renewed.has(runId));
}

export async function finishTaken(pool: pg.Pool, runId: string, worker: string): Promise<boolean> {
  const result = await pool.query(QUEUE_SQL.finish, [runId, worker]);
  return (result.rowCount ?? 0) > 0;
}

export async function giveBack(
  pool: pg.Pool,
  runId: string,
  worker: string,
  availableAt: string,
): Promise<boolean> {
  const at = Date.parse(availableAt);
  if (Number.isNaN(at)) {
    throw new InvalidInputError(`giveBack needs an ISO 8601 time, got '${availableAt}'`);
  }
  const result = await pool.query(QUEUE_SQL.giveBack, [runId, worker, at]);
  return (result.rowCount ?? 0) > 0;
}

export async function dropWaiting(pool: pg.Pool, runId: string): Promise<boolean> {
  const result = await pool.query(QUEUE_SQL.dropWaiting, [runId]);
  return (result.rowCount ?? 0) > 0;
}

export async function queueEntry(pool: pg.Pool, runId: string): Promise<QueueEntry | null> {
  const { rows } = await pool.query<EntryRow>(QUEUE_SQL.entry, [runId]);
  return rows[0] ? toEntry(rows[0]) : null;
}

export async function listQueue(pool: pg.Pool, limit: number): Promise<QueueEntry[]> {
  const { rows } = await pool.query<EntryRow>(QUEUE_SQL.list, [Math.max(0, Math.floor(limit))]);
  return rows.map(toEntry);
}

/** One upsert when a token is there; a refusal reads the bucket to say how long to wait. */
export async function takeToken(
  pool: pg.Pool,
  bucket: string,
  rate: RateLimit,
): Promise<TokenResult> {
  const now = Date.now();
  const spent = await pool.query(QUEUE_SQL.takeToken, [bucket, rate.limit, rate.periodMs, now]);
  if ((spent.rowCount ?? 0) > 0) return { ok: true };
  const { rows } = await pool.query<{ tokens: number; updated_ms: string }>(QUEUE_SQL.bucket, [
    bucket,
  ]);
  const row = rows[0];
  if (!row) throw new StoreError(`token bucket '${bucket}' refused a token, yet it is not there`);
  const tokens = refilled(Number(row.tokens), now - Number(row.updated_ms), rate);
  return { ok: false, retryAfterMs: msUntilToken(tokens, rate) };
}

function iso(ms: number): string {
  return new Date(ms).toISOString();
}

function toEntry(row: EntryRow): QueueEntry {
  const rate =
    row.rate_limit === null
      ? null
      : { limit: Number(row.rate_limit), periodMs: Number(row.rate_period_ms) };
  return {
    runId: row.run_id,
    origin: row.origin,
    sessionId: row.session_id,
    namespace: row.namespace,
    key: row.key,
    priority: Number(row.priority),
    limits: { concurrency: row.concurrency === null ? null : Number(row.concurrency), rate },
    enqueuedAt: row.enqueued_at,
    availableAt: iso(Number(row.available_ms)),
    attempts: Number(row.attempts),
    takenBy: row.taken_by,
    takenAt: row.taken_at,
  };
}
