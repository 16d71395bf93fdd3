/**
 * Server-sent events: a frame is optional `id:` and `event:` lines and one `data:` line of
 * JSON, then a blank line. The two stream routes of release 1.2.1 write that JSON as the
 * release did (`formatPythonFrame`); newer routes write it compact (`formatFrame`). Responses
 * carry exactly the headers WIRE.md fixes. The stream pulls from an async iterator one frame
 * at a time, so a slow client slows the iterator instead of buffering without bound (the
 * stream routes' iterators play their run apart from that pace: `stream-buffer.ts`), and a
 * client that goes away stops it (`return()`).
 */
import { pythonJson } from './python-json.js';

export const SSE_HEADERS = {
  'content-type': 'text/event-stream; charset=utf-8',
  'cache-control': 'no-cache',
  'x-accel-buffering': 'no',
} as const;

export interface SseFrame {
  id?: number;
  event?: string;
  data: unknown;
}

/** A comment frame: clients ignore it; it keeps idle proxies from closing the connection. */
export const KEEPALIVE = ': keepalive\n\n';

/** A frame with compact JSON (`{"a":1}`): the routes newer than release 1.2.1. */
export function formatFrame(frame: SseFrame): string {
  return frameText(frame, JSON.stringify(frame.data));
}

/**
 * A frame with its JSON as release 1.2.1 wrote it (`{"a": 1}`, non-ASCII as `\uXXXX`): every
 * frame of that release's stream routes, including the ones added since on those routes, so
 * one stream is written one way.
 */
export function formatPythonFrame(frame: SseFrame): string {
  return frameText(frame, pythonJson(frame.data));
}

function frameText(frame: SseFrame, json: string): string {
  let text = '';
  if (frame.id !== undefined) text += `id: ${frame.id}\n`;
  if (frame.event !== undefined) text += `event: ${frame.event}\n`;
  return `${text}data: ${json}\n\n`;
}

/** An SSE response over `frames` (already formatted strings). */
export function sseResponse(
  frames: AsyncIterator<string, unknown, undefined>,
  /** Called when the client goes away, even before the first frame was pulled. */
  onCancel: () => unknown = () => {},
  /** Headers beyond WIRE.md's (additive, such as `X-Run-Id`). */
  headers: Record<string, string> = {},
  /**
   * The frames already waiting behind the one just pulled, joined (`''` for none): they go in
   * the same chunk, so a stream that fell behind its run catches up in one socket write, not
   * one per frame (`stream-buffer.ts`). The bytes are the same.
   */
  takeQueued: () => string = () => '',
): Response {
  const encoder = new TextEncoder();
  const body = new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        try {
          const step = await frames.next();
          if (step.done) controller.close();
          else controller.enqueue(encoder.encode(step.value + takeQueued()));
        } catch (error) {
          controller.error(error);
        }
      },
      async cancel() {
        // Abort first: the generator's return() waits behind its pending next(), which may
        // be waiting for the very run the abort stops.
        await onCancel();
        await frames.return?.(undefined);
      },
    },
    { highWaterMark: 0 },
  );
  return new Response(body, { status: 200, headers: { ...SSE_HEADERS, ...headers } });
}

/**
 * An SSE client left: stop the run it watched now (its generator's `return()` alone would
 * wait for the run's next event, which a long tool call may not produce for minutes), then
 * end the generator.
 */
export async function clientGone(
  deps: { stopRun(runId: string, reason: string): boolean },
  first: IteratorResult<{ runId: string }, unknown>,
  events: AsyncGenerator<unknown, unknown, undefined>,
): Promise<void> {
  if (!first.done) deps.stopRun(first.value.runId, 'the HTTP client disconnected');
  await events.return(undefined);
}
