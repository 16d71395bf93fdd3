/**
 * `POST /agents/{name}/chat`: one agent turn, answered as JSON `{"output": ...}` or, with
 * `?stream=true`, as SSE (`data: {"delta": ...}` per chunk, then `event: done` or
 * `event: error`). The run is started and its first event awaited before any response is
 * chosen, so a busy session is a real 409, never an error frame; a stream first asks the
 * session backend (a Redis) whether it answers, so an outage is 503 with `Retry-After`, as
 * for the JSON answer, never a 200 whose only frame is `event: error`.
 */
import type { z } from 'zod';
import { errorMessage, errorTypeName } from '../../core/errors.js';
import { type HttpDeps, unknownName } from './deps.js';
import { failedRunResponse, HttpError, logRunFailure, runIdHeader, withRunId } from './errors.js';
import { approvalItem, pendingToWire } from './inbox.js';
import { route } from './routes.js';
import { answerOf, chatUsage, drainToEnd, failureLine } from './run-results.js';
import { ChatAnswer, ChatBody, Detail, FailedRunDetail, StreamQuery } from './schemas.js';
import { formatPythonFrame } from './sse.js';
import { type FrameRenderer, streamedRun } from './stream-buffer.js';

export function agentRoutes(deps: HttpDeps) {
  return [
    route<z.infer<typeof ChatBody>, z.infer<typeof StreamQuery>>({
      method: 'post',
      path: '/agents/{name}/chat',
      role: 'run',
      summary: 'Play one turn of an agent',
      description:
        'JSON `{"output": ...}` (null when the turn was paused or cancelled), or with `?stream=true` ' +
        'server-sent events: `data: {"delta": "..."}` per chunk, then `event: done` with ' +
        '`{"output", "usage"}`, or `event: error` with `{"error": "<ExceptionTypeName>"}`.',
      tag: 'agents',
      query: StreamQuery,
      body: { schema: ChatBody, description: 'The session and the message.' },
      responses: {
        200: {
          description:
            'The answer: `application/json` by default, `text/event-stream` with `?stream=true`.',
          schema: ChatAnswer,
          sse:
            'Server-sent events: `data: {"delta": "<text>"}` per chunk of the answer, then one ' +
            'end frame: `event: done` with `{"output", "usage"}`; `event: error` with ' +
            '`{"error": "<ExceptionTypeName>"}`; or `event: paused` / `event: waiting` with ' +
            '`{"run_id", "status", "reason"}` when the run stopped before it answered; `event: approval` ' +
            'with the pending item (as `GET /pending` lists it) when a tool call waits for approval.',
          headers: ['X-Run-Id'],
        },
        404: { description: 'No agent by that name.', schema: Detail },
        409: {
          description:
            'The session is busy with another turn (or still busy after `multitask` waited).',
          schema: Detail,
        },
        422: {
          description: 'A malformed body, `stream` or `multitask` parameter.',
          schema: Detail,
        },
        500: {
          description:
            'The turn failed: `internal error` and its `run_id` (#41); why it failed is in the ' +
            "server log and the run's `run.failed` event, never in this body.",
          schema: FailedRunDetail,
          headers: ['X-Run-Id'],
        },
      },
      async handle({ params, body, query, request }) {
        const { deck } = deps;
        const name = params.name ?? '';
        if (!deck.agents.has(name)) throw unknownName('agent', name, deck.agents.keys());
        // A JSON answer has no frame to carry the failure: say what to set before starting a run.
        const missing = query.stream ? null : deps.missingModel(name);
        if (missing) throw new HttpError(503, missing);
        // A stream's status is sent with its first frame: a session backend that is down
        // would fail the turn after the 200, so ask it first (the JSON answer's run says so).
        if (query.stream) await deps.sessionsReachable();
        const options = {
          sessionId: body.session_id,
          ...(query.multitask ? { multitask: query.multitask } : {}),
          ...(await deps.runContext(request)),
        };
        // A JSON answer needs only the result: the turn may ask the model for whole replies.
        const events = query.stream
          ? deck.stream(name, body.message, options)
          : deps.streamForResult(name, body.message, options);
        const first = await events.next(); // the claim is decided here: busy is a 409
        const runId = runIdHeader(first);
        if (query.stream) {
          return streamedRun(deps, first, events, chatRenderer(deps.log), runId);
        }
        const end = await drainToEnd(first, events);
        const answer =
          end?.kind === 'run.completed'
            ? Response.json({ output: answerOf(end) })
            : end?.kind === 'run.failed'
              ? failedRunResponse(end.payload, failureLine(end), deps.log, end.runId)
              : end?.kind === 'run.interrupted'
                ? Response.json({ output: null, ...pendingToWire(approvalItem(end)) })
                : Response.json({ output: null });
        return withRunId(answer, runId);
      },
    }),
  ];
}

/**
 * How the chat route shows a run. Tool and control events are not rendered. A stream that
 * ends without `done` or `error` says why in a last frame (additive: a 1.2.1 client ignores an
 * event it does not know and sees the stream end as before): `event: paused` with `{run_id,
 * status, reason}` for a run stopped by a pause request; `event: approval` with the pending
 * item (`{run_id, invocable, kind, reason, thread_id, session_id, payload}`) for a tool call
 * that waits for a person's approval.
 */
function chatRenderer(log: HttpDeps['log']): FrameRenderer {
  return {
    frame(event) {
      if (event.kind === 'text.delta') {
        return formatPythonFrame({ data: { delta: event.payload.text } });
      }
      if (event.kind === 'run.completed') {
        const usage = chatUsage(event.payload.usage);
        return formatPythonFrame({ event: 'done', data: { output: answerOf(event), usage } });
      }
      if (event.kind === 'run.failed') {
        return formatPythonFrame({ event: 'error', data: { error: event.payload.errorType } });
      }
      if (event.kind === 'run.paused') {
        const data = { run_id: event.runId, status: 'paused', reason: event.payload.reason };
        return formatPythonFrame({ event: 'paused', data });
      }
      if (event.kind === 'run.interrupted') {
        return formatPythonFrame({ event: 'approval', data: pendingToWire(approvalItem(event)) });
      }
      return null;
    },
    observe(event) {
      if (event.kind === 'run.failed') logRunFailure(event.payload, failureLine(event), log);
    },
    failed(error) {
      log(`[agentdeck] chat stream failed with ${errorTypeName(error)}: ${errorMessage(error)}`);
      return formatPythonFrame({ event: 'error', data: { error: errorTypeName(error) } });
    },
  };
}
