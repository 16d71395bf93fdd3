/**
 * Row mappings every SQL event store shares: a row of its `events`, `runs`, `claims` and
 * `control_requests` tables (same column names in SQLite and Postgres) to the port's types,
 * and the compact event row (see `compactEnvelope`): an event whose envelope (`v`,
 * `session_id`, `namespace`, `origin`) is its run's stores none of it, read from the run's
 * row, and a `ts` that is `toISOString()` text is stored as its epoch milliseconds.
 */
import type { ControlVerb } from '../../core/event-kinds.js';
import type { RunStatus } from '../../core/status.js';
import type { ClaimHolder, ControlRequest, RunSummary } from '../../core/store.js';
import type { StoredEvent } from './stored-event.js';

type Row = Record<string, unknown>;

export function toStored(row: Row): StoredEvent {
  return {
    runId: String(row.run_id),
    seq: Number(row.seq),
    v: Number(row.v),
    kind: String(row.kind),
    sessionId: row.session_id as string | null,
    namespace: row.namespace as string | null,
    origin: String(row.origin),
    ts: String(row.ts),
    payload: String(row.payload),
  };
}

/** A run's envelope as its `runs` row keeps it: what its events' rows leave out. */
export interface RunEnvelope {
  v: number | null;
  sessionId: string | null;
  namespace: string | null;
  origin: string;
}

/**
 * The `env` column of an event row: `null` when the event's envelope is its run's (the
 * usual case), else `[v, session_id, namespace, origin]` as JSON, so any envelope reads back.
 */
export function compactEnvelope(
  v: number,
  event: { sessionId: string | null; namespace: string | null; origin: string },
  run: RunEnvelope | null,
): string | null {
  if (
    run &&
    run.v === v &&
    run.sessionId === event.sessionId &&
    run.namespace === event.namespace &&
    run.origin === event.origin
  ) {
    return null;
  }
  return JSON.stringify([v, event.sessionId, event.namespace, event.origin]);
}

/**
 * The stored form of a timestamp: its epoch milliseconds when `toISOString()` gives the
 * text back exactly (every `ts` a store assigns), else the text itself.
 */
export function compactTs(ts: string): number | string {
  const millis = Date.parse(ts);
  if (Number.isNaN(millis)) return ts;
  const date = new Date(millis);
  return date.getUTCFullYear() >= 1970 && date.toISOString() === ts ? millis : ts;
}

/** A stored timestamp (epoch milliseconds or text) as the text it was appended with. */
export function tsText(value: unknown): string {
  if (typeof value === 'number' || typeof value === 'bigint') {
    return new Date(Number(value)).toISOString();
  }
  return String(value);
}

/**
 * A compact event row (`run_id, seq, kind, ts, payload, env`) with its run's envelope
 * (`run_v, run_session_id, run_namespace, run_origin`, from a join) as a stored event.
 */
export function fromCompact(row: Row): StoredEvent {
  const env =
    row.env === null || row.env === undefined
      ? null
      : (JSON.parse(String(row.env)) as [number, string | null, string | null, string]);
  return {
    runId: String(row.run_id),
    seq: Number(row.seq),
    v: Number(env ? env[0] : row.run_v),
    kind: String(row.kind),
    sessionId: env ? env[1] : (row.run_session_id as string | null),
    namespace: env ? env[2] : (row.run_namespace as string | null),
    origin: String(env ? env[3] : row.run_origin),
    ts: tsText(row.ts),
    payload: String(row.payload),
  };
}

export function toControlRequest(row: Row): ControlRequest {
  return {
    requestId: String(row.request_id),
    runId: String(row.run_id),
    verb: row.verb as ControlVerb,
    reason: row.reason as string | null,
    requestedAt: String(row.requested_at),
  };
}

export function toSummary(row: Row): RunSummary {
  return {
    runId: String(row.run_id),
    origin: String(row.origin),
    sessionId: row.session_id as string | null,
    namespace: row.namespace as string | null,
    status: row.status as RunStatus,
    startedAt: String(row.started_at),
    updatedAt: tsText(row.updated_at),
    lastSeq: Number(row.last_seq),
  };
}

export function toHolder(row: Row): ClaimHolder {
  const holder: ClaimHolder = { runId: String(row.run_id), claimedAt: String(row.claimed_at) };
  if (row.lease_ms !== null && row.lease_ms !== undefined) holder.leaseMs = Number(row.lease_ms);
  return holder;
}
