/**
 * A run's boundaries in the SQLite event store, each one write transaction with the claim it
 * runs under (the `RunBoundaries` and `RunPauses` abilities of core/store.ts): its start or
 * resume with the claim it takes, its pause with the claim it keeps, its end with the claim
 * it frees. A run's start is held (`GroupCommit.held`): it commits with what the run writes
 * next in its event-loop turn, at the latest at its end, so a short segment is one commit.
 * Every other boundary (`run.resumed`: an answer taking effect; a pause; an end) is durable
 * before its write resolves (docs/internals/sqlite-group-commit.md, invariant 4).
 */
import type { Event } from '../../core/events.js';
import { TERMINAL_STATUSES } from '../../core/status.js';
import type { ClaimRequest, ClaimResult } from '../../core/store.js';
import type { PreparedEvent } from '../shared/stored-event.js';
import type { Appender, Written } from './append.js';
import { claimHolder, claimInTransaction } from './claims.js';
import type { Statements } from './migrations.js';

export interface ClaimedStart {
  claim: ClaimResult;
  events: Event[] | null;
}

/** The claim a run starts (or resumes) under and its first events, unless the claim is refused or taken over. */
export function claimAndAppend(
  appender: Appender,
  sql: Statements,
  request: ClaimRequest,
  prepared: PreparedEvent[],
): Written<ClaimedStart> {
  const held = prepared.every((item) => item.kind === 'run.started');
  return appender.inTransaction((insert) => {
    const claim = claimInTransaction(sql, request);
    if (!claim.acquired || claim.tookOverFrom) return { claim, events: null };
    return { claim, events: prepared.length > 0 ? insert(prepared) : [] };
  }, held);
}

/** A run's terminal event, unless it has ended already, and the release of `releaseKey`. */
export function endRun(
  appender: Appender,
  sql: Statements,
  item: PreparedEvent,
  releaseKey: string | null,
): Written<Event | null> {
  const { runId } = item.event;
  return appender.inTransaction((insert, status) => {
    const current = status(runId);
    const ended = current !== null && TERMINAL_STATUSES.includes(current);
    const [stored] = ended ? [] : insert([item]);
    if (releaseKey !== null) sql.release.run(releaseKey, runId);
    return stored ?? null;
  });
}

/** A run's pause, and the claim `keep` renewed without a lease if the run holds it. */
export function pauseRun(
  appender: Appender,
  sql: Statements,
  item: PreparedEvent,
  keep: string,
): Written<Event> {
  const { runId } = item.event;
  return appender.inTransaction((insert) => {
    const [stored] = insert([item]);
    if (claimHolder(sql, keep)?.runId === runId) {
      sql.setClaim.run(keep, runId, new Date().toISOString(), null);
    }
    return stored as Event;
  });
}
