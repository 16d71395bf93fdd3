/**
 * An OpenAI client whose streamed requests are read by the deck's own reader
 * (`sse-reader.ts`): `responses.create` and `chat.completions.create` with `stream: true`
 * still go through the client (its retries, headers, timeouts and errors before the body),
 * but the body is handed to {@link modelEvents} instead of the client's stream. The engine's
 * models call `create(...).withResponse()` and iterate `data`, which is what this returns.
 *
 * The entry of `model-stream/`, a transport optimisation of the OpenAI client: it knows
 * nothing of the engine or of agents (it imports `openai` only), and `settings.ts` applies it
 * to the client the engine is given. A model object an agent brings keeps its own client.
 */
import type OpenAI from 'openai';
import { CHAT_DELTAS, type DeltaFormat, RESPONSES_DELTAS } from './delta-joins.js';
import { modelEvents } from './sse-reader.js';

type Create = (params: unknown, options?: unknown) => unknown;

/** The part of the client's request options the reader needs. */
type RequestOptions = { signal?: AbortSignal | null } | undefined;

/** What the client's `create` returns: a promise with the raw `Response` on request. */
interface PendingRequest {
  asResponse(): Promise<Response>;
}

interface Opened {
  data: AsyncIterable<unknown>;
  response: Response;
  request_id: string | null;
}

/** `client`, its streamed Responses and chat-completions requests read by the deck. */
export function withQuickStreams(client: OpenAI): OpenAI {
  readBodiesOf(client.responses as unknown as { create: Create }, RESPONSES_DELTAS);
  readBodiesOf(client.chat.completions as unknown as { create: Create }, CHAT_DELTAS);
  return client;
}

function readBodiesOf(resource: { create: Create }, format: DeltaFormat): void {
  const create = resource.create.bind(resource);
  resource.create = (params, options) => {
    const pending = create(params, options);
    return (params as { stream?: unknown } | null)?.stream === true
      ? new QuickStream(pending as PendingRequest, format, (options as RequestOptions)?.signal)
      : pending;
  };
}

/** A streamed request: awaited, its events; `withResponse()`, them with the raw response. */
class QuickStream implements PromiseLike<AsyncIterable<unknown>> {
  readonly #pending: PendingRequest;
  readonly #format: DeltaFormat;
  readonly #signal: AbortSignal | undefined;
  #opened: Promise<Opened> | undefined;

  constructor(pending: PendingRequest, format: DeltaFormat, signal?: AbortSignal | null) {
    this.#pending = pending;
    this.#format = format;
    this.#signal = signal ?? undefined;
  }

  withResponse(): Promise<Opened> {
    this.#opened ??= this.#pending.asResponse().then((response) => ({
      data: modelEvents(response, this.#format, this.#signal),
      response,
      request_id: response.headers.get('x-request-id'),
    }));
    return this.#opened;
  }

  // biome-ignore lint/suspicious/noThenProperty: it stands for the client's promise of a stream
  then<A = AsyncIterable<unknown>, B = never>(
    onFulfilled?: ((events: AsyncIterable<unknown>) => A | PromiseLike<A>) | null,
    onRejected?: ((reason: unknown) => B | PromiseLike<B>) | null,
  ): Promise<A | B> {
    return this.withResponse()
      .then((opened) => opened.data)
      .then(onFulfilled, onRejected);
  }
}
