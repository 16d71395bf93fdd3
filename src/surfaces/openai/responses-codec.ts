/**
 * Canonical events to the Responses API: its stream of named events, each with a
 * `sequence_number` (`response.created`, `response.in_progress`, then per assistant message
 * `response.output_item.added`, `response.content_part.added`, `response.output_text.delta`
 * per chunk, `response.output_text.done`, `response.content_part.done`,
 * `response.output_item.done`, and last `response.completed`, `response.incomplete` or
 * `response.failed`), and its JSON answer (a `response` object). A message item is opened
 * by its first `text.delta` and closed by its `message.completed`, the next message's
 * first delta or the run's end. As in the chat codec, the agent's own tool calls are not
 * shown (a `function_call` item asks the client to run it). A turn that stops adds a
 * message saying what waits (`endings.ts`) and ends `incomplete`; the `openai` client's
 * `responses.stream()` checks the order and identities of all of this.
 */
import type {
  Response as OpenAiResponse,
  ResponseOutputMessage,
  ResponseStreamEvent,
} from 'openai/resources/responses/responses';
import type { Event, EventOf } from '../../core/events.js';
import { addUsage, failedRunError, isStop, stopNote, type TokenCounts } from './endings.js';
import type { StreamCodec } from './replayable.js';

/** What the response object repeats. */
export interface ResponseMeta {
  /** `resp_<run id>`. */
  id: string;
  /** Unix seconds. */
  createdAt: number;
  /** The agent's name. */
  model: string;
  /** The request's instructions (added to the agent's), echoed as the API does. */
  instructions: string | null;
  previousResponseId: string | null;
}

interface OpenMessage {
  id: string;
  index: number;
  text: string;
}

interface ResponsesState {
  sequence: number;
  open: OpenMessage | null;
  /** The messages closed so far, for the final response object. */
  output: ResponseOutputMessage[];
  /** The model requests' usage so far: the usage of a turn that stopped before it completed. */
  usage: TokenCounts | null;
}

/** The Responses stream of one run (see the module comment). */
export class ResponsesCodec implements StreamCodec<ResponseStreamEvent, ResponsesState> {
  #state: ResponsesState = { sequence: 0, open: null, output: [], usage: null };
  #last: OpenAiResponse | null = null;

  constructor(readonly meta: ResponseMeta) {}

  /** The response object of the last lifecycle event encoded (the JSON answer, once the run ended). */
  get response(): OpenAiResponse {
    return this.#last ?? responseObject(this.meta, 'in_progress', []);
  }

  snapshot(): ResponsesState {
    const { sequence, open, output, usage } = this.#state;
    return { sequence, open: open ? { ...open } : null, output: [...output], usage };
  }

  restore(state: ResponsesState): void {
    this.#state = state;
    this.#state = this.snapshot(); // a copy: the kept one may be put back again
  }

