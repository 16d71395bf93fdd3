/**
 * Canonical events to the chat completions API's stream (`chat.completion.chunk` objects,
 * then `[DONE]`) and to its JSON answer (`chat.completion`). The agent's own tools run
 * inside the service, so tool events are not shown: a chunk's `tool_calls` would ask the
 * client to run them. A stream opens with the assistant's role on `run.started`, carries
 * each `text.delta` as `content`, and ends on the terminal event: `finish_reason: "stop"`,
 * the usage chunk when the request asked for it (`stream_options.include_usage`), `[DONE]`.
 * A turn that stops (a tool call held for approval, a pause, a cancel) ends the same way
 * after a last `content` saying what waits (`endings.ts`); a failed run ends with an
 * `{"error"}` frame, which the `openai` client raises as an `APIError`.
 */
import type { ChatCompletion, ChatCompletionChunk } from 'openai/resources/chat/completions';
import type { Event } from '../../core/events.js';
import {
  addUsage,
  chatUsageOf,
  failedRunError,
  isStop,
  stopNote,
  type TokenCounts,
} from './endings.js';
import type { OpenAiErrorBody } from './errors.js';
import type { StreamCodec } from './replayable.js';

/** What every chunk of one answer repeats. */
export interface ChatMeta {
  /** `chatcmpl-<run id>`. */
  id: string;
  /** Unix seconds. */
  created: number;
  /** The agent's name. */
  model: string;
  /** `stream_options.include_usage`: a last chunk with the usage and no choices. */
  includeUsage: boolean;
}

/** The last data line of a stream. */
export const DONE = '[DONE]';

/** A frame's data: a chunk, an error, or `[DONE]`. */
export type ChatFrame = ChatCompletionChunk | OpenAiErrorBody | typeof DONE;

interface ChatState {
  /** Whether any content was sent, so a closing note starts on a new paragraph. */
  wrote: boolean;
  /** The model requests' usage so far: the usage of a turn that stopped before it completed. */
  usage: TokenCounts | null;
}

/** The chat completions stream of one run (see the module comment). */
export class ChatChunkCodec implements StreamCodec<ChatFrame, ChatState> {
  #state: ChatState = { wrote: false, usage: null };

  constructor(readonly meta: ChatMeta) {}

  snapshot(): ChatState {
    return { ...this.#state };
  }

  restore(state: ChatState): void {
    this.#state = { ...state };
  }

  encode(event: Event): ChatFrame[] {
    if (event.kind === 'run.started') return [this.#chunk({ role: 'assistant', content: '' })];
    if (event.kind === 'text.delta') {
      this.#state.wrote = true;
      return [this.#chunk({ content: event.payload.text })];
    }
    if (event.kind === 'usage.reported') {
      this.#state.usage = addUsage(this.#state.usage, event.payload);
      return [];
    }
    if (event.kind === 'run.completed') return this.#end(event.payload.usage ?? this.#state.usage);
    if (isStop(event)) {
      const note = (this.#state.wrote ? '\n\n' : '') + stopNote(event);
      this.#state.wrote = true;
      return [this.#chunk({ content: note }), ...this.#end(this.#state.usage)];
    }
    if (event.kind === 'run.failed') return [failedRunError(event)];
    return [];
  }

  #chunk(
    delta: ChatCompletionChunk.Choice.Delta,
    finish: ChatCompletionChunk.Choice['finish_reason'] = null,
  ): ChatCompletionChunk {
    const { id, created, model } = this.meta;
    return {
      id,
      object: 'chat.completion.chunk',
      created,
      model,
      choices: [{ index: 0, delta, finish_reason: finish, logprobs: null }],
    };
  }

  #end(usage: TokenCounts | null): ChatFrame[] {
    const frames: ChatFrame[] = [this.#chunk({}, 'stop')];
    if (this.meta.includeUsage) {
      const { id, created, model } = this.meta;
      frames.push({
        id,
        object: 'chat.completion.chunk',
        created,
        model,
        choices: [],
        usage: chatUsageOf(usage),
      });
    }
    frames.push(DONE);
    return frames;
  }
}

/** The JSON answer of a turn that ended with `end` (completed, or stopped with a note). */
export function chatCompletion(
  meta: Omit<ChatMeta, 'includeUsage'>,
  content: string,
  usage: TokenCounts | null,
): ChatCompletion {
  return {
    id: meta.id,
    object: 'chat.completion',
    created: meta.created,
    model: meta.model,
    choices: [
      {
        index: 0,
        message: { role: 'assistant', content, refusal: null },
        finish_reason: 'stop',
        logprobs: null,
      },
    ],
    usage: chatUsageOf(usage),
  };
}
