import { describe, expect, it } from 'vitest';
import type { Event } from '../../core/events.js';
import { MemoryEventStore } from '../../stores/memory/events.js';
import { ev, run } from '../../testing/event-store-events.js';
import { bufferedFrames, type FrameRenderer } from './stream-buffer.js';

const LIMITS = { maxFrames: 10, maxChars: 1_000, pageEvents: 4 };

const render: FrameRenderer = {
  frame: (event) =>
    event.kind === 'text.delta'
      ? `d:${event.payload.text}`
      : event.kind === 'run.completed'
        ? 'end'
        : null,
  observe: () => {},
  failed: (error) => `failed:${(error as Error).message}`,
};

/** A run of `deltas` deltas, each stored before it is yielded, as the runtime plays one. */
function playedRun(deltas: number, failAt?: number) {
  const store = new MemoryEventStore();
  const reads: number[] = [];
  const log = {
    read: async (runId: string, options?: { afterSeq?: number; limit?: number }) => {
      const page = await store.read(runId, options);
      reads.push(page.length);
      return page;
    },
    getRun: store.getRun.bind(store),
    listRuns: store.listRuns.bind(store),
  };
  const envelope = run();
  const state = { yielded: 0, finished: false };
  async function* events(): AsyncGenerator<Event, void, undefined> {
    const [started] = await store.append([ev.started(envelope)]);
    yield started as Event;
    for (let i = 0; i < deltas; i++) {
      if (i === failAt) throw new Error('engine broke');
      const [delta] = await store.append([ev.delta(envelope, `t${i}`)]);
      state.yielded++;
      yield delta as Event;
    }
    const [done] = await store.append([ev.completed(envelope)]);
    yield done as Event;
    state.finished = true;
  }
  return { log, reads, state, events: events() };
}

async function collect(frames: AsyncGenerator<string, void, undefined>): Promise<string[]> {
  const all: string[] = [];
  for await (const frame of frames) all.push(frame);
  return all;
}

const expected = (n: number) => [...Array.from({ length: n }, (_, i) => `d:t${i}`), 'end'];

describe('bufferedFrames', () => {
  it('plays the run to its end while nobody reads, then serves it all from the log', async () => {
    const played = playedRun(500);
    const first = await played.events.next();
    const { frames } = bufferedFrames(first, played.events, played.log, render, LIMITS);
    for (let i = 0; i < 100 && !played.state.finished; i++) await new Promise((r) => setTimeout(r));
    expect(played.state).toEqual({ yielded: 500, finished: true });

    expect(await collect(frames)).toEqual(expected(500));
    expect(played.reads.length).toBeGreaterThan(100);
    expect(Math.max(...played.reads)).toBeLessThanOrEqual(LIMITS.pageEvents);
  });

  it('never reads the log for a client that keeps up, and writes the same frames', async () => {
    const played = playedRun(500);
    const first = await played.events.next();
    const { frames } = bufferedFrames(first, played.events, played.log, render, LIMITS);
    expect(await collect(frames)).toEqual(expected(500));
    expect(played.reads).toEqual([]);
  });

  it('goes back to the queue once a late client caught up', async () => {
    const played = playedRun(200);
    const first = await played.events.next();
    const { frames } = bufferedFrames(first, played.events, played.log, render, LIMITS);
    const got: string[] = [];
    // Read slowly at first (the queue overflows), then as fast as it comes.
    for await (const frame of frames) {
      got.push(frame);
      if (got.length < 20) await new Promise((r) => setTimeout(r, 2));
    }
    expect(got).toEqual(expected(200));
    expect(played.reads.length).toBeGreaterThan(0);
  });

  it('ends with the failure frame after the frames before it', async () => {
    const played = playedRun(100, 50);
    const first = await played.events.next();
    const { frames } = bufferedFrames(first, played.events, played.log, render, LIMITS);
    await new Promise((r) => setTimeout(r, 20));
    expect(await collect(frames)).toEqual([...expected(50).slice(0, 50), 'failed:engine broke']);
  });

  it('hands the frames queued behind the one pulled to the writer once, in order', async () => {
    const played = playedRun(50);
    const first = await played.events.next();
    const roomy = { ...LIMITS, maxFrames: 100, maxChars: 10_000 }; // never behind: the queue only
    const buffered = bufferedFrames(first, played.events, played.log, render, roomy);
    const written: string[] = [];
    // A writer that comes back late: several frames queued by then, written with the pulled one.
    for (let step = await buffered.frames.next(); !step.done; step = await buffered.frames.next()) {
      written.push(step.value + buffered.takeQueued());
      await new Promise((r) => setTimeout(r, 1));
    }
    expect(written.join('')).toBe(expected(50).join(''));
    expect(written.length).toBeLessThan(expected(50).length);
    expect(played.reads).toEqual([]);
    expect(buffered.takeQueued()).toBe('');
  });

  it('stops writing when closed; the run is still consumed to its end', async () => {
    const played = playedRun(300);
    const first = await played.events.next();
    const buffered = bufferedFrames(first, played.events, played.log, render, LIMITS);
    expect((await buffered.frames.next()).value).toBe('d:t0');
    buffered.close();
    expect((await buffered.frames.next()).done).toBe(true);
    for (let i = 0; i < 100 && !played.state.finished; i++) await new Promise((r) => setTimeout(r));
    expect(played.state.finished).toBe(true);
  });
});
