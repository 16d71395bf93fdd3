/**
 * The events a run records when it acts on a control request: `control.observed` first,
 * then the status change (`run.paused` here; `run.cancelled` by the run's own ending).
 *
 * Tested in src/runtime/runtime.test.ts and src/runtime/workflow-run.test.ts (control.observed,
 * then run.paused or run.cancelled), end to end in src/deck/run-control-agents.test.ts and
 * src/deck/run-control-workflows.test.ts.
 */
import { isBackendOutage } from '../../core/errors.js';
import type { Event } from '../../core/events.js';
import { failurePayload } from '../../core/failure-details.js';
import type { ControlRequest } from '../../core/store.js';
import type { RunRecorder } from '../recorder.js';
import { logFailure } from '../run-lease.js';

/** `control.observed` for the request a run acts on. */
export function observed(recorder: RunRecorder, request: ControlRequest): Promise<Event> {
  return recorder.record({
    kind: 'control.observed',
    payload: { verb: request.verb, requestId: request.requestId },
  });
}

/**
 * A run stopping for a pause records `control.observed` (when a request is known), then
 * `run.paused`. The caller marks itself paused and keeps its claim before yielding them, so a
 * consumer that stops reading at `run.paused` does not cancel the paused run.
 */
export async function recordPause(
  recorder: RunRecorder,
  request: ControlRequest | null,
): Promise<Event[]> {
  const events = request ? [await observed(recorder, request)] : [];
  events.push(
    await recorder.record({ kind: 'run.paused', payload: { reason: request?.reason ?? null } }),
  );
  return events;
}

/**
 * A run ending on an error: `run.cancelled` when it was asked to stop (after
 * `control.observed` when a cancel request asked it), else `run.failed` with the error (its
 * stack, and the node or tool an engine attached: `core/failure-details.ts`). A
 * failure to record is logged (a run another writer already ended stays as it is); returns
 * what was recorded. When the store is down (a backend outage) the ending waits in the
 * Runtime's `PendingEndings` and the outage is thrown, so the caller learns which backend
 * failed rather than seeing a run end without an ending.
 */
export async function recordEnding(
  recorder: RunRecorder,
  stop: { reason: string | null; request: ControlRequest | null },
  error: unknown,
): Promise<Event[]> {
  const recorded: Event[] = [];
  try {
    if (stop.reason && stop.request) recorded.push(await observed(recorder, stop.request));
    recorded.push(
      await recorder.record(
        stop.reason
          ? { kind: 'run.cancelled', payload: { reason: stop.reason } }
          : { kind: 'run.failed', payload: failurePayload(error) },
      ),
    );
  } catch (recordError) {
    if (isBackendOutage(recordError)) throw recordError;
    logFailure(`record the end of run '${recorder.identity.runId}'`)(recordError);
  }
  return recorded;
}
