/**
 * Server-sent events split out of decoded text as it arrives. A message ends at a blank
 * line; lines end with LF, CRLF or a lone CR. Each new piece of text is scanned once (a
 * large event, an image in `response.completed`, arrives in many reads), and what is left at
 * the end of the stream is taken as a last message, as the client library does.
 */

/** One server-sent event: its `event:` name (if any) and its `data:` lines, joined. */
export interface SseMessage {
  event: string | undefined;
  data: string;
}

export class SseDecoder {
  /** Text after the last complete message, in the pieces it came in. */
  #pending: string[] = [];
  /** The last character of the pending text (`''` if none): with a new `\n`, a blank line. */
  #last = '';
  /** A CR that ended the last text: the first half of a CRLF, or a line end of its own. */
  #heldCR = false;

  /** The messages `text` completes. */
  push(text: string): SseMessage[] {
    let piece = this.#heldCR ? `\r${text}` : text;
    this.#heldCR = piece.endsWith('\r');
    if (this.#heldCR) piece = piece.slice(0, -1);
    if (piece.includes('\r')) piece = piece.replace(/\r\n?/g, '\n');
    if (piece === '') return [];
    const probe = this.#last + piece;
    const at = probe.lastIndexOf('\n\n');
    if (at < 0) {
      this.#pending.push(piece);
      this.#last = piece.charAt(piece.length - 1);
      return [];
    }
    const whole = this.#pending.join('') + piece;
    const end = whole.length - probe.length + at;
    const rest = whole.slice(end + 2);
    this.#pending = rest === '' ? [] : [rest];
    this.#last = rest.charAt(rest.length - 1);
    return messagesIn(whole.slice(0, end));
  }

  /** At the end of the stream: the unfinished message, if any, as a message. */
  end(): SseMessage[] {
    const tail = this.#pending.join('') + (this.#heldCR ? '\n' : '');
    this.#pending = [];
    this.#last = '';
    this.#heldCR = false;
    return messagesIn(tail);
  }
}

function messagesIn(text: string): SseMessage[] {
  const messages: SseMessage[] = [];
  for (const block of text.split('\n\n')) {
    const message = parseBlock(block);
    if (message) messages.push(message);
  }
  return messages;
}

/** One event's lines; `undefined` for a block with neither data nor a name (comments, `id:`). */
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
  // A named event without data is an empty one (the client library fails on it as JSON).
  if (data === undefined) return event === undefined ? undefined : { event, data: '' };
  return { event, data };
}