  encode(event: Event): ResponseStreamEvent[] {
    const out: ResponseStreamEvent[] = [];
    const emit = (frame: DistributiveOmit<ResponseStreamEvent, 'sequence_number'>) => {
      out.push({ ...frame, sequence_number: this.#state.sequence++ } as ResponseStreamEvent);
    };
    if (event.kind === 'run.started') {
      emit({ type: 'response.created', response: this.#response('in_progress') });
      emit({ type: 'response.in_progress', response: this.#response('in_progress') });
    } else if (event.kind === 'text.delta') {
      const { messageId, text } = event.payload;
      if (this.#state.open?.id !== messageId) {
        this.#close(emit);
        this.#open(messageId, emit);
      }
      const open = this.#state.open as OpenMessage;
      open.text += text;
      emit({
        type: 'response.output_text.delta',
        item_id: open.id,
        output_index: open.index,
        content_index: 0,
        delta: text,
        logprobs: [],
      });
    } else if (event.kind === 'usage.reported') {
      this.#state.usage = addUsage(this.#state.usage, event.payload);
    } else if (event.kind === 'message.completed') {
      if (this.#state.open?.id === event.payload.messageId) this.#close(emit);
    } else if (event.kind === 'run.completed') {
      this.#close(emit);
      emit({ type: 'response.completed', response: this.#response('completed', event) });
    } else if (isStop(event)) {
      this.#close(emit);
      const note = `${event.runId}:note`;
      this.#open(note, emit);
      const open = this.#state.open as OpenMessage;
      open.text = stopNote(event);
      emit({
        type: 'response.output_text.delta',
        item_id: note,
        output_index: open.index,
        content_index: 0,
        delta: open.text,
        logprobs: [],
      });
      this.#close(emit);
      emit({ type: 'response.incomplete', response: this.#response('incomplete') });
    } else if (event.kind === 'run.failed') {
      this.#close(emit);
      emit({ type: 'response.failed', response: this.#response('failed', null, event) });
    }
    return out;
  }

  /** The response object as the stream ends (or the JSON answer). */
  #response(
    status: 'in_progress' | 'completed' | 'incomplete' | 'failed',
    completed: EventOf<'run.completed'> | null = null,
    failed: EventOf<'run.failed'> | null = null,
  ): OpenAiResponse {
    const usage = completed?.payload.usage ?? this.#state.usage;
    this.#last = responseObject(this.meta, status, this.#state.output, usage, failed);
    return this.#last;
  }

  #open(
    id: string,
    emit: (frame: DistributiveOmit<ResponseStreamEvent, 'sequence_number'>) => void,
  ): void {
    const index = this.#state.output.length;
    this.#state.open = { id, index, text: '' };
    emit({
      type: 'response.output_item.added',
      output_index: index,
      item: { id, type: 'message', role: 'assistant', status: 'in_progress', content: [] },
    });
    emit({
      type: 'response.content_part.added',
      item_id: id,
      output_index: index,
      content_index: 0,
      part: { type: 'output_text', text: '', annotations: [] },
    });
  }

  #close(emit: (frame: DistributiveOmit<ResponseStreamEvent, 'sequence_number'>) => void): void {
    const open = this.#state.open;
    if (!open) return;
    const part = { type: 'output_text' as const, text: open.text, annotations: [] };
    const item = message(open.id, open.text);
    const at = { item_id: open.id, output_index: open.index, content_index: 0 };
    emit({ type: 'response.output_text.done', ...at, text: open.text, logprobs: [] });
    emit({ type: 'response.content_part.done', ...at, part });
    emit({ type: 'response.output_item.done', output_index: open.index, item });
    this.#state.output = [...this.#state.output, item];
    this.#state.open = null;
  }
}

type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;

function message(id: string, text: string): ResponseOutputMessage {
  return {
    id,
    type: 'message',
    role: 'assistant',
    status: 'completed',
    content: [{ type: 'output_text', text, annotations: [] }],
  };
}

/**
 * A response object. `output_text` is the `openai` client's own convenience (it adds it to
 * what it reads); it is sent too, so a client that reads the JSON alone has it.
 */
export function responseObject(
  meta: ResponseMeta,
  status: 'in_progress' | 'completed' | 'incomplete' | 'failed',
  output: ResponseOutputMessage[],
  /** The run's usage: its totals once completed, the model requests' so far once stopped. */
  usage: TokenCounts | null = null,
  failed: EventOf<'run.failed'> | null = null,
): OpenAiResponse {
  const error = failed ? failedRunError(failed).error : null;
  return {
    id: meta.id,
    object: 'response',
    created_at: meta.createdAt,
    status,
    model: meta.model,
    instructions: meta.instructions,
    previous_response_id: meta.previousResponseId,
    output,
    output_text: output.map((item) => (item.content[0] as { text: string }).text).join(''),
    error: error ? { code: 'server_error', message: error.message } : null,
    incomplete_details: null,
    metadata: null,
    parallel_tool_calls: false,
    temperature: null,
    top_p: null,
    tool_choice: 'auto',
    tools: [],
    access_programs: null,
    ...(status === 'completed' || status === 'incomplete'
      ? {
          usage: {
            input_tokens: usage?.inputTokens ?? 0,
            input_tokens_details: { cached_tokens: 0, cache_write_tokens: 0 },
            output_tokens: usage?.outputTokens ?? 0,
            output_tokens_details: { reasoning_tokens: 0 },
            total_tokens: usage?.totalTokens ?? 0,
          },
        }
      : {}),
  };
}
