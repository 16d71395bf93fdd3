/**
 * Ending a run at rest (paused, or waiting for an answer) on a cancel request: no process
 * plays it, so whoever sees the request records `control.requested`, `control.observed` and
 * `run.cancelled`,
 * frees its session or thread claim and forgets its saved continuation. Done under the
 * run's resume lock, so it cannot race a resume; a run that is playing again observes the
 * cancel itself.
 *
 * Tested in src/deck/run-control-agents.test.ts and src/deck/run-control-workflows.test.ts (a
 * cancel of a paused run); the resume lock it shares in src/runtime/runtime.test.ts.
 */
import { isRunQueue } from '../../core/queue.js';
import type { ControlRequest, EventStore, RunSummary } from '../../core/store.js';
import { sessionClaimKey } from '../claims.js';
import { identityOf } from '../paused-run.js';
import { RunRecorder } from '../recorder.js';
import { CANCEL_REQUESTED } from '../run-lease.js';
import { threadClaimKey } from '../workflow-run.js';

/** The lock one resumer (or one at-rest cancel) of a run holds. */
export function resumeLockKey(runId: string): string {
  return `resume:${runId}`;
}

/**
 * The lease of a resume lock: it only guards the moment between a status check and the
 * `run.resumed` (or `run.cancelled`) that changes the status, so a holder whose process died
 * there does not block the run for the whole stale-run timeout.
 */
export const RESUME_LOCK_LEASE_MS = 30_000;

/** Paused or waiting for a person: not playing in any process. */
export function isAtRest(run: RunSummary): boolean {
  return run.status === 'paused' || run.status === 'waiting_human';
}

/**
 * End the run for `request` if it is (still) at rest; whether it did. `false` when the
 * lock is held (a resume is playing it: the run observes the cancel) or the run moved on.
 */
/**
 * Cancel a queued run no worker holds: its entry is dropped, and the run ends with the
 * request and `run.cancelled` (one append), so it never starts. A queued run with no entry
 * left (an earlier cancel dropped it, then the store went down before its events) is ended
 * the same way. `false` when a worker holds it (it finds the request before it starts,
 * queued-runs.ts) or the store has no queue.
 */
export async function cancelQueued(
  store: EventStore,
  run: RunSummary,
  request: ControlRequest,
): Promise<boolean> {
  if (!isRunQueue(store)) return false;
  const dropped = await store.dropWaiting(run.runId);
  if (!dropped && (await store.queueEntry(run.runId)) !== null) return false;
  const identity = identityOf(run);
  await store.append([
    {
      ...identity,
      kind: 'control.requested',
      payload: { verb: 'cancel', reason: request.reason, requestId: request.requestId },
    },
    {
      ...identity,
      kind: 'control.observed',
      payload: { verb: 'cancel', requestId: request.requestId },
    },
    { ...identity, kind: 'run.cancelled', payload: { reason: request.reason ?? CANCEL_REQUESTED } },
  ]);
  return true;
}

export async function cancelAtRest(
  store: EventStore,
  runId: string,
  request: ControlRequest,
  lockStaleAfterMs: number,
): Promise<boolean> {
  const lockKey = resumeLockKey(runId);
  const holder = `cancel:${request.requestId}`;
  const lock = await store.claim({
    key: lockKey,
    runId: holder,
    staleAfterMs: lockStaleAfterMs,
    leaseMs: RESUME_LOCK_LEASE_MS,
  });
  if (!lock.acquired) return false;
  try {
    const run = await store.getRun(runId);
    if (!run || !isAtRest(run)) return false;
    const recorder = new RunRecorder(store, {
      runId,
      sessionId: run.sessionId,
      namespace: run.namespace,
      origin: run.origin,
    });
    await recorder.record({
      kind: 'control.requested',
      payload: { verb: 'cancel', reason: request.reason, requestId: request.requestId },
    });
    await recorder.record({
      kind: 'control.observed',
      payload: { verb: 'cancel', requestId: request.requestId },
    });
    await recorder.record({
      kind: 'run.cancelled',
      payload: { reason: request.reason ?? CANCEL_REQUESTED },
    });
    const key = await claimKeyOf(store, run);
    if (key) await store.release(key, runId);
    await store.dropContinuation(runId);
    return true;
  } finally {
    await store.release(lockKey, holder).catch(() => false);
  }
}

/** The claim a run holds: its workflow thread, or its agent session (none without one). */
async function claimKeyOf(store: EventStore, run: RunSummary): Promise<string | null> {
  const [first] = await store.read(run.runId);
  if (first?.kind === 'run.started' && first.payload.invocableType === 'workflow') {
    return threadClaimKey(run.origin, run.sessionId ?? run.runId);
  }
  return run.sessionId === null ? null : sessionClaimKey(run.sessionId);
}
