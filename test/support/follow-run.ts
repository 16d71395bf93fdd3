/**
 * Test support for draining across processes (#42): a streamed chat as a client sends it, and
 * a client that follows a run to its end on another server after its stream was cut, as a
 * reconnecting `EventSource` does (`GET /runs/{id}/events` with `Last-Event-ID`).
 */
import { type ParsedFrame, parseSse } from './http.js';

/** `POST /agents/{agent}/chat?stream=true` for `session`. */
export const streamedChat = (url: string, session: string, agent = 'helper') =>
  fetch(`${url}/agents/${agent}/chat?stream=true`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ session_id: session, message: 'talk' }),
  });

/** The run's events recorded so far on `url` (`?follow=false`). */
export async function recordedFrames(url: string, runId: string): Promise<ParsedFrame[]> {
  const response = await fetch(`${url}/runs/${runId}/events?follow=false`, {
    signal: AbortSignal.timeout(5_000),
  });
  return parseSse(await response.text());
}

/** Follow the run on `url` from after `lastEventId` until its stream ends (bounded). */
export async function followFrom(
  url: string,
  runId: string,
  lastEventId: string,
  timeoutMs = 8_000,
): Promise<ParsedFrame[]> {
  const response = await fetch(`${url}/runs/${runId}/events`, {
    headers: { 'last-event-id': lastEventId },
    signal: AbortSignal.timeout(timeoutMs),
  });
  return parseSse(await response.text());
}

export const kindOf = (frame: ParsedFrame) => (frame.data as { kind: string }).kind;

/** Whether the frames' ids run on one by one from the first. */
export function gapFree(frames: readonly ParsedFrame[]): boolean {
  const seqs = frames.map((f) => Number(f.id));
  return seqs.every((seq, i) => seq === (seqs[0] ?? 0) + i);
}
