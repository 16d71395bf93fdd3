/**
 * `POST /v1/responses`: one agent turn as the Responses API answers it, JSON (a `response`
 * object) or streamed (its named events, made by `responses-codec.ts`). A response's id is
 * its run's: `resp_<run id>`. A conversation is kept in a session, as the API keeps it
 * (`store` defaults to true): a new one in session `resp_<run id>` of its first response,
 * and `previous_response_id` continues the session of that response's run, at its latest
 * turn (agentdeck keeps one history per session, not a tree: continuing from an older
 * response continues the conversation as it is now). `store: false` plays the turn with no
 * session; such a response cannot be continued. A named session (`X-Session-Id`,
 * `session_id`) is used as given. `GET /v1/responses/{response_id}` reads a response back: its
 * run's events, from the log, through the same codec (a run still playing is `in_progress`).
 */
import type { z } from 'zod';
import { errorMessage, errorTypeName } from '../../core/errors.js';
import type { Event } from '../../core/events.js';
import { newRunId } from '../../core/run-ids.js';
import type { HttpDeps } from '../http/deps.js';
import { logRunFailure, RUN_ID_HEADER } from '../http/errors.js';
import { route } from '../http/routes.js';
import { failureLine } from '../http/run-results.js';
import { formatFrame } from '../http/sse.js';
import { streamedRun } from '../http/stream-buffer.js';
import { failedRunError } from './endings.js';
import { OPENAI_PREFIX, OpenAiError, openAiErrorResponse } from './errors.js';
import { refuseTools, turnMessages } from './messages.js';
import { replayableRenderer } from './replayable.js';
import { ResponsesCodec } from './responses-codec.js';
import { OpenAiErrorSchema, ResponseAnswer, ResponseRequest } from './schemas.js';
import { agentOf, sessionOf, startTurn } from './turns.js';

const RESPONSE_PREFIX = 'resp_';

export function responsesRoute(deps: HttpDeps) {
  return route<z.infer<typeof ResponseRequest>>({
    method: 'post',
    path: `${OPENAI_PREFIX}/responses`,
    role: 'run',
    summary: 'OpenAI responses: one turn of the agent named by `model`',
    description:
      'A `response` object, or with `stream: true` its server-sent events (`response.created` ... ' +
      '`response.output_text.delta` ... `response.completed`, each with `sequence_number`). ' +
      "The id is `resp_<run id>`; `previous_response_id` continues that response's conversation. " +
      'A tool call held for approval ends the answer (status `incomplete`) with a message naming the run to answer.',
    tag: 'openai',
    body: { schema: ResponseRequest, description: 'A responses request.' },
    responses: {
      200: {
        description:
          'The response, `application/json`, or `text/event-stream` with `stream: true`.',
        schema: ResponseAnswer,
        sse: '`event: <type>` and `data: <event>` per Responses stream event; the last is `response.completed`, `response.incomplete` or `response.failed`.',
        headers: ['X-Run-Id'],
      },
      400: {
        description:
          'A malformed request, one with its own `tools`, or a `previous_response_id` that was not stored.',
        schema: OpenAiErrorSchema,
      },
      404: {
        description:
          '`model` names no agent (`model_not_found`), or `previous_response_id` no response.',
        schema: OpenAiErrorSchema,
      },
      409: {
        description: 'The conversation is busy with another turn.',
        schema: OpenAiErrorSchema,
      },
    },
    async handle({ body, request }) {
      const agent = agentOf(deps, body.model);
      refuseTools(body);
      const items =
        typeof body.input === 'string' ? [{ role: 'user', content: body.input }] : body.input;
      const turn = turnMessages(items, 'input', body.instructions ?? null);
      const runId = newRunId();
      const previous = body.previous_response_id ?? null;
      const named = sessionOf(request, body.session_id);
      const continued = previous === null ? undefined : await sessionOfResponse(deps, previous);
      if (named !== undefined && continued !== undefined && named !== continued) {
        throw new OpenAiError(
          400,
          `previous_response_id '${previous}' belongs to session '${continued}', not '${named}'; send one of them`,
          'previous_response_id',
        );
      }
      const sessionId =
        named ?? continued ?? (body.store === false ? undefined : `${RESPONSE_PREFIX}${runId}`);
      const stream = body.stream === true;
      const started = await startTurn(deps, request, agent, turn, {
        sessionId,
        runId,
        stream,
        keepHistory: true,
      });
      const codec = new ResponsesCodec({
        id: `${RESPONSE_PREFIX}${started.runId}`,
        createdAt: Math.floor(Date.now() / 1000),
        model: agent,
        instructions: body.instructions ?? null,
        previousResponseId: previous,
      });
      const headers = { [RUN_ID_HEADER]: started.runId };
      const observe = (event: Event) => {
        if (event.kind === 'run.failed') logRunFailure(event.payload, failureLine(event), deps.log);
      };
      if (stream) {
        const renderer = replayableRenderer(
          codec,
          (frame) => formatFrame({ event: frame.type, data: frame }),
          {
            observe,
            failed(error) {
              deps.log(
                `[agentdeck] responses stream failed with ${errorTypeName(error)}: ${errorMessage(error)}`,
              );
              const data = {
                type: 'error',
                code: 'server_error',
                message: 'internal error',
                param: null,
                sequence_number: 0,
              };
              return formatFrame({ event: 'error', data });
            },
          },
        );
        return streamedRun(deps, started.first, started.events, renderer, headers);
      }
      const { first, events } = started;
      for (let step = first; !step.done; step = await events.next()) {
        observe(step.value);
        codec.encode(step.value);
        if (step.value.kind === 'run.failed') {
          const { error } = failedRunError(step.value);
          const status = error.code === 'service_unavailable' ? 503 : 500;
          await events.return();
          return openAiErrorResponse(status, error.message, { code: error.code, headers });
        }
      }
      return Response.json(codec.response, { headers });
    },
  });
}

