/**
 * A run as a UI message stream response: its canonical events folded by the codec into chunk
 * frames that carry each event's seq as their SSE `id:`, then `data: [DONE]`. A client that
 * leaves does not stop the run: a turn this request started is played to its end by a pump
 * that reads its events whatever the client does ({@link uiTurnResponse}), and any run can be
 * streamed again from the event log ({@link uiStreamResponse}: the tail of `GET
 * /runs/{id}/events`, with append notices and outages waited out, whatever process plays it).
 * A stream from a position primes the codec with the events before it, so a continuation's
 * text and tool parts close as they would have.
 */
import { errorMessage, errorTypeName } from '../../core/errors.js';
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

type Deps = Pick<HttpDeps, 'eventLog' | 'shutdown' | 'log'>;
type Events = AsyncGenerator<Event, void, undefined>;

/** Events a turn's stream holds for a client that reads slower than the run plays. */
const QUEUED_EVENTS = 1024;

export interface UiStreamOptions {
  /** Frames of the events after this seq (-1: from the run's start). */
  afterSeq: number;
  /** The first seq at which a waiting or ended run ends the stream (earlier pauses were answered). */
  stopFrom: number;
  /** Write `start` first even when the codec was primed past it (a continuation of the message). */
  announce: boolean;
}

/** Run `runId` from the event log, from `afterSeq` on; it ends where the run ends or waits. */
export async function uiStreamResponse(
  deps: Deps,
  runId: string,
  options: UiStreamOptions,
): Promise<Response> {
  let state = await primedState(deps, runId, options.afterSeq);
  if (options.announce) state = continuation(state);
  const renderer = codecRenderer(state);
  const stop = new AbortController();
  const frames = runEventFrames(deps.eventLog(), runId, {
    afterSeq: options.afterSeq,
    follow: true,
    signal: stop.signal,
    render: renderer.render,
    until: (event) => endsStream(event) && event.seq >= options.stopFrom,
  });
  return sseUiResponse(deps, runId, frames, stop);
}

/**
 * The turn that `first` began, as it plays: its events are pumped as they come (the run plays
 * at its own pace, to its end, whether or not anyone reads) and rendered in order for the
 * client. A client more than {@link QUEUED_EVENTS} events behind reads the rest from the log.
 */
export function uiTurnResponse(
  deps: Deps,
  first: IteratorYieldResult<Event>,
  events: Events,
): Response {
  const runId = first.value.runId;
  const renderer = codecRenderer(INITIAL_UI_STREAM_STATE);
  const stop = new AbortController();
  let queue: Event[] = [];
  let behind = false;
  let ended = false;
  let failure: unknown = null;
  let wake: (() => void) | null = null;
  const poke = () => {
    wake?.();
    wake = null;
  };
  void (async () => {
    try {
      for (let step: IteratorResult<Event, void> = first; !step.done; step = await events.next()) {
        if (!behind && !stop.signal.aborted) {
          queue.push(step.value);
          if (queue.length > QUEUED_EVENTS) {
            queue = []; // in the log already: the writer reads them back from there
            behind = true;
          }
        }
        poke();
      }
    } catch (error) {
      failure = error;
      deps.log(`[agentdeck] ui-chat turn of run '${runId}' failed: ${errorMessage(error)}`);
    } finally {
      ended = true;
      poke();
    }
  })();

  async function* frames(): AsyncGenerator<string, void, undefined> {
    let sentSeq = -1;
    while (!stop.signal.aborted) {
      if (behind) {
        yield* runEventFrames(deps.eventLog(), runId, {
          afterSeq: sentSeq,
          follow: true,
          signal: stop.signal,
          render: renderer.render,
          until: endsStream,
        });
        return;
      }
      const event = queue.shift();
      if (event) {
        sentSeq = event.seq;
        const frame = renderer.render(event);
        if (frame !== '') yield frame;
        if (endsStream(event)) return;
      } else if (ended) {
        if (failure !== null) yield renderer.failed(failure, sentSeq);
        return;
      } else {
        await new Promise<void>((resolve) => {
          wake = resolve;
        });
      }
    }
  }
  const response = sseUiResponse(deps, runId, frames(), stop);
  // A client that leaves (or a shutdown) stops the writer; let it stop waiting, too.
  stop.signal.addEventListener('abort', poke, { once: true });
  return response;
}

/** The codec as one stream's renderer: its state carried from event to event. */
function codecRenderer(initial: UiStreamState) {
  let state = initial;
  return {
    render(event: Event): string {
      const step = encodeEvent(state, event);
      state = step.state;
      return chunkFrames(event.seq, step.chunks);
    },
    /** The run's events stopped with an exception, not a terminal event: an error chunk. */
    failed(error: unknown, seq: number): string {
      const errorText = `${errorTypeName(error)}: ${errorMessage(error)}`;
      return chunkFrames(Math.max(seq, 0), [{ type: 'error', errorText }]);
    },
  };
}

/** The SSE response over `frames`, `[DONE]` last; a client that leaves stops only its reading. */
function sseUiResponse(
  deps: Deps,
  runId: string,
  frames: AsyncGenerator<string, void, undefined>,
  stop: AbortController,
): Response {
  const onShutdown = () => stop.abort();
  deps.shutdown?.addEventListener('abort', onShutdown, { once: true });
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
