/**
 * A run that just paused, or stopped to wait for an answer, may have been asked to resume
 * (or cancel) while it was stopping:
 * the request found it still running, so nobody else will act on it. Act on it here: a
 * cancel ends the run at rest, a resume continues it. Whoever resumes first wins; the other
 * does nothing. Tested through the deck: src/deck/run-control-agents.test.ts ("never leaves
 * a run stuck when resume follows pause at once").
 */
import { ConflictError, errorMessage, NotFoundError } from '../../core/errors.js';
import type { Event } from '../../core/events.js';
import { log } from '../../core/log.js';
import type { EventStore } from '../../core/store.js';
import { cancelAtRest } from './rest-cancel.js';

/** Resolves when done; never rejects (a failure is logged). */
export function continueIfAsked(
  store: EventStore,
  runId: string,
  staleAfterMs: number,
  /** `null` for a run waiting for an answer: only a cancel is acted on (an answer resumes it). */
  resume: ((requestId: string) => AsyncIterable<Event>) | null,
): Promise<void> {
  return (async () => {
    const requests = await store.readControl(runId);
    const lastPause = resume ? requests.findLastIndex((r) => r.verb === 'pause') : -1;
    const later = requests.slice(lastPause + 1);
    // A cancel that reached the run while it was stopping found it still running.
    const cancel = later.find((r) => r.verb === 'cancel');
    if (cancel) {
      await cancelAtRest(store, runId, cancel, staleAfterMs);
      return;
    }
    const request = later.find((r) => r.verb === 'resume');
    if (!request || !resume) return;
    for await (const _ of resume(request.requestId));
  })().catch((error: unknown) => {
    if (error instanceof NotFoundError || error instanceof ConflictError) return;
    log.error(`[agentdeck] could not continue run '${runId}': ${errorMessage(error)}`);
  });
}
