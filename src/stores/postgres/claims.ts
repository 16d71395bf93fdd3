/**
 * Claims and control requests in the Postgres event store: the records through which server
 * processes coordinate (who plays a session's turn; a pause or cancel asked elsewhere). A
 * claim reads the holder before it writes, so it runs in a transaction that first takes an
 * advisory lock named after the key: concurrent claimers of one key, in any process, queue
 * on it, including for a key no row holds yet (which a row lock could not cover).
 */
import type { Pool, PoolClient, QueryResult } from 'pg';
import { StoreError } from '../../core/errors.js';
import type { ControlVerb } from '../../core/event-kinds.js';
import type { ClaimHolder, ClaimRequest, ClaimResult, ControlRequest } from '../../core/store.js';
import { isStale } from '../../core/store.js';
import { toControlRequest, toHolder } from '../shared/rows.js';
import { SQL } from './migrations.js';

/** Take `request.key` for its run, unless another run holds it and is not stale. */
export async function claim(pool: Pool, request: ClaimRequest): Promise<ClaimResult> {
  return (await claimThen(pool, request, null)).claim;
}

/**
 * Take a claim as {@link claim} does and, when it was free or already the run's, run `then`
 * on the same connection before the transaction commits (a run's first events).
 *
 * Round trips: the claim itself is one ({@link claimStatements}), with its `COMMIT` when
 * there is nothing to run after it; with `then`, `then`'s own statements and `COMMIT` follow.
 */
export async function claimThen<T>(
  pool: Pool,
  request: ClaimRequest,
  then: ((client: PoolClient) => Promise<T>) | null,
): Promise<{ claim: ClaimResult; written: T | null }> {
  const { runId, staleAfterMs } = request;
  const client = await pool.connect();
  let broken = false;
  let open = false;
  try {
    const now = Date.now();
    const results = (await client.query(
      claimStatements(client, request, now, then === null),
    )) as unknown as QueryResult[];
    open = then !== null;
    const [, , read, upsert] = results;
    const row = read?.rows[0];
    const holder = row ? toHolder(row) : null;
    const other = holder && holder.runId !== runId ? holder : null;
    if ((upsert?.rowCount ?? 0) === 0) {
      if (open) await client.query('COMMIT');
      open = false;
      // Refused: held by another run that is not stale (read under the same lock).
      const current = holder ?? (await claimHolderOn(client, request.key));
      if (!current) {
        throw new StoreError(
          `claim '${request.key}' was refused, yet no run holds it; retry the claim`,
        );
      }
      return { claim: { acquired: false, holder: current }, written: null };
    }
    // A holder read as live that let go before the write (a release takes no lock) was not taken over.
    const tookOverFrom = other && isStale(other, staleAfterMs, now) ? other : null;
    const done = then && !tookOverFrom ? await then(client) : null;
    if (open) await client.query('COMMIT');
    open = false;
    return { claim: { acquired: true, tookOverFrom }, written: done };
  } catch (error) {
    await client.query('ROLLBACK').catch(() => {
      broken = true; // not back to the pool: the connection is in an unknown state
    });
    throw error;
  } finally {
    client.release(broken);
  }
}

/**
 * A claim in one simple query: `BEGIN`, the key's advisory lock, the holder, and an upsert
 * that writes only where the claim is free, already the run's, or stale, then `COMMIT`
 * unless the caller has more to write. The simple protocol takes no parameters, so values
 * are escaped literals (a function replacer: no `$` in a key is a replacement pattern).
 * Each statement of a READ COMMITTED transaction reads with a snapshot taken when it starts,
 * so the holder is read, and the upsert decides, once the lock is held.
 *
 * The stale rule is `isStale` (core/store.ts) in SQL: older than the claimer allows, or than
 * the holder's own lease; a `claimed_at` that is not an ISO instant in UTC counts as stale
 * (JavaScript's `Date.parse` gives NaN for such text). `CASE` keeps the cast from running on
 * text that is not an instant.
 */
function claimStatements(
  client: PoolClient,
  request: ClaimRequest,
  now: number,
  commit: boolean,
): string {
  const literal = (value: string) => client.escapeLiteral(value);
  const number = (value: number) => literal(String(value));
  const { key, runId, staleAfterMs } = request;
  const values = [
    literal(key),
    literal(runId),
    literal(new Date(now).toISOString()),
    // Coerced by the INTEGER column, which refuses a fraction as a parameter would.
    request.leaseMs === undefined ? 'NULL' : number(request.leaseMs),
  ];
  const stale = `${number(staleAfterMs)}::float8`;
  const upsert = `${SQL.setClaim.replace(/\$(\d)/g, (_, n: string) => values[Number(n) - 1] as string)}
    WHERE CASE
      WHEN claims.run_id = excluded.run_id THEN true
      WHEN claims.claimed_at !~ ${literal(ISO_INSTANT)} THEN true
      ELSE ${number(now)}::float8 - extract(epoch FROM claims.claimed_at::timestamptz) * 1000
        > LEAST(${stale}, COALESCE(claims.lease_ms::float8, ${stale}))
    END
    RETURNING 1`;
  return [
    'BEGIN',
    SQL.lockClaim.replace('$1', () => literal(`agentdeck.claim:${key}`)),
    SQL.claimHolder.replace('$1', () => literal(key)),
    upsert,
    ...(commit ? ['COMMIT'] : []),
  ].join(';\n');
}

/** What `new Date().toISOString()` writes. */
const ISO_INSTANT = '^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}(\\.[0-9]+)?Z$';

async function claimHolderOn(client: PoolClient, key: string): Promise<ClaimHolder | null> {
  const { rows } = await client.query(SQL.claimHolder, [key]);
  return rows[0] ? toHolder(rows[0]) : null;
}

/** Release `key` if `runId` holds it; whether it did. */
export async function release(pool: Pool, key: string, runId: string): Promise<boolean> {
  const result = await pool.query(SQL.release, [key, runId]);
  return (result.rowCount ?? 0) > 0;
}

export async function claimHolder(pool: Pool, key: string): Promise<ClaimHolder | null> {
  const { rows } = await pool.query(SQL.claimHolder, [key]);
  return rows[0] ? toHolder(rows[0]) : null;
}

/** Record a control request for a run, with a fresh id and the current time. */
export async function recordControl(
  pool: Pool,
  runId: string,
  verb: ControlVerb,
  reason: string | null,
): Promise<ControlRequest> {
  const requestId = crypto.randomUUID();
  const requestedAt = new Date().toISOString();
  await pool.query(SQL.insertControl, [requestId, runId, verb, reason, requestedAt]);
  return { requestId, runId, verb, reason, requestedAt };
}

export async function readControl(pool: Pool, runId: string): Promise<ControlRequest[]> {
  const { rows } = await pool.query(SQL.readControl, [runId]);
  return rows.map(toControlRequest);
}
