/**
 * The run queue's statements on Postgres (queue.ts runs them; the tables are migration 8).
 * Times a take compares are epoch ms of the process clock (`$now`), as claims compare with
 * it: a hold is live while `lapse_ms >= now`, an entry waits until `available_ms <= now`.
 */
import { NOTICE_CHANNEL_QUEUE } from './notices.js';

/** Notify the queue's watchers in every process: the payload is the schema, for a filter. */
const NOTIFY = `pg_notify('${NOTICE_CHANNEL_QUEUE}', current_schema())`;

/**
 * The tokens of bucket row `b` refilled up to `now` (`limit`, `period`: SQL expressions),
 * at most the limit: `refilled` (core/queue.ts) in SQL.
 */
function refilledSql(limit: string, period: string, now: string): string {
  return `least(${limit}::float8,
    b.tokens + greatest(0, ${now}::bigint - b.updated_ms) * ${limit}::float8 / ${period}::float8)`;
}

/**
 * Spend one token of a bucket (an upsert: the row lock makes it atomic across processes); a
 * new bucket starts full. Returns the row only when a token was there. The expressions may
 * not name a table of `from` (ON CONFLICT's update sees only the row and `excluded`).
 */
function spendSql(bucket: string, limit: string, period: string, now: string, from = ''): string {
  const tokens = refilledSql(limit, period, now);
  return `INSERT INTO queue_buckets AS b (bucket, tokens, updated_ms)
    SELECT ${bucket}, ${limit}::float8 - 1, ${now}::bigint ${from}
    ON CONFLICT (bucket) DO UPDATE SET tokens = ${tokens} - 1, updated_ms = ${now}::bigint
    WHERE ${tokens} >= 1
    RETURNING b.bucket`;
}

/** A queue row's columns, as `QueueEntry` is built from them (see `toEntry`). */
const ENTRY_COLUMNS = `run_id, origin, session_id, namespace, key, priority, concurrency,
  rate_limit, rate_period_ms, enqueued_at, available_ms, attempts, taken_by, taken_at`;

export const QUEUE_SQL = {
  /**
   * Appended after an append statement's CTEs (append.ts, its `run` guarded so an existing
   * run writes nothing): the entry, beside the run's first event, and the notice, all in
   * one statement. `$15`-`$21`: key, priority, concurrency, rate limit and period, bucket,
   * available (ms).
   */
  enqueueTail: `, entry AS (
    INSERT INTO queue (run_id, origin, session_id, namespace, key, priority, concurrency,
      rate_limit, rate_period_ms, bucket, enqueued_at, available_ms)
    SELECT $1, $2, $3, $4, $15, $16, $17, $18, $19, $20, run.updated_at, $21 FROM run
  )
  SELECT last_seq, updated_at, ${NOTIFY} AS notified FROM run`,

  /**
   * One take: the best entry a worker may take now (`$1` origins; `$2` now in ms; not of the
   * origin and key pairs `$3`/`$4`; only of origin `$5` and key `$6` when `$5` is given),
   * locked, skipping entries another taker holds locked: highest priority, then the key
   * served least recently (never: first), then enqueue order. Without `$5` an entry with a
   * concurrency limit is only returned (`ok` false: its slots are counted under its group's
   * lock, in a later statement that sees every hold committed before it); with `$5`, called
   * under that lock, the group's live holds are counted. An entry that fits takes a token of
   * its bucket if it has a rate, and is taken (`$7` worker, `$8` now as ISO text, `$9` lease)
   * only if it got one; its key's turn advances.
   */
  take: `WITH pick AS (
    SELECT q.run_id, q.origin, q.key, q.concurrency, q.rate_limit, q.rate_period_ms, q.bucket
    FROM queue q LEFT JOIN queue_turns t ON t.key = q.key
    WHERE q.origin = ANY($1::text[])
      AND (q.taken_by IS NULL AND q.available_ms <= $2::bigint
        OR q.taken_by IS NOT NULL AND q.lapse_ms < $2::bigint)
      AND NOT EXISTS (SELECT 1 FROM unnest($3::text[], $4::text[]) AS x(origin, key)
        WHERE x.origin = q.origin AND x.key = q.key)
      AND ($5::text IS NULL OR q.origin = $5::text AND q.key = $6::text)
    ORDER BY q.priority DESC, coalesce(t.turn, 0), q.ord
    LIMIT 1
    FOR UPDATE OF q SKIP LOCKED
  ), fits AS (
    SELECT p.*, CASE
      WHEN p.concurrency IS NULL THEN true
      WHEN $5::text IS NULL THEN false
      ELSE (SELECT count(*) FROM queue h WHERE h.origin = p.origin AND h.key = p.key
        AND h.taken_by IS NOT NULL AND h.lapse_ms >= $2::bigint AND h.run_id <> p.run_id)
        < p.concurrency
      END AS ok
    FROM pick p
  ), token AS (
    ${spendSql(
      '(SELECT bucket FROM fits)',
      '(SELECT rate_limit FROM fits)',
      '(SELECT rate_period_ms FROM fits)',
      '$2',
      'FROM fits f WHERE f.ok AND f.rate_limit IS NOT NULL',
    )}
  ), taken AS (
    UPDATE queue q SET taken_by = $7::text, taken_at = $8::text, lease_ms = $9::int,
      lapse_ms = $2::bigint + $9::int,
      attempts = q.attempts + 1
    FROM fits f
    WHERE q.run_id = f.run_id AND f.ok AND (f.rate_limit IS NULL OR EXISTS (SELECT 1 FROM token))
    RETURNING q.*
  ), turn AS (
    INSERT INTO queue_turns (key, turn) SELECT key, nextval('queue_turn') FROM taken
    ON CONFLICT (key) DO UPDATE SET turn = excluded.turn
  )
  SELECT f.origin AS group_origin, f.key AS group_key, f.concurrency IS NOT NULL AS limited,
    f.ok, t.run_id AS taken_id, t.*
  FROM fits f LEFT JOIN taken t ON true`,

  lockGroup: 'SELECT pg_advisory_xact_lock(hashtext($1))',

  renew: `UPDATE queue SET taken_at = $3, lapse_ms = $4::bigint + lease_ms
    WHERE run_id = ANY($2::text[]) AND taken_by = $1 RETURNING run_id`,
  finish: 'DELETE FROM queue WHERE run_id = $1 AND taken_by = $2',
  giveBack: `WITH back AS (
    UPDATE queue SET taken_by = NULL, taken_at = NULL, lease_ms = NULL, lapse_ms = NULL,
      available_ms = $3, attempts = attempts - 1
    WHERE run_id = $1 AND taken_by = $2 RETURNING run_id
  )
  SELECT ${NOTIFY} AS notified FROM back`,
  dropWaiting: 'DELETE FROM queue WHERE run_id = $1 AND taken_by IS NULL',
  entry: `SELECT ${ENTRY_COLUMNS} FROM queue WHERE run_id = $1`,
  list: `SELECT ${ENTRY_COLUMNS} FROM queue ORDER BY priority DESC, ord LIMIT $1`,

  /** `$1` bucket, `$2` limit, `$3` period, `$4` now (ms): the bucket's row if a token was there. */
  takeToken: spendSql('$1::text', '$2', '$3', '$4'),
  bucket: 'SELECT tokens, updated_ms FROM queue_buckets WHERE bucket = $1',
} as const;
