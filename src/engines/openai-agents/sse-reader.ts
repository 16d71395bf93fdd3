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
import { APIError } from 'openai';
import type { DeltaFormat } from './delta-joins.js';

/** One server-sent event: its `event:` name (if any) and its `data:` lines, joined. */
export interface SseMessage {
  event: string | undefined;
  data: string;
}

/** Splits decoded text into SSE messages, keeping an unfinished message for the next chunk. */
export class SseDecoder {
  #buffer = '';

  /** The messages `text` completes (with what came before it). */
  push(text: string): SseMessage[] {
    let buffer = this.#buffer + text;
    if (buffer.includes('\r')) {
      // CRLF and lone CR end lines too; a CR at the very end may be the first half of a CRLF.
      const held = buffer.endsWith('\r') ? '\r' : '';
      buffer = buffer.slice(0, buffer.length - held.length).replace(/\r\n?/g, '\n') + held;
    }
    const end = buffer.lastIndexOf('\n\n');
    if (end < 0) {
      this.#buffer = buffer;
      return [];
    }
    this.#buffer = buffer.slice(end + 2);
    const messages: SseMessage[] = [];
    for (const block of buffer.slice(0, end).split('\n\n')) {
      const message = parseBlock(block);
      if (message) messages.push(message);
    }
    return messages;
  }
}

/** One event's lines; `undefined` for a block without data (comments, a lone `id:`). */
function parseBlock(block: string): SseMessage | undefined {
  // The common shapes, `data:` alone or after `event:`, on one line each, without splitting.
  const newline = block.indexOf('\n');
  if (newline < 0 && block.startsWith('data: ')) return { event: undefined, data: block.slice(6) };
  if (
    block.startsWith('event: ') &&
    block.startsWith('data: ', newline + 1) &&
    block.indexOf('\n', newline + 1) < 0
  ) {
    return { event: block.slice(7, newline), data: block.slice(newline + 7) };
  }
  let event: string | undefined;
  let data: string | undefined;
  for (const line of block.split('\n')) {
    if (line === '' || line.startsWith(':')) continue;
    const colon = line.indexOf(':');
    const field = colon < 0 ? line : line.slice(0, colon);
    let value = colon < 0 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    if (field === 'data') data = data === undefined ? value : `${data}\n${value}`;
    else if (field === 'event') event = value;
  }
  return data === undefined ? undefined : { event, data };
}

/**
 * The parsed events of a streamed response's body, as the client library's stream yields
 * them, with consecutive deltas of one read joined as `format` says.
 */
export async function* modelEvents(
  response: Response,
  format: DeltaFormat,
): AsyncGenerator<unknown, void, undefined> {
  const body = response.body;
  if (!body) return;
  const reader = body.getReader();
  const decoder = new TextDecoder();
  const sse = new SseDecoder();
  let finished = false;
  try {
    while (true) {
      let chunk: ReadableStreamReadResult<Uint8Array>;
      try {
        chunk = await reader.read();
      } catch (error) {
        if (isAbort(error)) return;
        throw error;
      }
      if (chunk.done) {
        finished = true;
        return;
      }
      const events: unknown[] = [];
      for (const message of sse.push(decoder.decode(chunk.value, { stream: true }))) {
        if (message.data === '[DONE]') {
          yield* events;
          return;
        }
        const event = parseEvent(message, response.headers);
        const last = events.length - 1;
        if (last < 0 || !format.join(events[last], event)) events.push(event);
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
