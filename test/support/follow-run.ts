/**
 * Test support for draining across processes (#42): a streamed chat as a client sends it, and
 * a client that follows a run to its end on another server after its stream was cut, as a
 * reconnecting `EventSource` does (`GET /runs/{id}/events` with `Last-Event-ID`).
 */
import { expect, vi } from 'vitest';
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

/**
 * A run handed over at a drain, as a client sees it: the frames recorded up to its pause (what
 * the cut stream carried), then followed on `url` from there. They must run on without a gap
 * to `run.completed`, its lifecycle exactly started, paused, resumed, completed. The frames
 * up to the pause.
 */
export async function expectHandedOver(url: string, runId: string): Promise<ParsedFrame[]> {
  const recorded = await recordedFrames(url, runId);
  const paused = recorded.find((f) => kindOf(f) === 'run.paused');
  expect(paused?.id).toBeDefined();
  const upToPause = recorded.filter((f) => Number(f.id) <= Number(paused?.id));
  const rest = await followFrom(url, runId, String(paused?.id));
  const frames = [...upToPause, ...rest];
  expect(gapFree(frames)).toBe(true);
  expect(rest.map(kindOf).at(-1)).toBe('run.completed');
  expect(frames.map(kindOf).filter((k) => k.startsWith('run.'))).toEqual([
    'run.started',
    'run.paused',
    'run.resumed',
    'run.completed',
  ]);
  return upToPause;
}

/** A sleeping thread's run on `url` completes (bounded), woken exactly once. */
export async function expectWokeOnce(url: string, runId: string): Promise<void> {
  await vi.waitFor(
    async () => {
      const run = (await (await fetch(`${url}/runs/${runId}`)).json()) as { status: string };
      expect(run.status).toBe('completed');
    },
    { timeout: 8_000, interval: 100 },
  );
  const kinds = (await recordedFrames(url, runId)).map(kindOf);
  expect(kinds.filter((k) => k === 'run.resumed')).toHaveLength(1);
  expect(kinds.filter((k) => k === 'run.completed')).toHaveLength(1);
}
