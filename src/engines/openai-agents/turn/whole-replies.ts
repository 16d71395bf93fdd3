/**
 * The model of every turn, wrapped so it answers as its turn asked ({@link ReplyModeModel}):
 * a live turn streams from the model; a turn nobody reads live (`deck.run`, the JSON chat
 * route) asks for whole replies, since streaming buys it nothing (parsing a server-sent event
 * per token, then recording each one, costs about as much as the rest of the turn). Every
 * model the runner gets is wrapped (a named one through {@link replyModeProvider}, a model
 * object of the definition by the engine when it compiles), and the wrapper finds its turn,
 * and so the mode, through the turn's async context (`turn-context.ts`), because a compiled
 * agent and its model are shared by every turn of that agent.
 *
 * On the streamed loop the wrapper's streamed call streams from the model, or, in a turn that
 * wants whole replies, makes one ordinary request and replays the answer as the stream would
 * end ({@link replay}: one text delta per text part, then `response_done` with the same
 * output and usage); either way it counts the turn's `streaming`. On the plain loop the
 * engine asks for whole responses itself, and the wrapper tells the loop each call before it
 * is made and its response (`TurnModelCalls.beforeCall`, `onResponse`). Outside a turn (a
 * headless run) it is the model, untouched but for one thing it does everywhere: a tool call
 * by a tool's unconverted name (`get-env` where `get_env` was offered) is renamed to the name
 * offered (`offered-names.ts`). In a turn, each request gets the session's history before the
 * turn's own input (`turn-context.ts` rule 5).
 */

import type {
  AgentInputItem,
  Model,
  ModelProvider,
  ModelRequest,
  ModelResponse,
  ModelRetryAdviceRequest,
  StreamEvent,
} from '@openai/agents-core';
import { APIUserAbortError } from 'openai';
import type { EventDraft } from '../../../core/events.js';
import type { AnsweredResponse, ModelCallLog, SentBody } from './model-call-log.js';
import { withOfferedCallNames, withOfferedNames } from './offered-names.js';
import { currentTurnCalls, type TurnModelCalls } from './turn-context.js';

/** A model that streams or answers in one piece, as the turn that calls it asked. */
export class ReplyModeModel implements Model {
  readonly supportsPromptModelSelection?: boolean;

  constructor(readonly inner: Model) {
    if (inner.supportsPromptModelSelection !== undefined) {
      this.supportsPromptModelSelection = inner.supportsPromptModelSelection;
    }
  }

  async getResponse(request: ModelRequest): Promise<ModelResponse> {
    const calls = currentTurnCalls();
    calls?.beforeCall?.(request);
    const sent = withHistory(request, calls);
    // A request whose signal already aborted never leaves: nothing to record.
    if (calls?.modelCalls && !request.signal?.aborted) {
      return this.#recordedResponse(request, sent, calls, calls.modelCalls);
    }
    const answered = await this.inner.getResponse(sent).catch((error: unknown) => {
      throw asAbortError(error, request.signal);
    });
    const response = withOfferedNames(request, answered);
    calls?.onResponse?.(response, null);
    return response;
  }

  /** A whole response of a turn that records its model calls (`turn-context.ts` rule 6). */
  async #recordedResponse(
    request: ModelRequest,
    sent: ModelRequest,
    calls: TurnModelCalls,
    log: ModelCallLog,
  ): Promise<ModelResponse> {
    calls.sent = undefined;
    const answering = this.inner.getResponse(sent); // the client is handed the body now
    answering.catch(() => undefined); // awaited below, once the start is told
    const call = log.start(sent, takeSent(calls));
    calls.onModelCall?.(call.draft);
    let answered: ModelResponse;
    try {
      answered = await answering;
    } catch (error) {
      calls.onModelCall?.(log.failed(call, error));
      throw asAbortError(error, request.signal);
    }
    const response = withOfferedNames(request, answered);
    calls.onResponse?.(response, log.completed(call, response));
    return response;
  }

  getStreamedResponse(request: ModelRequest): AsyncIterable<StreamEvent> {
    const calls = currentTurnCalls();
    if (!calls) return offeredNamesIn(this.inner.getStreamedResponse(request), request);
    const sent = withHistory(request, calls);
    const source = () =>
      calls.whole
        ? replay(this.inner, sent)
        : offeredNamesIn(this.inner.getStreamedResponse(sent), request);
    // A request whose signal already aborted never leaves: nothing to record.
    const log = request.signal?.aborted ? undefined : calls.modelCalls;
    return tracked(log ? recorded(source, sent, calls, log) : source(), calls, request.signal);
  }

  getRetryAdvice(args: ModelRetryAdviceRequest) {
    return this.inner.getRetryAdvice?.(args);
  }
}

