/**
 * The model server's event stream, read by the deck: the body of a streamed Responses or
 * chat-completions request, split into server-sent events and parsed, with the text deltas
 * that arrived in one network read joined into one.
 *
 * Why our own reader: the client library's stream runs every byte through a line decoder
 * and every event through several async layers, and the engine then handles each event on
 * its own (a raw event, a text delta, a recorded `text.delta`, an SSE frame to the client).
 * For a model that streams faster than the deck keeps up with (a local model, a cached
 * answer), that per-event cost decides how long the client waits after the model is done:
 * 1,000 tokens took about 20 ms. Tokens that reached the deck together cannot be shown
 * apart anyway, so they go on as one delta; a model pacing its tokens (as hosted models do)
 * is read one token per read, and nothing changes for it.
 *
 * It behaves as the client library's stream does otherwise: `[DONE]` ends it, an `error`
 * event or a payload with an `error` member is thrown as the library's `APIError`, JSON that
 * does not parse is a `SyntaxError`, and a request aborted by its signal ends it quietly
 * (the engine checks its signal itself).
 */
import { APIError, OpenAIError } from 'openai';
import type { DeltaFormat } from './delta-joins.js';
import { SseDecoder, type SseMessage } from './sse-decoder.js';

/**
 * The parsed events of a streamed response's body, as the client library's stream yields
 * them, with consecutive deltas of one read joined as `format` says. `signal` is the
 * request's: once it has aborted, the events end quietly (whatever the abort's reason), as
 * the client's own stream does.
 */
export async function* modelEvents(
  response: Response,
  format: DeltaFormat,
  signal?: AbortSignal,
): AsyncGenerator<unknown, void, undefined> {
  const body = response.body;
  if (!body) throw new OpenAIError('Attempted to iterate over a response with no body');
  const reader = body.getReader();
  const decoder = new TextDecoder();
  const sse = new SseDecoder();
  let finished = false;
  try {
    while (!finished) {
      if (signal?.aborted) return;
      let chunk: ReadableStreamReadResult<Uint8Array>;
      try {
        chunk = await reader.read();
      } catch (error) {
        if (isAbort(error) || signal?.aborted) return;
        throw error;
      }
      finished = chunk.done;
      const messages = finished
        ? [...sse.push(decoder.decode()), ...sse.end()]
        : sse.push(decoder.decode(chunk.value, { stream: true }));
      const events: unknown[] = [];
      try {
        for (const message of messages) {
          if (message.data === '[DONE]') {
            yield* events;
            return;
          }
          const event = parseEvent(message, response.headers);
          const last = events.length - 1;
          if (last < 0 || !format.join(events[last], event)) events.push(event);
        }
      } catch (error) {
        // What came before the failure in this read still goes on, as it would have one by one.
        yield* events;
        throw error;
      }
      yield* events;
    }
  } finally {
    // Stopped before the end (`[DONE]`, an error, a caller that stopped reading): drop the rest.
    if (!finished) reader.cancel().catch(() => {});
    reader.releaseLock();
  }
}

function parseEvent(message: SseMessage, headers: Headers): unknown {
  let data: { error?: unknown } | null;
  try {
    data = JSON.parse(message.data);
  } catch {
    throw new SyntaxError('Error reading response: malformed server-sent event JSON.');
  }
  if (message.event === 'error') {
    throw new APIError(undefined, (data?.error ?? data) as object, undefined, headers);
  }
  if (data?.error) throw new APIError(undefined, data.error as object, undefined, headers);
  return data;
}

/** An abort of the request (its signal), as fetch reports it. */
function isAbort(error: unknown): boolean {
  return error instanceof Error && error.name === 'AbortError';
}
