/**
 * Claims and control requests in the SQLite event store: the two small records through
 * which processes sharing the file coordinate (who runs a session's turn; a cancel or pause
 * asked from another process). A claim reads the holder before it writes, so it runs in a
 * write transaction: the open group commit's, committed with it, since nobody is told of a
 * claim before the write it guards. A release and a control request are acknowledged to their
 * callers, so each commits the group with it, at once.
 */
import type { ControlVerb } from '../../core/event-kinds.js';
import type { ClaimHolder, ClaimRequest, ClaimResult, ControlRequest } from '../../core/store.js';
import { isStale } from '../../core/store.js';
import { toControlRequest, toHolder } from '../shared/rows.js';
import type { GroupCommit } from './group-commit.js';
import type { Statements } from './migrations.js';

/**
 * Take `request.key` for its run, unless another run holds it and is not stale. The claim
 * joins the open group commit and commits with it (`GroupCommit.held`): the write that
 * follows it (a run's start, its `run.resumed`) shares its commit.
 */
export function claim(sql: Statements, writes: GroupCommit, request: ClaimRequest): ClaimResult {
  return writes.held(() => claimInTransaction(sql, request));
}

/** The body of {@link claim}, inside a write transaction the caller holds. */
export function claimInTransaction(sql: Statements, request: ClaimRequest): ClaimResult {
  const { key, runId, staleAfterMs } = request;
  const holder = claimHolder(sql, key);
  const now = Date.now();
  if (holder && holder.runId !== runId && !isStale(holder, staleAfterMs, now)) {
    return { acquired: false, holder };
  }
  // Re-claiming renews: a run that claims again is alive, so its stale clock restarts.
  sql.setClaim.run(key, runId, new Date(now).toISOString(), request.leaseMs ?? null);
  const tookOverFrom = holder && holder.runId !== runId ? holder : null;
  return { acquired: true, tookOverFrom };
}

/**
 * Release `key` if `runId` holds it; whether it did. Committed at once (with the open group):
 * its caller may answer its own client next, who may ask another process at once.
 */
export function release(sql: Statements, writes: GroupCommit, key: string, runId: string): boolean {
  writes.beforeWrite();
  return Number(sql.release.run(key, runId).changes) > 0;
}

export function claimHolder(sql: Statements, key: string): ClaimHolder | null {
  const row = sql.claimHolder.get(key);
  return row ? toHolder(row) : null;
}

/** Record a control request for a run, with a fresh id and the current time. */
export function recordControl(
  sql: Statements,
  writes: GroupCommit,
  runId: string,
  verb: ControlVerb,
  reason: string | null,
): ControlRequest {
  const requestId = crypto.randomUUID();
  const requestedAt = new Date().toISOString();
  writes.beforeWrite();
  sql.insertControl.run(requestId, runId, verb, reason, requestedAt);
  return { requestId, runId, verb, reason, requestedAt };
}

export function readControl(sql: Statements, runId: string): ControlRequest[] {
  return sql.readControl.all(runId).map(toControlRequest);
}
