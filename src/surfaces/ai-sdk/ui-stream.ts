/**
 * A run as a UI message stream response, read from the event log: the same tail as `GET
 * /runs/{id}/events` (append notices, outages waited out, any process's run), each event
 * folded by the codec into chunk frames that carry its seq as their SSE `id:`, then `data:
 * [DONE]`. Reading the log rather than the run's own generator is what lets a client leave
 * without stopping the run (the run is played by whoever started it, to its end) and come
 * back to the same frames: a stream from a position primes the codec with the events before
 * it, so a continuation's text and tool parts close as they would have.
 */
import { errorMessage } from '../../core/errors.js';
import type { Event } from '../../core/events.js';
import type { HttpDeps } from '../http/deps.js';
import { RUN_ID_HEADER } from '../http/errors.js';
import { runEventFrames } from '../http/run-events.js';
import { SSE_HEADERS } from '../http/sse.js';
import { chunkFrames, DONE_FRAME, UI_MESSAGE_STREAM_HEADER } from './chunks.js';
import {
  continuation,
  encodeEvent,
  endsStream,
  INITIAL_UI_STREAM_STATE,
  type UiStreamState,
} from './codec.js';

export interface UiStreamOptions {
  /** Frames of the events after this seq (-1: from the run's start). */
  afterSeq: number;
  /** The first seq at which a waiting or ended run ends the stream (earlier pauses were answered). */
  stopFrom: number;
  /** Write `start` first even when the codec was primed past it (a continuation of the message). */
  announce: boolean;
}

/** The SSE response of run `runId` from `afterSeq` on; it ends where the run ends or waits. */
export async function uiStreamResponse(
  deps: Pick<HttpDeps, 'eventLog' | 'shutdown'>,
  runId: string,
  options: UiStreamOptions,
): Promise<Response> {
  const log = deps.eventLog();
  let state = await primedState(deps, runId, options.afterSeq);
  if (options.announce) state = continuation(state);
  const render = (event: Event) => {
    const step = encodeEvent(state, event);
    state = step.state;
    return chunkFrames(event.seq, step.chunks);
  };
  const stop = new AbortController();
  const onShutdown = () => stop.abort();
  deps.shutdown?.addEventListener('abort', onShutdown, { once: true });
  const frames = runEventFrames(log, runId, {
    afterSeq: options.afterSeq,
    follow: true,
    signal: stop.signal,
    render,
    until: (event) => endsStream(event) && event.seq >= options.stopFrom,
  });
  const encoder = new TextEncoder();
  const body = new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        try {
          const step = await frames.next();
          if (!step.done) {
            controller.enqueue(encoder.encode(step.value));
            return;
          }
          // Cut short by a server shutdown: no `[DONE]`, the client may resume elsewhere.
          if (!stop.signal.aborted) controller.enqueue(encoder.encode(DONE_FRAME));
          controller.close();
          deps.shutdown?.removeEventListener('abort', onShutdown);
        } catch (error) {
          controller.error(error);
        }
      },
      async cancel() {
        // The client left: stop reading. The run plays on (resume with GET .../stream).
        stop.abort();
        deps.shutdown?.removeEventListener('abort', onShutdown);
        await frames.return(undefined);
      },
    },
    { highWaterMark: 0 },
  );
  return new Response(body, {
    status: 200,
    headers: { ...SSE_HEADERS, ...UI_MESSAGE_STREAM_HEADER, [RUN_ID_HEADER]: runId },
  });
}

/** The codec's state after the run's events up to `afterSeq` (their chunks were sent before). */
async function primedState(
  deps: Pick<HttpDeps, 'eventLog'>,
  runId: string,
  afterSeq: number,
): Promise<UiStreamState> {
  let state = INITIAL_UI_STREAM_STATE;
  if (afterSeq < 0) return state;
  const earlier = await deps.eventLog().read(runId, { afterSeq: -1, limit: afterSeq + 1 });
  for (const event of earlier) state = encodeEvent(state, event).state;
  return state;
}

/** Read the rest of a run's events, so it plays to its end whoever reads its stream. */
export function playOn(
  deps: Pick<HttpDeps, 'log'>,
  events: AsyncGenerator<Event, void, undefined>,
) {
  void (async () => {
    try {
      for (let step = await events.next(); !step.done; step = await events.next()) {
        // Recorded in the log as it plays; the streams read it there.
      }
    } catch (error) {
      deps.log(`[agentdeck] ui-chat run failed to play: ${errorMessage(error)}`);
    }
  })();
}