/** `request` with the turn's history before its input (the same request when there is none). */
function withHistory(request: ModelRequest, calls: TurnModelCalls | undefined): ModelRequest {
  const history = calls?.history;
  if (history === undefined || history.length === 0) return request;
  const input: AgentInputItem[] =
    typeof request.input === 'string'
      ? [{ type: 'message', role: 'user', content: request.input }]
      : request.input;
  return { ...request, input: [...history, ...input] };
}

/** `model`, wrapped once (a model already wrapped is returned as is). */
export function replyMode(model: Model): ReplyModeModel {
  return model instanceof ReplyModeModel ? model : new ReplyModeModel(model);
}

/** A provider whose models are wrapped in {@link ReplyModeModel}. */
export function replyModeProvider(provider: ModelProvider): ModelProvider {
  return { getModel: async (name) => replyMode(await provider.getModel(name)) };
}

/** The body the client was told for the request just started, forgotten for the next one. */
function takeSent(calls: TurnModelCalls): SentBody | undefined {
  const sent = calls.sent;
  calls.sent = undefined;
  return sent;
}

/** What `modelCallMark` wraps: a `model.call.*` draft travelling in the model's stream. */
const MODEL_CALL_MARK = 'agentdeck.model_call';

/** A raw model event carrying `draft` through the engine's stream, in its order. */
function markOf(draft: EventDraft, calls: TurnModelCalls): StreamEvent {
  calls.unreadModelCalls?.add(draft);
  return { type: 'model', event: { type: MODEL_CALL_MARK, draft } } as StreamEvent;
}

/** The `model.call.*` draft a raw model event of the stream carries, if it is one. */
export function modelCallMark(data: unknown): EventDraft | null {
  const event = (data as { type?: unknown; event?: { type?: unknown; draft?: EventDraft } })?.event;
  return (data as { type?: unknown }).type === 'model' && event?.type === MODEL_CALL_MARK
    ? (event.draft ?? null)
    : null;
}

/**
 * The model's stream for one request of a turn that records its model calls: its start
 * before anything of the response (the client was handed the body when the source was first
 * read), its end after `response_done`, or its failure, each as a mark in the stream. A mark
 * the engine drops (a failed or aborted stream discards what is unread) stays in
 * `calls.unreadModelCalls` for the loop to yield at its end.
 */
