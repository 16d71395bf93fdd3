/**
 * A run segment's start on Postgres in one round trip (issue 43): the claim on its session or
 * thread and its first event (`run.started`, `run.resumed`) with the run's row, in one simple
 * query that commits them together. Done as a claim followed by an append, it took three
 * round trips one after another (the claim's query, the append, `COMMIT`), since the append
 * has parameters and the simple protocol that carries several statements has none.
 *
 * The query is `BEGIN`, the key's advisory lock, one statement, `COMMIT`, values as escaped
 * literals. The statement starts once the lock is held, so its snapshot reads the holder as
 * a claim under the lock does (`prior`); its claim upsert writes only where the key is free,
 * already the run's or stale (claims.ts), and the run's row and events are written only where
 * the upsert wrote and took nothing over from another run (`gate`): a refused claim appends
 * nothing, and a stale holder's run is closed by the caller before this run's first event.
 */
import type { Pool, PoolClient, QueryResult } from 'pg';
import { StoreError } from '../../core/errors.js';
import type { ClaimHolder, ClaimRequest, ClaimResult } from '../../core/store.js';
import { toHolder } from '../shared/rows.js';
import { isoNow, type PreparedEvent } from '../shared/stored-event.js';
import { appendRun, appendValues, INSERT_AT_RUN, type Tail, upsertRun } from './append.js';
import { claimHolder, claimPrelude, claimThen, claimUpsert } from './claims.js';
import { onClient } from './pool.js';

/**
 * Take `request`'s claim and, when it was free or already the run's, append `prepared` (a
 * run's first events) in the same transaction: the claim's outcome and each run's new tail
 * (`null` when nothing was appended). Events of several runs (no caller of the runtime
 * writes them) take a round trip per run (claims.ts `claimThen`).
 */
export async function claimAndStart(
  pool: Pool,
  request: ClaimRequest,
  prepared: readonly PreparedEvent[],
): Promise<{ claim: ClaimResult; tails: Map<string, Tail> | null }> {
  const runIds = [...new Set(prepared.map((item) => item.event.runId))].sort();
  const [onlyRun] = runIds;
  if (runIds.length !== 1 || onlyRun === undefined) {
    const done = await claimThen(pool, request, async (client) => {
      const tails = new Map<string, Tail>();
      const now = isoNow();
      for (const runId of runIds) {
        const items = prepared.filter((item) => item.event.runId === runId);
        tails.set(runId, await appendRun(client, items, now));
      }
      return tails;
    });
    return { claim: done.claim, tails: done.written };
  }
  const started = await startInOneTrip(pool, request, prepared);
  return { claim: started.claim, tails: started.tail && new Map([[onlyRun, started.tail]]) };
}

/** One run's start: the claim and its events in one simple query. */
async function startInOneTrip(
  pool: Pool,
  request: ClaimRequest,
  items: readonly PreparedEvent[],
): Promise<{ claim: ClaimResult; tail: Tail | null }> {
  return onClient(pool, async (client) => {
    const sql = [
      ...claimPrelude(client, request.key),
      startStatement(client, request, items),
      'COMMIT',
    ].join(';\n');
    const results = (await client.query(sql)) as unknown as QueryResult[];
    const row = results[2]?.rows[0] as StartRow | undefined;
    if (!row) throw new StoreError(`the start of run '${request.runId}' returned no row`);
    const holder = row.holder_run_id === null ? null : toHolder(holderRow(row));
    if (!row.acquired) {
      // Refused: held by another run that is not stale (read under the same lock).
      const current = holder ?? (await claimHolder(client, request.key));
      if (!current) {
        throw new StoreError(
          `claim '${request.key}' was refused, yet no run holds it; retry the claim`,
        );
      }
      return { claim: { acquired: false, holder: current }, tail: null };
    }
    const tookOverFrom: ClaimHolder | null =
      row.replaced && holder && holder.runId !== request.runId ? holder : null;
    const tail =
      row.last_seq === null ? null : { seq: Number(row.last_seq), ts: String(row.updated_at) };
    return { claim: { acquired: true, tookOverFrom }, tail: tookOverFrom ? null : tail };
  });
}

interface StartRow {
  acquired: boolean;
  replaced: boolean | null;
  holder_run_id: string | null;
  holder_claimed_at: string | null;
  holder_lease_ms: number | null;
  last_seq: number | null;
  updated_at: string | null;
}

function holderRow(row: StartRow) {
  return {
    run_id: row.holder_run_id,
    claimed_at: row.holder_claimed_at,
    lease_ms: row.holder_lease_ms,
  };
}

/** The claim, the gate and the append as one statement (see the module's comment). */
function startStatement(
  client: PoolClient,
  request: ClaimRequest,
  items: readonly PreparedEvent[],
): string {
  const literal = (value: string) => client.escapeLiteral(value);
  const key = literal(request.key);
  const runId = literal(request.runId);
  const statement = `
  WITH prior AS (
    SELECT run_id, claimed_at, lease_ms FROM claims WHERE key = ${key}
  ), claimed AS (${claimUpsert(client, request, Date.now())}
  ), gate AS (
    SELECT 1 FROM claimed
    WHERE NOT (claimed.replaced AND EXISTS (SELECT 1 FROM prior WHERE prior.run_id <> ${runId}))
  ), run AS (${upsertRun('', 'EXISTS (SELECT 1 FROM gate)')}
  ), inserted AS (${INSERT_AT_RUN}
  )
  SELECT EXISTS (SELECT 1 FROM claimed) AS acquired,
    (SELECT replaced FROM claimed) AS replaced,
    (SELECT run_id FROM prior) AS holder_run_id,
    (SELECT claimed_at FROM prior) AS holder_claimed_at,
    (SELECT lease_ms FROM prior) AS holder_lease_ms,
    (SELECT last_seq FROM run) AS last_seq,
    (SELECT updated_at FROM run) AS updated_at`;
  return inlineParameters(statement, appendValues(items, isoNow()), literal);
}

/**
 * `text` with each `$n` replaced by the literal of `values[n - 1]`, in one pass (a value is
 * never scanned again): text escaped, `null` as NULL, a whole number as itself, a list of
 * texts as a text array.
 */
export function inlineParameters(
  text: string,
  values: readonly unknown[],
  literal: (value: string) => string,
): string {
  const one = (value: unknown): string => {
    if (value === null || value === undefined) return 'NULL';
    if (typeof value === 'number' && Number.isInteger(value)) return String(value);
    if (typeof value === 'string') return literal(value);
    if (Array.isArray(value)) {
      return value.length === 0 ? `'{}'::text[]` : `ARRAY[${value.map(one).join(', ')}]::text[]`;
    }
    throw new StoreError(`cannot write ${typeof value} ${String(value)} as a SQL literal`);
  };
  return text.replace(/\$(\d+)/g, (whole, n: string) => {
    const index = Number(n) - 1;
    if (index >= values.length) throw new StoreError(`no value for ${whole} in a statement`);
    return one(values[index]);
  });
}
