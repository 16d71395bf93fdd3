/**
 * Whole replies for turns nobody watches live. The engine always plays a turn through its
 * streamed loop (tool and message items arrive as they happen, and a pause or cancel stops
 * it at the same safe points), but when the caller only wants the result (`deck.run`, the
 * JSON chat route) streaming from the model buys nothing: parsing a server-sent event per
 * token, then recording each one, costs about as much as the rest of the turn. So every
 * model the engine hands to its runner is wrapped in a {@link ReplyModeModel}: inside
 * {@link withWholeReplies} its streamed call makes one ordinary (non-streamed) request and
 * replays the answer as the stream would end: one text delta per text part, then
 * `response_done` with the same output and usage. Outside, it streams as the model does.
 * The mode travels with the turn's async context, because a compiled agent (and its model)
 * is shared by every turn of that agent, streamed or not.
 */

import { AsyncLocalStorage } from 'node:async_hooks';
import type {
  Model,
  ModelProvider,
  ModelRequest,
  ModelResponse,
  ModelRetryAdviceRequest,
  RunContext,
  StreamEvent,
} from '@openai/agents-core';
import { APIUserAbortError } from 'openai';

/** What a turn's model calls share: the mode, and whether one is streaming right now. */
export interface TurnModelCalls {
  /** Ask for whole replies (the turn is not read live). */
  readonly whole: boolean;
  /** Model calls of the turn whose response is being read now (0 or 1). */
  streaming: number;
  /**
   * On the plain loop (`plain-turn.ts`), told before each whole model call of the turn, with
   * its request (it may stop the turn there: a pause), and then its response. Only the
   * turn's own calls see this turn's value: a deck run nested in one of its tools has its
   * own, and a headless `agent.run()` in one runs outside any turn ({@link withoutTurn}).
   */
  beforeCall?: (request: ModelRequest) => void;
  onResponse?: (response: ModelResponse) => void;
  /** Told each tool output on the plain loop (the runner's `agent_tool_end` hook). */
  onToolEnd?: (
    context: RunContext<unknown>,
    toolCall: { callId?: string; name?: string },
    output: string,
  ) => void;
}

const turnCalls = new AsyncLocalStorage<TurnModelCalls>();

/**
 * Run `body` outside any turn: a headless run started from a turn's tool (`agent.run()`)
 * must not be taken for that turn's own model calls, nor ask for its reply mode.
 */
export function withoutTurn<T>(body: () => T): T {
  return turnCalls.exit(body);
}

/** The model calls of the turn whose code is running now, if any. */
export function currentTurnCalls(): TurnModelCalls | undefined {
  return turnCalls.getStore();
}

/** Run `body` (which starts a turn) so that its model calls ask for whole replies, or not. */
export function withWholeReplies<T>(calls: TurnModelCalls, body: () => T): T {
  return turnCalls.run(calls, body);
}

/** A model that streams or answers in one piece, as the turn that calls it asked. */
export class ReplyModeModel implements Model {
  readonly supportsPromptModelSelection?: boolean;

  constructor(readonly inner: Model) {
    if (inner.supportsPromptModelSelection !== undefined) {
      this.supportsPromptModelSelection = inner.supportsPromptModelSelection;
    }
  }

  async getResponse(request: ModelRequest): Promise<ModelResponse> {
    const calls = turnCalls.getStore();
    calls?.beforeCall?.(request);
    const response = await this.inner.getResponse(request).catch((error: unknown) => {
      throw asAbortError(error, request.signal);
    });
    calls?.onResponse?.(response);
    return response;
  }

  getStreamedResponse(request: ModelRequest): AsyncIterable<StreamEvent> {
    const calls = turnCalls.getStore();
    if (!calls) return this.inner.getStreamedResponse(request);
    const source = calls.whole
      ? replay(this.inner, request)
      : this.inner.getStreamedResponse(request);
    return tracked(source, calls, request.signal);
  }

  getRetryAdvice(args: ModelRetryAdviceRequest) {
    return this.inner.getRetryAdvice?.(args);
  }
}

/** `model`, wrapped once (a model already wrapped is returned as is). */
export function replyMode(model: Model): ReplyModeModel {
  return model instanceof ReplyModeModel ? model : new ReplyModeModel(model);
}

/** A provider whose models are wrapped in {@link ReplyModeModel}. */
export function replyModeProvider(provider: ModelProvider): ModelProvider {
  return { getModel: async (name) => replyMode(await provider.getModel(name)) };
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

/** One non-streamed request, told as the end of a stream: its text, then `response_done`. */
async function* replay(model: Model, request: ModelRequest): AsyncGenerator<StreamEvent> {
  const response = await model.getResponse(request);
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
