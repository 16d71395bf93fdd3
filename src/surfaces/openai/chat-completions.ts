/**
 * `POST /v1/chat/completions`: one agent turn as the chat completions API answers it, JSON
 * (`chat.completion`) or streamed (`chat.completion.chunk` frames, `data: [DONE]` last), the
 * frames made by `chat-codec.ts` and pumped at the run's pace by the HTTP surface's
 * `streamedRun` (a client that leaves stops the run, as on the 1.2.1 stream route).
 * Stateless by default, as the API is: the request's earlier messages are the turn's
 * history and no session is written. With a session (`X-Session-Id` or `session_id`) the
 * service keeps the history and only the last user message is new.
 */
import type { z } from 'zod';
import { DEFAULT_RETRY_AFTER_SECONDS, errorMessage, errorTypeName } from '../../core/errors.js';
import type { Event } from '../../core/events.js';
import type { HttpDeps } from '../http/deps.js';
import { logRunFailure, RUN_ID_HEADER } from '../http/errors.js';
import { route } from '../http/routes.js';
import { answerOf, failureLine } from '../http/run-results.js';
import { formatFrame } from '../http/sse.js';
import { streamedRun } from '../http/stream-buffer.js';
import { ChatChunkCodec, type ChatFrame, chatCompletion, DONE } from './chat-codec.js';
import { addUsage, failedRunError, isStop, stopNote, type TokenCounts } from './endings.js';
import { OPENAI_PREFIX, openAiErrorResponse } from './errors.js';
import { refuseTools, turnMessages } from './messages.js';
import { replayableRenderer } from './replayable.js';
import { ChatCompletionAnswer, ChatCompletionRequest, OpenAiErrorSchema } from './schemas.js';
import { agentOf, type StartedTurn, sessionOf, startTurn } from './turns.js';

export function chatCompletionsRoute(deps: HttpDeps) {
  return route<z.infer<typeof ChatCompletionRequest>>({
    method: 'post',
    path: `${OPENAI_PREFIX}/chat/completions`,
    role: 'run',
    summary: 'OpenAI chat completions: one turn of the agent named by `model`',
    description:
      'JSON `chat.completion`, or with `stream: true` server-sent `chat.completion.chunk` frames ' +
      'and `data: [DONE]` (with `stream_options.include_usage`, a last chunk with the usage). ' +
      'Stateless unless a session is named (`X-Session-Id` header or `session_id`). A tool call ' +
      'held for approval ends the answer with a message naming the run to answer.',
    tag: 'openai',
    body: { schema: ChatCompletionRequest, description: 'A chat completions request.' },
    responses: {
      200: {
        description: 'The answer, `application/json`, or `text/event-stream` with `stream: true`.',
        schema: ChatCompletionAnswer,
        sse: '`data: <chat.completion.chunk>` frames, then `data: [DONE]`; a failed run: `data: {"error": ...}`.',
        headers: ['X-Run-Id'],
      },
      400: {
        description: 'A malformed request, or one with its own `tools`.',
        schema: OpenAiErrorSchema,
      },
      404: {
        description: '`model` names no agent (`model_not_found`).',
        schema: OpenAiErrorSchema,
      },
      409: { description: 'The session is busy with another turn.', schema: OpenAiErrorSchema },
    },
    async handle({ body, request }) {
      const agent = agentOf(deps, body.model);
      refuseTools(body);
      const turn = turnMessages(body.messages, 'messages');
      const sessionId = sessionOf(request, body.session_id);
      const stream = body.stream === true;
      const started = await startTurn(deps, request, agent, turn, {
        sessionId,
        stream,
        // With a session, the service keeps the history: the client's copy is not played again.
        keepHistory: sessionId === undefined,
      });
      const meta = {
        id: `chatcmpl-${started.runId}`,
        created: Math.floor(Date.now() / 1000),
        model: agent,
        includeUsage: body.stream_options?.include_usage === true,
      };
      const headers = { [RUN_ID_HEADER]: started.runId };
      if (!stream) return jsonAnswer(deps, started, meta, headers);
      const renderer = replayableRenderer(new ChatChunkCodec(meta), formatChatFrame, {
        observe(event) {
          if (event.kind === 'run.failed')
            logRunFailure(event.payload, failureLine(event), deps.log);
        },
        failed(error) {
          deps.log(
            `[agentdeck] chat completions stream failed with ${errorTypeName(error)}: ${errorMessage(error)}`,
          );
          return formatChatFrame({
            error: { message: 'internal error', type: 'server_error', param: null, code: null },
          });
        },
      });
      return streamedRun(deps, started.first, started.events, renderer, headers);
    },
  });
}

function formatChatFrame(frame: ChatFrame): string {
  return frame === DONE ? `data: ${DONE}\n\n` : formatFrame({ data: frame });
}

/** Read the turn to its end; its answer as one `chat.completion`. */
async function jsonAnswer(
  deps: HttpDeps,
  { first, events }: StartedTurn,
  meta: { id: string; created: number; model: string },
  headers: Record<string, string>,
): Promise<Response> {
  let text = '';
  let end: Event | null = null;
  let usage: TokenCounts | null = null;
  for (let step = first; !step.done; step = await events.next()) {
    const event = step.value;
    if (event.kind === 'text.delta') text += event.payload.text;
    else if (event.kind === 'usage.reported') usage = addUsage(usage, event.payload);
    else if (event.kind === 'run.completed' || event.kind === 'run.failed' || isStop(event)) {
      end = event;
    }
  }
  if (end?.kind === 'run.completed') {
    const answer = answerOf(end);
    const content = typeof answer === 'string' ? answer : JSON.stringify(answer ?? null);
    return Response.json(chatCompletion(meta, content, end.payload.usage), { headers });
  }
  if (end?.kind === 'run.failed') {
    logRunFailure(end.payload, failureLine(end), deps.log);
    const { error } = failedRunError(end);
    const outage = error.code === 'service_unavailable';
    return openAiErrorResponse(outage ? 503 : 500, error.message, {
      code: error.code,
      headers: {
        ...headers,
        ...(outage ? { 'retry-after': String(DEFAULT_RETRY_AFTER_SECONDS) } : {}),
      },
    });
  }
  const note = end && isStop(end) ? stopNote(end) : '';
  const content = text ? `${text}\n\n${note}` : note;
  return Response.json(chatCompletion(meta, content, usage), { headers });
}
