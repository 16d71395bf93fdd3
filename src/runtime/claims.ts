/**
 * One turn per session (or workflow thread) at a time. A claim is taken before anything is
 * recorded, so a refused turn leaves no trace. A claim older than the stale-run timeout is
 * taken over, and the run that held it is closed with `run.failed` so its status never lies.
 */
import { ConflictError } from '../core/errors.js';
import type { Event, NewEvent } from '../core/events.js';
import { TERMINAL_STATUSES } from '../core/status.js';
import {
  type ClaimHolder,
  type ClaimResult,
  type EventStore,
  hasRunBoundaries,
} from '../core/store.js';
import { type EventTap, RunRecorder } from './recorder.js';

export function sessionClaimKey(sessionId: string): string {
  return `session:${sessionId}`;
}

export interface AcquireClaimRequest {
  /** What is claimed, e.g. `session:<id>` or `thread:<workflow>:<id>`. */
  key: string;
  /** Who claims it: the run (or a sweeper, a tick) that will hold it. */
  runId: string;
  /** A claim older than this is stale: it is taken over and its run closed as failed. */
  staleAfterMs: number;
  /** Taps of the recorder, for the stale run this closes. @default [] */
  taps?: readonly EventTap[];
  /** The lease a live run promises to renew within (see heartbeat.ts); none for a one-off claim. */
  leaseMs?: number;
  /**
   * The run's first event, written with the claim when the store can (`RunBoundaries`) and
   * the claim was not taken over (a stale run is closed before this one starts).
   */
  first?: NewEvent;
}

/**
 * Take a claim for a run; a stale holder's run is closed as failed. Returns the run's first
 * event when it was written with the claim. ConflictError: a live run holds it.
 */
export async function acquireClaim(
  store: EventStore,
  claim: AcquireClaimRequest,
): Promise<Event | null> {
  const { key, runId, staleAfterMs, taps = [], leaseMs, first } = claim;
  const request = { key, runId, staleAfterMs, ...(leaseMs === undefined ? {} : { leaseMs }) };
  let result: ClaimResult;
  let started: Event | null = null;
  if (first && hasRunBoundaries(store)) {
    const written = await store.claimAndAppend(request, [first]);
    result = written.claim;
    started = written.events?.[0] ?? null;
  } else {
    result = await store.claim(request);
  }
  if (!result.acquired) {
    throw new ConflictError(
      `${describeKey(key)} is busy: run '${result.holder.runId}' holds it since ${result.holder.claimedAt}; ` +
        'wait for that run to end (or cancel it) and try again',
      { holderRunId: result.holder.runId },
    );
  }
  if (result.tookOverFrom && result.tookOverFrom.runId !== runId) {
    await closeTakenOver(store, result.tookOverFrom, key, staleAfterMs, `run '${runId}'`, taps);
  }
  return started;
}

/** Close (`run.failed`) the run whose stale claim on `key` was just taken over by `takenBy`. */
export async function closeTakenOver(
  store: EventStore,
  holder: ClaimHolder,
  key: string,
  staleAfterMs: number,
  takenBy: string,
  taps: readonly EventTap[],
): Promise<void> {
  const why = staleReason(holder, key, staleAfterMs);
  await closeStaleRun(store, holder.runId, `${why} and was taken over by ${takenBy}`, taps);
}

/** Why a claim was stale: its holder stopped renewing within its lease, or it outlived the timeout. */
function staleReason(holder: ClaimHolder, key: string, staleAfterMs: number): string {
  const age = Date.now() - Date.parse(holder.claimedAt);
  if (holder.leaseMs !== undefined && holder.leaseMs < staleAfterMs && !(age > staleAfterMs)) {
    return (
      `its claim on ${describeKey(key)} was not renewed for ${holder.leaseMs / 1000} s ` +
      '(its process stopped its heartbeat: it is taken to be gone)'
    );
  }
  return `its claim on ${describeKey(key)} was older than ${staleAfterMs / 1000} s`;
}

async function closeStaleRun(
  store: EventStore,
  staleRunId: string,
  message: string,
  taps: readonly EventTap[],
): Promise<void> {
  const summary = await store.getRun(staleRunId);
  if (!summary) return;
  if (TERMINAL_STATUSES.includes(summary.status)) return;
  const recorder = new RunRecorder(
    store,
    {
      runId: staleRunId,
      sessionId: summary.sessionId,
      namespace: summary.namespace,
      origin: summary.origin,
    },
    taps,
  );
  await recorder.record({
    kind: 'run.failed',
    payload: {
      errorType: 'StaleRunError',
      message,
    },
  });
  // A paused agent run's saved state can no longer be continued.
  await store.dropContinuation(staleRunId);
}

function describeKey(key: string): string {
  const [kind, ...rest] = key.split(':');
  return `${kind} '${rest.join(':')}'`;
}