/** `GET /v1/responses/{response_id}`: the response as its run's events make it now. */
export function responseReadRoute(deps: HttpDeps) {
  return route({
    method: 'get',
    path: `${OPENAI_PREFIX}/responses/{response_id}`,
    role: 'read',
    summary: 'An OpenAI response, read back',
    description:
      "The `response` object of `resp_<run id>`, folded from its run's events (`in_progress` " +
      "while the run plays). The request's `instructions` and `previous_response_id` are not " +
      'recorded with the run, so they read `null`.',
    tag: 'openai',
    responses: {
      200: { description: 'The response.', schema: ResponseAnswer, headers: ['X-Run-Id'] },
      404: { description: 'No response by that id.', schema: OpenAiErrorSchema },
    },
    async handle({ params }) {
      const id = params.response_id ?? '';
      const run = await agentRunOf(deps, id, 'response_id');
      const codec = new ResponsesCodec({
        id,
        createdAt: Math.floor(Date.parse(run.startedAt) / 1000),
        model: run.origin,
        instructions: null,
        previousResponseId: null,
      });
      for (const event of await deps.eventLog().read(run.runId)) codec.encode(event);
      return Response.json(codec.response, { headers: { [RUN_ID_HEADER]: run.runId } });
    },
  });
}

/** The agent run behind response `id`, or a 404 naming `param`. */
async function agentRunOf(deps: HttpDeps, id: string, param: string) {
  const runId = id.startsWith(RESPONSE_PREFIX) ? id.slice(RESPONSE_PREFIX.length) : null;
  const run = runId ? await deps.eventLog().getRun(runId) : null;
  if (!run || !deps.deck.agents.has(run.origin)) {
    throw new OpenAiError(
      404,
      `${param} '${id}' names no response of this service (an id is 'resp_<run id>', as a response's 'id' gives it)`,
      param,
      param === 'previous_response_id' ? 'previous_response_not_found' : 'response_not_found',
    );
  }
  return run;
}

/** The session of the run behind response `id`: 404 when there is none, 400 when it kept none. */
async function sessionOfResponse(deps: HttpDeps, id: string): Promise<string> {
  const run = await agentRunOf(deps, id, 'previous_response_id');
  if (run.sessionId === null) {
    throw new OpenAiError(
      400,
      `response '${id}' was made with store: false, so its conversation was not kept; send the whole conversation as input instead`,
      'previous_response_id',
    );
  }
  return run.sessionId;
}
