/**
 * Row mappings every SQL event store shares: a row of its `events`, `runs`, `claims` and
 * `control_requests` tables (same column names in SQLite and Postgres) to the port's types.
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
    updatedAt: String(row.updated_at),
    lastSeq: Number(row.last_seq),
  };
}

export function toHolder(row: Row): ClaimHolder {
  const holder: ClaimHolder = { runId: String(row.run_id), claimedAt: String(row.claimed_at) };
  if (row.lease_ms !== null && row.lease_ms !== undefined) holder.leaseMs = Number(row.lease_ms);
  return holder;
}