async function* recorded(
  source: () => AsyncIterable<StreamEvent>,
  sent: ModelRequest,
  calls: TurnModelCalls,
  log: ModelCallLog,
): AsyncGenerator<StreamEvent> {
  calls.sent = undefined;
  const iterator = source()[Symbol.asyncIterator]();
  const first = iterator.next(); // the client is handed the body now
  first.catch(() => undefined); // awaited below, once the start is told
  const call = log.start(sent, takeSent(calls));
  yield markOf(call.draft, calls);
  let finishReason: string | null = null;
  let ended = false;
  let read = false;
  try {
    for (let step = await first; !step.done; step = await iterator.next()) {
      const event = step.value;
      finishReason = chunkFinishReason(event) ?? finishReason;
      yield event;
      if (event.type === 'response_done' && !ended) {
        ended = true;
        const response = event.response as unknown as AnsweredResponse;
        yield markOf(log.completed(call, response, finishReason), calls);
      }
    }
    read = true;
    // An aborted request ends its stream quietly (a pause, a cancel), without a response.
    if (!ended) {
      ended = true;
      yield markOf(log.failed(call, new Error(STOPPED)), calls);
    }
  } catch (error) {
    read = true;
    if (!ended) {
      ended = true;
      yield markOf(log.failed(call, error), calls);
    }
    throw error;
  } finally {
    if (!read) {
      // The engine let go of the stream before its end: let go of the model's too.
      if (!ended) calls.unreadModelCalls?.add(log.failed(call, new Error(STOPPED)));
      await iterator.return?.();
    }
  }
}

const STOPPED = 'the request was stopped before its response ended';

/** A chat completions chunk's finish reason (its stream's end says none), else `null`. */
function chunkFinishReason(event: StreamEvent): string | null {
  if (event.type !== 'model') return null;
  const choices = (event.event as { choices?: Array<{ finish_reason?: unknown }> } | null)?.choices;
  const reason = choices?.[0]?.finish_reason;
  return typeof reason === 'string' ? reason : null;
}

/** `source`, counted in `calls.streaming` while it is read. */
async function* tracked(
  source: AsyncIterable<StreamEvent>,
  calls: TurnModelCalls,
  signal: AbortSignal | undefined,
): AsyncGenerator<StreamEvent> {
  calls.streaming += 1;
  try {
    yield* source;
  } catch (error) {
    throw asAbortError(error, signal);
  } finally {
    calls.streaming -= 1;
  }
}

/**
 * The OpenAI client reports a request its signal aborted as `APIUserAbortError`, while the
 * engine's loop ends quietly (a pause, a cancel) only on an error named `AbortError`, which is
 * what an in-process model throws. Without this, a pause that stops a request before its
 * response began (the run's first moment, or right after a tool) was recorded as
 * `run.failed {"errorType":"APIUserAbortError"}` on the real client path only.
 */
export function asAbortError(error: unknown, signal: AbortSignal | undefined): unknown {
  if (!signal?.aborted || !(error instanceof APIUserAbortError)) return error;
  const abort = new Error(error.message, { cause: error });
  abort.name = 'AbortError';
  return abort;
}

/** `source`, its calls by a tool's unconverted name renamed in `response_done` (`offered-names.ts`). */
async function* offeredNamesIn(
  source: AsyncIterable<StreamEvent>,
  request: ModelRequest,
): AsyncGenerator<StreamEvent> {
  for await (const event of source) {
    if (event.type !== 'response_done') {
      yield event;
      continue;
    }
    const output = withOfferedCallNames(request, event.response.output);
    yield output === event.response.output
      ? event
      : { ...event, response: { ...event.response, output } };
  }
}

/** One non-streamed request, told as the end of a stream: its text, then `response_done`. */
async function* replay(model: Model, request: ModelRequest): AsyncGenerator<StreamEvent> {
  const response = withOfferedNames(request, await model.getResponse(request));
  for (const item of response.output) {
    if (item.type !== 'message' || item.role !== 'assistant') continue;
    for (const part of item.content) {
      if (part.type === 'output_text' && part.text !== '') {
        yield {
          type: 'output_text_delta',
          delta: part.text,
          ...(item.id !== undefined ? { itemId: item.id } : {}),
        } as StreamEvent;
      }
    }
  }
  yield {
    type: 'response_done',
    response: {
      id: response.responseId ?? '',
      ...(response.requestId !== undefined ? { requestId: response.requestId } : {}),
      usage: response.usage,
      output: response.output,
      ...(response.providerData !== undefined ? { providerData: response.providerData } : {}),
      ...(response.rawUsage !== undefined ? { rawUsage: response.rawUsage } : {}),
    },
  } as StreamEvent;
}
