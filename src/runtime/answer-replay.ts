/**
 * Answers are idempotent: an answer (a workflow's, or an agent's tool approval) records its
 * id on `run.resumed` (the caller's idempotency key, or a digest of the value), so an answer
 * retried after its response was lost (a 503 or 507 while the store failed, a dropped
 * connection) gets the outcome the first one had, read from the run's log, instead of "not
 * waiting". A run that waits again is answered again: a retry is only replayed once the run
 * has moved past waiting. Tested in test/faults/answer-outage.int.test.ts,
 * src/runtime/answer-replay.test.ts, and for approvals in src/deck/tool-approvals.test.ts and
 * src/surfaces/http/inbox.test.ts.
 */
import { createHash } from 'node:crypto';
import { ConflictError, RunCancelledError, RunFailedError } from '../core/errors.js';
import type { Event } from '../core/events.js';
import { InterruptResult, type WorkflowResult } from '../core/interrupt-result.js';
import type { EventStore } from '../core/store.js';
import { timerPayload, wakeAtOfReason } from '../core/wakeups.js';
import { outputValue, type TurnResult, turnResultFrom } from './turn-result.js';

/** An answer's id: `key:<idempotency key>`, else `value:<sha-256 of its JSON>`. */
export function answerIdOf(value: unknown, idempotencyKey?: string | null): string {
  if (idempotencyKey) return `key:${idempotencyKey}`;
  const json = JSON.stringify(value) ?? 'undefined';
  return `value:${createHash('sha256').update(json).digest('hex')}`;
}

/**
 * The outcome of the answer `answerId` when it is the one that last continued run `runId`:
 * the final state or the next interrupt (an approval: the turn's result or the next call
 * waiting); a failed run throws as its answer did, a cancelled workflow run too;
 * a run still playing that answer is a ConflictError (retry). `null` when the run's latest
 * answer was another one (or none): the caller refuses the answer as before.
 */
export async function replayedAnswer(
  store: Pick<EventStore, 'read'>,
  runId: string,
  answerId: string,
): Promise<WorkflowResult | null> {
  const events = await store.read(runId);
  const at = events.findLastIndex((e) => e.kind === 'run.resumed');
  const resumed = events[at];
  if (resumed?.kind !== 'run.resumed' || resumed.payload.answerId !== answerId) return null;
  const endAt = events.findIndex((e, i) => i > at && isSegmentEnd(e));
  const end = events[endAt];
  if (!end) {
    throw new ConflictError(
      `run '${runId}' is still playing this answer; read its status, or retry in a moment`,
      { holderRunId: runId },
    );
  }
  // An agent's tool approval: the turn it continued, as the answer returned it.
  if (resumed.payload.answer && end.kind !== 'run.failed') {
    return answeredTurnResult(turnResultFrom(events.slice(at, endAt + 1), runId));
  }
  return resultOf(end);
}

/** What an answer to a held tool call returns: the next call waiting, else the turn's result. */
export function answeredTurnResult(result: TurnResult): WorkflowResult {
  return result.interrupt ?? (result as unknown as Record<string, unknown>);
}

function isSegmentEnd(event: Event): boolean {
  return ['run.completed', 'run.failed', 'run.cancelled', 'run.interrupted', 'run.paused'].includes(
    event.kind,
  );
}

function resultOf(end: Event): WorkflowResult {
  const threadId = end.sessionId ?? end.runId;
  switch (end.kind) {
    case 'run.completed':
      return outputValue(end.payload.output) as Record<string, unknown>;
    case 'run.interrupted':
      return new InterruptResult(
        end.payload.payload,
        end.payload.threadId,
        end.runId,
        end.payload.answerSchema,
      );
    case 'run.paused': {
      const wakeAt = wakeAtOfReason(end.payload.reason);
      return new InterruptResult(wakeAt && timerPayload(wakeAt), threadId, end.runId);
    }
    case 'run.failed':
      throw new RunFailedError(end.runId, end.payload.errorType, end.payload.message);
    default:
      throw new RunCancelledError(`the workflow run was cancelled after this answer`);
  }
}
