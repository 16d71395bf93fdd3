/**
 * Claims and control requests in the Postgres event store: the records through which server
 * processes coordinate (who plays a session's turn; a pause or cancel asked elsewhere). A
 * claim reads the holder before it writes, so it runs in a transaction that first takes an
 * advisory lock named after the key: concurrent claimers of one key, in any process, queue
 * on it, including for a key no row holds yet (which a row lock could not cover).
 */
import type { Pool, PoolClient, QueryResult } from 'pg';
import { InvalidInputError, StoreError } from '../../core/errors.js';
import type { ControlVerb } from '../../core/event-kinds.js';
import type {
  ClaimHolder,
  ClaimRequest,
  ClaimResult,
  ControlRequest,
  RunSummary,
} from '../../core/store.js';
import { toControlRequest, toHolder, toSummary } from '../shared/rows.js';
import { SQL } from './migrations.js';
import { onClient } from './pool.js';

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
  /** Statements (values as literals) sent with the claim's, after its upsert: their rows. */
  alsoRead: ((literal: (value: string) => string) => string) | null = null,
): Promise<{ claim: ClaimResult; written: T | null; read: Record<string, unknown>[] }> {
  refuseNul(request);
  // With `then`, the transaction stays open after the claim's query until its own COMMIT.
  const commitHere = then !== null;
  return onClient(pool, async (client) => {
    const also = alsoRead ? [alsoRead((value) => client.escapeLiteral(value))] : [];
    const results = (await client.query(
      claimStatements(client, request, Date.now(), !commitHere, also),
    )) as unknown as QueryResult[];
    const [, , read, upsert, extra] = results;
    const alsoRows = (also.length > 0 ? extra?.rows : undefined) ?? [];
    const row = read?.rows[0];
    const holder = row ? toHolder(row) : null;
    const written = upsert?.rows[0] as { replaced: boolean } | undefined;
    if (!written) {
      if (commitHere) await client.query('COMMIT');
      // Refused: held by another run that is not stale (read under the same lock).
      const current = holder ?? (await claimHolder(client, request.key));
      if (!current) {
        throw new StoreError(
          `claim '${request.key}' was refused, yet no run holds it; retry the claim`,
        );
      }
      return { claim: { acquired: false, holder: current }, written: null, read: alsoRows };
    }
    // Taken over: the upsert replaced another run's row (not when that run let go of it
    // between the read and the write: a release takes no lock, and the upsert then inserts).
    const tookOverFrom =
      written.replaced && holder && holder.runId !== request.runId ? holder : null;
    const done = then && !tookOverFrom ? await then(client) : null;
    if (commitHere) await client.query('COMMIT');
    return { claim: { acquired: true, tookOverFrom }, written: done, read: alsoRows };
  });
}

/**
 * A claim in one simple query: `BEGIN`, the key's advisory lock, the holder, and an upsert
 * that writes only where the claim is free, already the run's, or stale, then `COMMIT`
 * unless the caller has more to write. The simple protocol takes no parameters, so values
 * are escaped literals (a function replacer: no `$` in a key is a replacement pattern).
 * Each statement of a READ COMMITTED transaction reads with a snapshot taken when it starts,
 * so the holder is read, and the upsert decides, once the lock is held. `now` is when the
 * claim was sent, not when the lock was granted.
 *
 * The stale rule is `isStale` (core/store.ts) in SQL, by comparing text: `claimed_at` is
 * `toISOString()` output, whose order is the order of time, so a holder is stale when its
 * `claimed_at` is before `now` less the claimer's timeout, or less its own lease. Nothing
 * stored is cast, so no row can make a claim fail; a `claimed_at` of any other shape (not
 * written by agentdeck) counts as stale.
 */
function claimStatements(
  client: PoolClient,
  request: ClaimRequest,
  now: number,
  commit: boolean,
  also: readonly string[] = [],
): string {
  return [
    ...claimPrelude(client, request.key),
    SQL.claimHolder.replace('$1', () => client.escapeLiteral(request.key)),
    claimUpsert(client, request, now),
    ...also,
    ...(commit ? ['COMMIT'] : []),
  ].join(';\n');
}

