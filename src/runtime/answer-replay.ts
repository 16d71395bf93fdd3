/**
 * Answers are idempotent: a workflow answer records its id on `run.resumed` (the caller's
 * idempotency key, or a digest of the value), so an answer retried after its response was
 * lost (a 503 or 507 while the store failed, a dropped connection) gets the outcome the first
 * one had, read from the run's log, instead of "not waiting". A run that waits again is
 * answered again: a retry is only replayed once the run has moved past waiting.
 * Tested in test/faults/answer-outage.int.test.ts and src/runtime/answer-replay.test.ts.
 */
import { createHash } from 'node:crypto';
import { ConflictError, RunCancelledError, RunFailedError } from '../core/errors.js';
import type { Event } from '../core/events.js';
import { InterruptResult, type WorkflowResult } from '../core/interrupt-result.js';
import type { EventStore } from '../core/store.js';
import { timerPayload, wakeAtOfReason } from '../core/wakeups.js';
import { outputValue } from './turn-result.js';

/** An answer's id: `key:<idempotency key>`, else `value:<sha-256 of its JSON>`. */
export function answerIdOf(value: unknown, idempotencyKey?: string | null): string {
  if (idempotencyKey) return `key:${idempotencyKey}`;
  const json = JSON.stringify(value) ?? 'undefined';
  return `value:${createHash('sha256').update(json).digest('hex')}`;
}

/**
 * The outcome of the answer `answerId` when it is the one that last continued run `runId`:
 * the final state or the next interrupt; a failed or cancelled run throws as its answer did;
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
  const end = events.slice(at + 1).find(isSegmentEnd);
  if (!end) {
    throw new ConflictError(
      `run '${runId}' is still playing this answer; read its status, or retry in a moment`,
      { holderRunId: runId },
    );
  }
  return resultOf(end);
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
      return new InterruptResult(end.payload.payload, end.payload.threadId, end.runId);
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
