/**
 * The events a run records when it acts on a control request: `control.observed` first,
 * then the status change (`run.paused` here; `run.cancelled` by the run's own ending).
 */
import type { Event } from '../core/events.js';
import type { ControlRequest } from '../core/store.js';
import type { RunRecorder } from './recorder.js';

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
