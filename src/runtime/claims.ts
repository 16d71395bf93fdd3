/**
 * One turn per session (or workflow thread) at a time. A claim is taken before anything is
 * recorded, so a refused turn leaves no trace. A claim older than the stale-run timeout is
 * taken over, and the run that held it is closed with `run.failed` so its status never lies.
 */
import { ConflictError } from '../core/errors.js';
import { TERMINAL_STATUSES } from '../core/status.js';
import type { EventStore } from '../core/store.js';
import { type EventTap, RunRecorder } from './recorder.js';

export function sessionClaimKey(sessionId: string): string {
  return `session:${sessionId}`;
}

export async function acquireClaim(
  store: EventStore,
  key: string,
  runId: string,
  staleAfterSeconds: number,
  taps: readonly EventTap[] = [],
): Promise<void> {
  const result = await store.claim({ key, runId, staleAfterMs: staleAfterSeconds * 1000 });
  if (!result.acquired) {
    throw new ConflictError(
      `${describeKey(key)} is busy: run '${result.holder.runId}' holds it since ${result.holder.claimedAt}; ` +
        'wait for that run to end (or cancel it) and try again',
      { holderRunId: result.holder.runId },
    );
  }
  if (result.tookOverFrom && result.tookOverFrom.runId !== runId) {
    await closeStaleRun(store, result.tookOverFrom.runId, key, runId, staleAfterSeconds, taps);
  }
}

async function closeStaleRun(
  store: EventStore,
  staleRunId: string,
  key: string,
  newRunId: string,
  staleAfterSeconds: number,
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
      message: `its claim on ${describeKey(key)} was older than ${staleAfterSeconds} s and was taken over by run '${newRunId}'`,
    },
  });
}

function describeKey(key: string): string {
  const [kind, ...rest] = key.split(':');
  return `${kind} '${rest.join(':')}'`;
}
