/**
 * `POST /agents/{name}/chat`: one agent turn, answered as JSON `{"output": ...}` or, with
 * `?stream=true`, as SSE (`data: {"delta": ...}` per chunk, then `event: done` or
 * `event: error`). The run is started and its first event awaited before any response is
 * chosen, so a busy session is a real 409, never an error frame.
 */
import type { z } from 'zod';
import { errorMessage, errorTypeName } from '../../core/errors.js';
import type { Event } from '../../core/events.js';
import { type HttpDeps, unknownName } from './deps.js';
import { failedRunResponse, HttpError, runIdHeader, withRunId } from './errors.js';
import { route } from './routes.js';
import { answerOf, chatUsage, drainToEnd, failureLine } from './run-results.js';
import { ChatAnswer, ChatBody, Detail, StreamQuery } from './schemas.js';
import { clientGone, formatPythonFrame, sseResponse } from './sse.js';

type Events = AsyncGenerator<Event, void, undefined>;

export function agentRoutes(deps: HttpDeps) {
  return [
    route<z.infer<typeof ChatBody>, z.infer<typeof StreamQuery>>({
      method: 'post',
      path: '/agents/{name}/chat',
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
            '`{"run_id", "status", "reason"}` when the run stopped before it answered.',
          headers: ['X-Run-Id'],
        },
        404: { description: 'No agent by that name.', schema: Detail },
        409: { description: 'The session is busy with another turn.', schema: Detail },
        422: { description: 'A malformed body or `stream` parameter.', schema: Detail },
        500: { description: 'The turn failed (details in the server log).', schema: Detail },
      },
      async handle({ params, body, query, request }) {
        const { deck } = deps;
        const name = params.name ?? '';
        if (!deck.agents.has(name)) throw unknownName('agent', name, deck.agents.keys());
        // A JSON answer has no frame to carry the failure: say what to set before starting a run.
        const missing = query.stream ? null : deps.missingModel(name);
        if (missing) throw new HttpError(503, missing);
        const options = { sessionId: body.session_id, ...(await deps.runContext(request)) };
        // A JSON answer needs only the result: the turn may ask the model for whole replies.
        const events = query.stream
          ? deck.stream(name, body.message, options)
          : deps.streamForResult(name, body.message, options);
        const first = await events.next(); // the claim is decided here: busy is a 409
        const runId = runIdHeader(first);
        if (query.stream) {
          return sseResponse(
            chatFrames(first, events, deps.log),
            () => clientGone(deps, first, events),
            runId,
          );
        }
        const end = await drainToEnd(first, events);
        const answer =
          end?.kind === 'run.completed'
            ? Response.json({ output: answerOf(end) })
            : end?.kind === 'run.failed'
              ? failedRunResponse(end.payload, failureLine(end), deps.log)
              : Response.json({ output: null });
        return withRunId(answer, runId);
      },
    }),
  ];
}

/**
 * The chat SSE frames. Tool and control events are not rendered. A stream that ends without
 * `done` or `error` says why in a last frame (additive: a 1.2.1 client ignores an event it
 * does not know and sees the stream end as before): `event: paused` with `{run_id, status,
 * reason}` for a run stopped by a pause request.
 */
async function* chatFrames(
  first: IteratorResult<Event, void>,
  events: Events,
  log: HttpDeps['log'],
): AsyncGenerator<string, void, undefined> {
  try {
    for (let step = first; !step.done; step = await events.next()) {
      const event = step.value;
      if (event.kind === 'text.delta') {
        yield formatPythonFrame({ data: { delta: event.payload.text } });
      } else if (event.kind === 'run.completed') {
        const usage = chatUsage(event.payload.usage);
        yield formatPythonFrame({ event: 'done', data: { output: answerOf(event), usage } });
      } else if (event.kind === 'run.failed') {
        log(failureLine(event));
        yield formatPythonFrame({ event: 'error', data: { error: event.payload.errorType } });
      } else if (event.kind === 'run.paused') {
        const data = { run_id: event.runId, status: 'paused', reason: event.payload.reason };
        yield formatPythonFrame({ event: 'paused', data });
      }
    }
  } catch (error) {
    log(`[agentdeck] chat stream failed with ${errorTypeName(error)}: ${errorMessage(error)}`);
    yield formatPythonFrame({ event: 'error', data: { error: errorTypeName(error) } });
  } finally {
    await events.return();
  }
}
