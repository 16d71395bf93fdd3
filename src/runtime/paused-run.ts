/**
 * The run a resume addresses, read from the log: it must be paused as expected (sleeping, or
 * waiting for an answer); otherwise a NotFoundError saying what it is and what to do.
 * Tested in runtime.test.ts and workflow-run.test.ts (a run not paused, or not there, is refused
 * and nothing changes), and through the deck in src/deck/workflow-runs.test.ts.
 */
import { NotFoundError } from '../core/errors.js';
import type { RunStatus } from '../core/status.js';
import type { EventStore, RunSummary } from '../core/store.js';
import type { RunIdentity } from './recorder.js';

/** The identity a continued run keeps: the one its log entry already has. */
export function identityOf(summary: RunSummary): RunIdentity {
  return {
    runId: summary.runId,
    sessionId: summary.sessionId,
    namespace: summary.namespace,
    origin: summary.origin,
  };
}

export async function pausedRun(
  store: EventStore,
  runId: string,
  expected: RunStatus,
): Promise<RunSummary> {
  return requirePaused(await store.getRun(runId), runId, expected);
}

/** `summary` (run `runId` as just read) when it is paused as expected; else the NotFoundError. */
export function requirePaused(
  summary: RunSummary | null,
  runId: string,
  expected: RunStatus,
): RunSummary {
  if (summary?.status === expected) return summary;
  const what = expected === 'waiting_human' ? 'waiting for an answer' : 'sleeping';
  const hints: Partial<Record<RunStatus, string>> = {
    paused: ': it sleeps until a time, and tick() wakes it',
    waiting_human: ': it waits for an answer, see pending()',
    running:
      ': it is running now, or its process died mid-run (its claim is released after SERVICE_RUNTIME_STALE_RUN_AFTER_SECONDS)',
  };
  throw new NotFoundError(
    summary
      ? `run '${runId}' is not ${what} (its status is ${summary.status}${hints[summary.status] ?? ''}); nothing was changed`
      : `no run '${runId}' in the event log; pass a run id that pending() listed`,
  );
}
