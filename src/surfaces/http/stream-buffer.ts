/**
 * The two 1.2.1 stream routes (`POST /agents/{name}/chat?stream=true`, `POST
 * /workflows/{name}?stream=true`) play their run at the run's own pace, whatever the pace of
 * the client reading the SSE response. A pump pulls the run's events as they come (the run is
 * recorded either way: each event is stored before it is yielded) and queues their frames
 * for the writer, up to a bound ({@link StreamBufferLimits}). A client that falls further
 * behind loses the queue, not a frame: the writer then reads the run's events back from the
 * event log, a page at a time after the last seq it sent (the reader of `GET
 * /runs/{id}/events`), until it is level with the run, and goes back to the queue. So one
 * stream holds at most the queue's bound plus one page, however long the answer and
 * however slow the client; a client that reads normally gets the same frames, byte for
 * byte, as in release 1.2.1. A client that goes away still stops the run
 * (`clientGone`, called by `sseResponse`).
 */
import { isBackendOutage } from '../../core/errors.js';
import type { Event } from '../../core/events.js';
import type { HttpDeps } from './deps.js';
import type { EventLog } from './served-deck.js';
import { clientGone, sseResponse } from './sse.js';

/** How much of a run one SSE stream holds for a client that reads slower than the run plays. */
export interface StreamBufferLimits {
  /** Frame text (UTF-16 code units, about bytes) queued before the stream falls back to the log. @default 262144 (256 KiB) */
  maxChars: number;
  /** Frames queued before the stream falls back to the log. @default 1024 */
  maxFrames: number;
  /** Events read from the log at a time while catching up. @default 32 */
  pageEvents: number;
}

export const STREAM_BUFFER_DEFAULTS: StreamBufferLimits = {
  maxChars: 256 * 1024,
  maxFrames: 1024,
  pageEvents: 32,
};

/** How a route shows a run's events. */
export interface FrameRenderer {
  /** The frame for an event, or `null` for one the route does not show; called again for events read back from the log. */
  frame(event: Event): string | null;
  /** Called once per event as the run plays (the route's log lines). */
  observe(event: Event): void;
  /** The last frame when the run's events stop with an exception instead of a terminal event. */
  failed(error: unknown): string;
}

type Events = AsyncGenerator<Event, void, undefined>;

/** A stream's frames, and how to stop reading them (the client left). */
export interface BufferedFrames {
  frames: AsyncGenerator<string, void, undefined>;
  /**
   * The frames queued behind the one `frames` yielded last, joined, and taken from the queue
   * (`''` for none): the writer sends them with it, one write instead of one per frame, when
   * the run got ahead of the socket.
   */
  takeQueued(): string;
  /** Stop the writer; the pump goes on until the run's events end (the caller stops the run). */
  close(): void;
}

/** The frames of the run `first` began, pumped at the run's pace (see the module comment). */
export function bufferedFrames(
  first: IteratorResult<Event, void>,
  events: Events,
  log: EventLog,
  render: FrameRenderer,
  limits: StreamBufferLimits = STREAM_BUFFER_DEFAULTS,
): BufferedFrames {
  const runId = first.done ? '' : first.value.runId;
  let queue: { seq: number; frame: string }[] = [];
  let queuedChars = 0;
  let behind = false;
  let lastSeq = -1; // the last event the pump saw
  let ended = false;
  let closed = false;
  let lastFrame: string | null = null;
  let sentSeq = -1; // the last event whose frame this stream wrote (or skipped)
  let wake: (() => void) | null = null;
  const poke = () => {
    wake?.();
    wake = null;
  };
  const next = () => new Promise<void>((resolve) => (wake = resolve));

  const pump = async () => {
    try {
      for (let step = first; !step.done; step = await events.next()) {
        const event = step.value;
        render.observe(event);
        lastSeq = event.seq;
        if (!behind && !closed) {
          const frame = render.frame(event);
          if (frame !== null) {
            queue.push({ seq: event.seq, frame });
            queuedChars += frame.length;
            if (queue.length > limits.maxFrames || queuedChars > limits.maxChars) {
              queue = []; // in the log already: the writer reads them back from there
              queuedChars = 0;
              behind = true;
            }
          }
        }
        poke();
      }
    } catch (error) {
      lastFrame = render.failed(error);
    } finally {
      ended = true;
      poke();
      await events.return();
    }
  };
  // pump() catches the run's failures; what could still reject is the ended generator's return().
  pump().catch(() => {});

  async function* frames(): AsyncGenerator<string, void, undefined> {
    while (!closed) {
      if (behind) {
        const page = await readPage(log, runId, sentSeq, limits.pageEvents);
        const read = page.length;
        while (page.length > 0 && !closed) {
          const event = page.shift() as Event;
          sentSeq = event.seq;
          const frame = render.frame(event);
          if (frame !== null) yield frame;
        }
        if (sentSeq >= lastSeq || (read === 0 && ended)) {
          behind = false; // level with the run (or the log holds no more): the queue again
        } else if (read === 0) {
          await next();
        }
        continue;
      }
      const item = queue.shift();
      if (item) {
        queuedChars -= item.frame.length;
        sentSeq = item.seq;
        yield item.frame;
      } else if (ended) {
        if (lastFrame !== null) yield lastFrame;
        return;
      } else {
        await next();
      }
    }
  }

  return {
    frames: frames(),
    takeQueued() {
      if (behind || closed || queue.length === 0) return '';
      const taken = queue;
      queue = [];
      queuedChars = 0;
      sentSeq = (taken.at(-1) as { seq: number }).seq;
      let text = '';
      for (const item of taken) text += item.frame;
      return text;
    },
    close() {
      closed = true;
      queue = [];
      poke();
    },
  };
}

/** A page of the run's events after `afterSeq`; while the store is down, read again each second. */
async function readPage(log: EventLog, runId: string, afterSeq: number, limit: number) {
  for (;;) {
    try {
      return await log.read(runId, { afterSeq, limit });
    } catch (error) {
      if (!isBackendOutage(error)) throw error;
      await new Promise((resolve) => setTimeout(resolve, 1_000));
    }
  }
}

/**
 * The SSE response of a stream route: frames pumped at the run's pace when the deck's event
 * log can be read back, pulled at the client's pace otherwise. A client that leaves stops
 * the run.
 */
export function streamedRun(
  deps: Pick<HttpDeps, 'eventLog' | 'stopRun'>,
  first: IteratorResult<Event, void>,
  events: Events,
  render: FrameRenderer,
  headers: Record<string, string>,
): Response {
  let log: EventLog | null = null;
  try {
    log = deps.eventLog();
  } catch {
    // Not open: nothing to read back, so the client sets the pace as before.
  }
  if (!log) {
    const frames = directFrames(first, events, render);
    return sseResponse(frames, () => clientGone(deps, first, events), headers);
  }
  const buffered = bufferedFrames(first, events, log, render);
  return sseResponse(
    buffered.frames,
    () => {
      buffered.close();
      return clientGone(deps, first, events);
    },
    headers,
    buffered.takeQueued,
  );
}

/** The frames of a run pulled at the client's pace (no event log to catch up from). */
export async function* directFrames(
  first: IteratorResult<Event, void>,
  events: Events,
  render: FrameRenderer,
): AsyncGenerator<string, void, undefined> {
  try {
    for (let step = first; !step.done; step = await events.next()) {
      render.observe(step.value);
      const frame = render.frame(step.value);
      if (frame !== null) yield frame;
    }
  } catch (error) {
    yield render.failed(error);
  } finally {
    await events.return();
  }
}