/** The statements a claim of `key` begins with: `BEGIN` and the key's advisory lock. */
export function claimPrelude(client: PoolClient, key: string): string[] {
  const lock = client.escapeLiteral(`agentdeck.claim:${key}`);
  return ['BEGIN', SQL.lockClaim.replace('$1', () => lock)];
}

/**
 * The upsert of a claim, values as literals: it writes only where the key is free, already
 * the run's or stale, and returns `replaced` (whether it updated a row) when it wrote.
 */
export function claimUpsert(client: PoolClient, request: ClaimRequest, now: number): string {
  refuseNul(request);
  const literal = (value: string) => client.escapeLiteral(value);
  const { key, runId, staleAfterMs, leaseMs } = request;
  const values = [
    literal(key),
    literal(runId),
    literal(new Date(now).toISOString()),
    // Coerced by the INTEGER column, which refuses a fraction as a parameter would.
    leaseMs === undefined ? 'NULL' : literal(String(leaseMs)),
  ];
  const stale = [`claims.claimed_at !~ ${literal(ISO_INSTANT)}`];
  // As isStale: NaN is never stale; an infinite timeout (or one reaching before 1970) leaves the lease.
  if (!Number.isNaN(staleAfterMs)) {
    // Rounded up: for a whole-ms claimed_at, `< ceil(now - timeout)` is `age > timeout`.
    const cutoff = Math.ceil(now - staleAfterMs);
    if (Number.isFinite(cutoff) && cutoff >= 0) {
      stale.push(`claims.claimed_at < ${literal(new Date(cutoff).toISOString())}`);
    }
    stale.push(`(claims.lease_ms IS NOT NULL AND claims.claimed_at < to_char(
      (timestamptz 'epoch' + (${literal(String(now))}::bigint - claims.lease_ms) * interval '1 millisecond')
        AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'))`);
  }
  return `${SQL.setClaim.replace(/\$(\d)/g, (_, n: string) => values[Number(n) - 1] as string)}
    WHERE claims.run_id = excluded.run_id OR ${stale.join(' OR ')}
    RETURNING xmax <> 0 AS replaced`;
}

/** What `new Date().toISOString()` writes (years 0 to 9999). */
const ISO_INSTANT = '^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\\.[0-9]{3}Z$';

/**
 * The simple protocol ends the query text at a NUL, so Postgres would refuse the whole
 * message as malformed (SQLSTATE 08P01, read as an outage); a TEXT column cannot hold one.
 */
function refuseNul({ key, runId }: ClaimRequest): void {
  for (const [name, value] of [
    ['claim key', key],
    ['run id', runId],
  ] as const) {
    if (value.includes('\u0000')) {
      throw new InvalidInputError(
        `the ${name} ${JSON.stringify(value)} holds a NUL character, which Postgres cannot store; leave it out`,
      );
    }
  }
}

/**
 * Take a claim as {@link claim} does and read run `runId`'s index row in the same round trip,
 * once the claim is decided (a resume lock, and the status check under it).
 */
export async function claimAndGetRun(
  pool: Pool,
  request: ClaimRequest,
  runId: string,
): Promise<{ claim: ClaimResult; run: RunSummary | null }> {
  const done = await claimThen(pool, request, null, (literal) =>
    SQL.getRun.replace('$1', () => literal(runId)),
  );
  const [row] = done.read;
  return { claim: done.claim, run: row ? toSummary(row) : null };
}

/** Release `key` if `runId` holds it; whether it did. */
export async function release(pool: Pool, key: string, runId: string): Promise<boolean> {
  const result = await pool.query(SQL.release, [key, runId]);
  return (result.rowCount ?? 0) > 0;
}

export async function claimHolder(db: Pool | PoolClient, key: string): Promise<ClaimHolder | null> {
  const { rows } = await db.query(SQL.claimHolder, [key]);
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
