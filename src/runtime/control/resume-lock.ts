/**
 * One resumer at a time: a paused run is continued only under its resume lock (a claim with
 * a lease), taken after a first status check and held for the whole continuation. A second
 * caller gets ConflictError; a cancel of a run at rest takes the same lock (rest-cancel.ts).
 * Tested in src/runtime/runtime.test.ts and src/runtime/workflow-run.test.ts (two concurrent
 * resumers or answers: one ConflictError; a lock held elsewhere), and through the deck in
 * src/deck/run-control-agents.test.ts ("lets exactly one of two concurrent resumes continue the run").
 */
import { randomUUID } from 'node:crypto';
import { ConflictError, isBackendOutage, NotFoundError } from '../../core/errors.js';
import type { Event } from '../../core/events.js';
import type { RunStatus } from '../../core/status.js';
import { canClaimAndRead, type EventStore, type RunSummary } from '../../core/store.js';
import { pausedRun, requirePaused } from '../paused-run.js';
import { RESUME_LOCK_LEASE_MS, resumeLockKey } from './rest-cancel.js';

export interface ResumeLockRequest {
  store: EventStore;
  runId: string;
  /** The status the run must have, checked before the lock is taken. */
  expected: RunStatus;
  /**
   * The run as the caller just read it, when it did: that read is the check before the lock
   * (one read less on the answer path). It is checked again under the lock either way.
   */
  checked?: RunSummary;
  staleAfterMs: number;
  /** Whether the deck closed: nothing is resumed then. */
  closed: () => boolean;
}

/**
 * Play `body` holding the run's resume lock, after a first status check; `body` gets the run
 * as checked again under the lock (read with the lock in one round trip where the store can,
 * `ClaimAndRead`).
 */
export async function* underResumeLock<R>(
  request: ResumeLockRequest,
  body: (summary: RunSummary) => AsyncGenerator<Event, R, undefined>,
): AsyncGenerator<Event, R, undefined> {
  const { store, runId } = request;
  const closed = () => new NotFoundError(`the deck is closed; run '${runId}' is not resumed`);
  if (request.closed()) throw closed();
  if (request.checked?.status !== request.expected || request.checked.runId !== runId) {
    await pausedRun(store, runId, request.expected);
  }
  const lockKey = resumeLockKey(runId);
  const lockHolder = randomUUID();
  const claim = {
    key: lockKey,
    runId: lockHolder,
    staleAfterMs: request.staleAfterMs,
    leaseMs: RESUME_LOCK_LEASE_MS,
  };
  const locked = await (canClaimAndRead(store)
    ? store.claimAndGetRun(claim, runId)
    : store.claim(claim).then((result) => ({ claim: result, run: undefined }))
  ).catch((error: unknown) => {
    // The claim may have been written before the connection broke: free it once it can be.
    if (isBackendOutage(error)) releaseLater(store, lockKey, lockHolder);
    throw error;
  });
  if (!locked.claim.acquired) {
    throw new ConflictError(
      `run '${runId}' is being resumed by another caller right now; read its status and retry if it is still paused`,
      { holderRunId: runId },
    );
  }
  try {
    if (request.closed()) throw closed();
    // Checked again under the lock: another caller may have resumed it meanwhile.
    const { expected } = request;
    const summary =
      locked.run === undefined
        ? await pausedRun(store, runId, expected)
        : requirePaused(locked.run, runId, expected);
    return yield* body(summary);
  } finally {
    await store.release(lockKey, lockHolder).catch((error: unknown) => {
      // A lock left behind would refuse the retry of an answer for the whole lease.
      if (isBackendOutage(error)) releaseLater(store, lockKey, lockHolder);
      return false;
    });
  }
}

/** How often a lock that could not be freed is tried again, in ms. */
const RELEASE_RETRY_MS = 200;

/** Free a lock the store refused to free (it was out), retrying until it can or the lease ends. */
function releaseLater(store: EventStore, key: string, holder: string): void {
  const until = Date.now() + RESUME_LOCK_LEASE_MS;
  const attempt = () => {
    store.release(key, holder).catch((error: unknown) => {
      if (isBackendOutage(error) && Date.now() < until) {
        setTimeout(attempt, RELEASE_RETRY_MS).unref();
      }
    });
  };
  setTimeout(attempt, RELEASE_RETRY_MS).unref();
}
