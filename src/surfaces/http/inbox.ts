/**
 * The inbox: `GET /pending` lists every run of the catalog waiting for a person (workflow
 * interrupts, agents' tool calls held for approval), and `POST /runs/{run_id}/answer`
 * answers any of them by run id. A run that is not waiting is a 409, an unknown one a 404,
 * a malformed answer a 422; two concurrent answers: one plays, the other is a 409.
 */
import type { z } from 'zod';
import { errorMessage, NotFoundError } from '../../core/errors.js';
import type { Event } from '../../core/events.js';
import { isInterrupt, type WorkflowResult } from '../../core/interrupt-result.js';
import { answerIdOf, replayedAnswer } from '../../runtime/answer-replay.js';
import type { HttpDeps } from './deps.js';
import { HttpError, runErrorResponse, withRunId } from './errors.js';
import { route } from './routes.js';
import { AnswerBody, Answered, Detail, FailedRunDetail, Inbox } from './schemas.js';
import type { PendingItem, ServedDeck } from './served-deck.js';

/** The wire form of an inbox item. */
export function pendingToWire(item: PendingItem): Record<string, unknown> {
  return {
    run_id: item.runId,
    invocable: item.invocable,
    kind: item.kind,
    reason: item.reason,
    thread_id: item.threadId,
    session_id: item.sessionId,
    payload: item.payload,
    ...(item.blocked ? { blocked: item.blocked } : {}),
    ...(item.answerSchema ? { answer_schema: item.answerSchema } : {}),
  };
}

/** The inbox item an agent's `run.interrupted` (a tool call held for approval) stands for. */
export function approvalItem(event: Extract<Event, { kind: 'run.interrupted' }>): PendingItem {
  return {
    runId: event.runId,
    invocable: event.origin,
    kind: 'agent',
    reason: event.payload.reason ?? 'interrupt',
    threadId: event.payload.threadId,
    sessionId: event.sessionId,
    payload: event.payload.payload,
    ...(event.payload.answerSchema ? { answerSchema: event.payload.answerSchema } : {}),
  };
}

export function inboxRoutes(deps: HttpDeps) {
  const { deck } = deps;
  return [
    route({
      method: 'get',
      path: '/pending',
      role: 'read',
      summary: 'Every run waiting for a person',
      description:
        "Workflow interrupts and agents' tool calls held for approval, across the catalog, oldest first.",
      tag: 'runs',
      responses: { 200: { description: 'The inbox.', schema: Inbox } },
      async handle() {
        return Response.json({ items: (await deck.pending()).map(pendingToWire) });
      },
    }),
    route<z.infer<typeof AnswerBody>>({
      method: 'post',
      path: '/runs/{run_id}/answer',
      role: 'answer',
      control: true,
      summary: 'Answer a run waiting for a person',
      description:
        'A workflow interrupt: `value` is what `interrupt()` returns. A tool approval: `{"approved": true}` runs ' +
        'the call, `{"approved": false, "reason": "..."}` tells the model it was rejected. The run goes on ' +
        'before the response: its status after, its result, and what it waits for next. Sent again ' +
        'once the run has moved on, with the same `Idempotency-Key` header or the same value, an ' +
        "answer (a workflow's, or a tool approval) gets the first answer's outcome; a 503 or 507 " +
        'means it did not happen.',
      tag: 'runs',
      body: { schema: AnswerBody, description: 'The answer.' },
      responses: {
        200: { description: 'The answer was played.', schema: Answered, headers: ['X-Run-Id'] },
        404: { description: 'No run by that id in this catalog.', schema: Detail },
        409: {
          description: 'The run is not waiting for an answer, or another caller is answering it.',
          schema: Detail,
        },
        422: { description: 'A malformed body or answer.', schema: Detail },
        500: {
          description:
            'The run failed as it went on: `internal error` and its `run_id` (#41); why is in ' +
            "the server log and the run's `run.failed` event.",
          schema: FailedRunDetail,
          headers: ['X-Run-Id'],
        },
      },
      async handle({ params, body, request }) {
        const runId = params.run_id ?? '';
        const run = await deps.eventLog().getRun(runId);
        if (!run) throw new HttpError(404, `No run '${runId}'.`);
        const kind = deck.workflows.has(run.origin)
          ? 'workflow'
          : deck.agents.has(run.origin)
            ? 'agent'
            : null;
        if (kind === null) {
          throw new HttpError(
            404,
            `Run '${runId}' is of '${run.origin}', which this service does not serve.`,
          );
        }
        const key = idempotencyKeyOf(request);
        let result: Awaited<ReturnType<typeof deck.answer>>;
        if (run.status !== 'waiting_human') {
          // The retry of an answer that took effect (same key, or same value): its outcome.
          const answerId = answerIdOf(body.value, key.idempotencyKey);
          const replay = await replayedAnswer(deps.eventLog(), runId, answerId);
          if (!replay) {
            throw new HttpError(
              409,
              `Run '${runId}' is not waiting for an answer (its status is ${run.status}).`,
            );
          }
          result = replay;
        } else {
          try {
            const options = { ...(await deps.runContext(request)), ...key };
            result = await deck.answer(runId, body.value, options);
          } catch (error) {
            // It waited a moment ago: another caller answered it meanwhile.
            if (error instanceof NotFoundError) throw new HttpError(409, errorMessage(error));
            // A failure inside the run it continued: 500 naming the run (#41), logged.
            return runErrorResponse(error, deps.log, runId);
          }
        }
        const status = await statusAfter(deck, runId, result);
        const pending = isInterrupt(result)
          ? pendingToWire({
              runId,
              invocable: run.origin,
              kind,
              reason: kind === 'agent' ? 'approval' : 'interrupt',
              threadId: result.threadId,
              sessionId: run.sessionId,
              payload: result.payload,
              ...(result.answerSchema ? { answerSchema: result.answerSchema } : {}),
            })
          : null;
        const played = isInterrupt(result)
          ? null
          : kind === 'agent'
            ? { output: (result as { output?: unknown }).output ?? null }
            : result;
        return withRunId(Response.json({ run_id: runId, status, result: played, pending }), runId);
      },
    }),
  ];
}

/** The `Idempotency-Key` header, as `deck.answer`'s option (none when absent or empty). */
export function idempotencyKeyOf(request: Request): { idempotencyKey?: string } {
  const key = request.headers.get('idempotency-key')?.trim();
  return key ? { idempotencyKey: key } : {};
}

/**
 * The run's status once its answer played. Read from the log; when the store cannot say (it
 * failed just now, or the run's ending still waits to be written), what the result shows: an
 * answer that took effect is not reported as refused.
 */
async function statusAfter(deck: ServedDeck, runId: string, result: WorkflowResult) {
  const read = await deck.status(runId).catch(() => null);
  if (read !== null && read !== 'running') return read;
  return isInterrupt(result) ? (result.payload === null ? 'paused' : 'waiting_human') : 'completed';
}
