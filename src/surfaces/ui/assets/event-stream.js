/**
 * A run's canonical events, followed live: `GET /runs/{id}/events` read with `fetch` (an
 * `EventSource` cannot send the API key) and parsed as SSE. Each frame's `id` is the event's
 * seq; after a dropped connection it reconnects with `Last-Event-ID: <last seq>`, so the
 * caller gets every event exactly once, in order. It ends after the run's terminal event and
 * what was recorded after it (scores), or at the server's 204 (the run ended and nothing
 * comes after the last seq).
 */
import { authHeaders, keyNeeded, unauthorized } from './api.js';

const TERMINAL = new Set(['run.completed', 'run.failed', 'run.cancelled']);

/**
 * Follow `runId`'s events: `onEvent(event)` for each, `onState(state)` with `connecting`,
 * `live`, `reconnecting`, `ended`, `refused` or `missing`. Returns a function that stops.
 */
export function followEvents(runId, onEvent, onState) {
  const stop = new AbortController();
  let lastSeq = -1;
  let terminalSeen = false;
  const seen = (event, id) => {
    const seq = id === '' ? event.seq : Number(id);
    if (typeof seq === 'number' && seq <= lastSeq) return false; // never twice
    if (typeof seq === 'number') lastSeq = seq;
    onEvent(event);
    return TERMINAL.has(event.kind);
  };
  (async () => {
    let delay = 250;
    while (!stop.signal.aborted) {
      if (keyNeeded()) return onState('refused'); // the page reloads once a key is typed
      onState(lastSeq < 0 ? 'connecting' : 'reconnecting');
      try {
        const headers = authHeaders({ accept: 'text/event-stream' });
        if (lastSeq >= 0) headers['last-event-id'] = String(lastSeq);
        const response = await fetch(`/runs/${encodeURIComponent(runId)}/events`, {
          headers,
          signal: stop.signal,
          cache: 'no-store',
        });
        if (response.status === 204) return onState('ended');
        if (response.status === 401) {
          unauthorized();
          return onState('refused');
        }
        if (response.status === 404) return onState('missing'); // no such run: nothing to wait for
        if (!response.ok || !response.body) throw new Error(`HTTP ${response.status}`);
        onState('live');
        delay = 250;
        const terminal = await readFrames(response.body, seen);
        // After the terminal event, one more read: what was recorded after the run's end (an
        // experiment's scores, #41); the server answers 204 when there is nothing.
        if (terminalSeen) return onState('ended');
        if (terminal) {
          terminalSeen = true;
          continue;
        }
      } catch {
        if (stop.signal.aborted) return;
      }
      await new Promise((wake) => setTimeout(wake, delay));
      delay = Math.min(delay * 2, 4000);
    }
  })();
  return () => stop.abort();
}

/**
 * Read SSE frames until the body ends; true when `handle` said the last one was terminal.
 * Chunks already received resolve `read()` at once (a microtask), so a long run's catch-up
 * would be read to its end before the page draws anything: every 30 ms the loop yields to
 * the page (timers, drawing) between chunks.
 */
async function readFrames(body, handle) {
  const reader = body.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = '';
  let yielded = performance.now();
  for (;;) {
    if (performance.now() - yielded > 30) {
      await new Promise((next) => setTimeout(next, 0));
      yielded = performance.now();
    }
    const { value, done } = await reader.read();
    if (done) return false;
    buffer += value.replace(/\r\n?/g, '\n');
    let end = buffer.indexOf('\n\n');
    while (end >= 0) {
      const frame = parseFrame(buffer.slice(0, end));
      buffer = buffer.slice(end + 2);
      if (frame.data !== '' && handle(JSON.parse(frame.data), frame.id)) {
        reader.cancel().catch(() => {});
        return true;
      }
      end = buffer.indexOf('\n\n');
    }
  }
}

function parseFrame(text) {
  let id = '';
  const data = [];
  for (const line of text.split('\n')) {
    if (line.startsWith(':')) continue; // a keepalive comment
    const colon = line.indexOf(':');
    const field = colon < 0 ? line : line.slice(0, colon);
    const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
    if (field === 'id') id = value;
    else if (field === 'data') data.push(value);
  }
  return { id, data: data.join('\n') };
}
