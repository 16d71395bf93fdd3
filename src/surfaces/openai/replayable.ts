/**
 * A protocol's stream codec holds a little state between events (which message is open,
 * the next sequence number), but the stream pump (`../http/stream-buffer.ts`) may render an
 * event twice: when a slow client falls behind, the frames queued but not yet sent are
 * dropped and their events read back from the log and rendered again. `replayableRenderer`
 * keeps the codec's state as it was before each event still in flight and puts it back
 * when an event comes again, so the frames a client gets are those of one pass over the
 * run's events, in order, whatever the pace.
 */
import type { Event } from '../../core/events.js';
import type { FrameRenderer } from '../http/stream-buffer.js';

/** Events to frames, one run at a time, with a state that can be saved and put back. */
export interface StreamCodec<F, S> {
  encode(event: Event): F[];
  snapshot(): S;
  restore(state: S): void;
}

/**
 * States kept for events rendered but maybe not sent: the pump drops at most its queue
 * (1,024 frames), so this many is more than enough (an event has one frame or more).
 */
const KEPT = 2048;

/** A renderer over `codec`, each frame written by `format`, safe to call again for an event. */
export function replayableRenderer<F, S>(
  codec: StreamCodec<F, S>,
  format: (frame: F) => string,
  rest: Pick<FrameRenderer, 'observe' | 'failed'>,
): FrameRenderer {
  const before = new Map<number, S>();
  let last = -1;
  return {
    frame(event) {
      if (event.seq <= last) {
        const state = before.get(event.seq);
        if (state !== undefined) codec.restore(state);
      }
      before.set(event.seq, codec.snapshot());
      if (before.size > KEPT) before.delete(before.keys().next().value as number);
      last = event.seq;
      const frames = codec.encode(event);
      return frames.length === 0 ? null : frames.map(format).join('');
    },
    ...rest,
  };
}
