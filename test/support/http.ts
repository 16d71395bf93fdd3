/**
 * Test support for the HTTP surface: parse an SSE body into frames, and build JSON requests
 * for `app.request()`.
 */
export interface ParsedFrame {
  id?: string;
  event?: string;
  /** The `data:` line parsed as JSON. */
  data: unknown;
}

/** Split an SSE body into frames (comment frames dropped); every frame must end with a blank line. */
export function parseSse(text: string): ParsedFrame[] {
  if (text !== '' && !text.endsWith('\n\n'))
    throw new Error(`SSE body not frame-terminated: ${JSON.stringify(text.slice(-40))}`);
  return text
    .split('\n\n')
    .filter((block) => block !== '' && !block.startsWith(':'))
    .map((block) => {
      const frame: ParsedFrame = { data: undefined };
      for (const line of block.split('\n')) {
        const at = line.indexOf(': ');
        const [field, value] = [line.slice(0, at), line.slice(at + 2)];
        if (field === 'data') frame.data = JSON.parse(value);
        else if (field === 'id') frame.id = value;
        else if (field === 'event') frame.event = value;
        else throw new Error(`unexpected SSE line: ${line}`);
      }
      return frame;
    });
}

export function postJson(body: unknown, headers: Record<string, string> = {}): RequestInit {
  return {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  };
}

export const SSE_HEADERS = {
  'content-type': 'text/event-stream; charset=utf-8',
  'cache-control': 'no-cache',
  'x-accel-buffering': 'no',
};

/** A response's headers as a plain object. */
export function headersOf(response: Response): Record<string, string> {
  const out: Record<string, string> = {};
  response.headers.forEach((value, key) => {
    out[key] = value;
  });
  return out;
}
