/**
 * An agent turn as the chat route streams it (`POST /agents/{name}/chat?stream=true`), read
 * with `fetch` and a ReadableStream (an `EventSource` cannot POST, nor send the key): each
 * `data: {"delta": ...}` frame as it comes, then the one end frame (`done`, `approval`,
 * `paused`, `waiting`, `error`). The run id is the response's `X-Run-Id`, known before the
 * first token.
 */
import { ApiError, authHeaders, unauthorized } from './api.js';

/**
 * Send `message` to `agent` in `sessionId`. `onRun(runId)` once the response starts,
 * `onFrame({ event, data })` per frame (`event` is `message` for a delta). Resolves when the
 * stream ends; rejects with an ApiError when the turn is refused (a 409 for a busy session).
 */
export async function streamChat(agent, sessionId, message, { onRun, onFrame, signal }) {
  const response = await fetch(`/agents/${encodeURIComponent(agent)}/chat?stream=true`, {
    method: 'POST',
    headers: authHeaders({ accept: 'text/event-stream', 'content-type': 'application/json' }),
    body: JSON.stringify({ session_id: sessionId, message }),
    signal,
    cache: 'no-store',
  });
  if (response.status === 401) unauthorized();
  if (!response.ok || !response.body) {
    let detail = response.statusText;
    try {
      const body = await response.json();
      if (typeof body?.detail === 'string') detail = body.detail;
    } catch {
      // the status text is all there is
    }
    throw new ApiError(response.status, detail);
  }
  onRun(response.headers.get('x-run-id'));
  const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = '';
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return;
    buffer += value.replace(/\r\n?/g, '\n');
    let end = buffer.indexOf('\n\n');
    while (end >= 0) {
      const frame = parseFrame(buffer.slice(0, end));
      buffer = buffer.slice(end + 2);
      if (frame) onFrame(frame);
      end = buffer.indexOf('\n\n');
    }
  }
}

/** `{ event, data }` of one SSE frame (data parsed as JSON), or null for a comment only. */
export function parseFrame(text) {
  let event = 'message';
  const data = [];
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith(':')) continue;
    const colon = line.indexOf(':');
    const field = colon < 0 ? line : line.slice(0, colon);
    const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
    if (field === 'event') event = value;
    else if (field === 'data') data.push(value);
  }
  if (data.length === 0) return null;
  return { event, data: JSON.parse(data.join('\n')) };
}
