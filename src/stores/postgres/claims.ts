/**
 * Claims and control requests in the Postgres event store: the records through which server
 * processes coordinate (who plays a session's turn; a pause or cancel asked elsewhere). A
 * claim reads the holder before it writes, so it runs in a transaction that first takes an
 * advisory lock named after the key: concurrent claimers of one key, in any process, queue
 * on it, including for a key no row holds yet (which a row lock could not cover).
 */
import type { Pool, PoolClient } from 'pg';
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
 */
export async function claimThen<T>(
  pool: Pool,
  request: ClaimRequest,
  then: ((client: PoolClient) => Promise<T>) | null,
): Promise<{ claim: ClaimResult; written: T | null }> {
  const { key, runId, staleAfterMs } = request;
  const client = await pool.connect();
  let broken = false;
  try {
    await client.query('BEGIN');
    await client.query(SQL.lockClaim, [`agentdeck.claim:${key}`]);
    const { rows } = await client.query(SQL.claimHolder, [key]);
    const holder = rows[0] ? toHolder(rows[0]) : null;
    const now = Date.now();
    if (holder && holder.runId !== runId && !isStale(holder, staleAfterMs, now)) {
      await client.query('COMMIT');
      return { claim: { acquired: false, holder }, written: null };
    }
    // Re-claiming renews: a run that claims again is alive, so its stale clock restarts.
    await client.query(SQL.setClaim, [
      key,
      runId,
      new Date(now).toISOString(),
      request.leaseMs ?? null,
    ]);
    const tookOverFrom = holder && holder.runId !== runId ? holder : null;
    const done = then && !tookOverFrom ? await then(client) : null;
    await client.query('COMMIT');
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
