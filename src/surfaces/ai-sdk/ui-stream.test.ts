/**
 * A turn's stream for a client that reads far slower than the run plays: the pump keeps
 * taking the run's events (the run is not held back), drops its queue past its bound, and the
 * stream goes on from the event log, each event's chunks written once, in order, with nothing
 * missed. And a client that leaves stops only its own reading.
 */
import { describe, expect, it } from 'vitest';
import type { Event, NewEvent } from '../../core/events.js';
import { MemoryEventStore } from '../../stores/memory/index.js';
import { uiTurnResponse } from './ui-stream.js';

const RUN = 'run-slow';
const envelope = { runId: RUN, sessionId: 'chat', namespace: null, origin: 'Clerk' } as const;

/** A run of `deltas` text deltas, appended to `store` as it is yielded. */
async function* playedRun(store: MemoryEventStore, deltas: number, played: { count: number }) {
  const drafts: NewEvent[] = [
    { ...envelope, kind: 'run.started', payload: { invocableType: 'agent', input: [] } },
    ...Array.from(
      { length: deltas },
      (_, i): NewEvent => ({
        ...envelope,
        kind: 'text.delta',
        payload: { messageId: `${RUN}:m0`, text: `${i} ` },
      }),
    ),
    { ...envelope, kind: 'run.completed', payload: { output: [], usage: null } },
  ];
  for (const draft of drafts) {
    const [stored] = await store.append([draft]);
    played.count += 1;
    yield stored as Event;
  }
}

function deps(store: MemoryEventStore) {
  return { eventLog: () => store, shutdown: undefined, log: () => {} };
}

describe('uiTurnResponse', () => {
  it('falls back to the log for a client far behind, and writes every event once, in order', async () => {
    const store = new MemoryEventStore();
    const played = { count: 0 };
    const events = playedRun(store, 3_000, played);
    const first = (await events.next()) as IteratorYieldResult<Event>;
    const response = uiTurnResponse(deps(store), first, events);
    // Nobody reads yet: the run plays to its end all the same.
    while (played.count < 3_002) await new Promise((resolve) => setTimeout(resolve, 1));
    const text = await response.text();
    const frames = text.trim().split('\n\n');
    expect(frames.at(-1)).toBe('data: [DONE]');
    const chunks = frames.slice(0, -1).map((frame) => {
      const [id, data] = frame.split('\n');
      return { seq: Number(id?.slice(4)), chunk: JSON.parse(data?.slice(6) ?? '') };
    });
    const deltas = chunks.filter((c) => c.chunk.type === 'text-delta');
    expect(deltas.map((c) => c.seq)).toEqual(Array.from({ length: 3_000 }, (_, i) => i + 1));
    expect(deltas.map((c) => c.chunk.delta).join('')).toBe(
      Array.from({ length: 3_000 }, (_, i) => `${i} `).join(''),
    );
    expect(chunks.filter((c) => c.chunk.type === 'text-start')).toHaveLength(1);
    expect(chunks.at(-1)?.chunk).toMatchObject({ type: 'finish', finishReason: 'stop' });
    await store.close();
  });

  it('a client that leaves stops its reading; the run plays on', async () => {
    const store = new MemoryEventStore();
    const played = { count: 0 };
    const events = playedRun(store, 50, played);
    const first = (await events.next()) as IteratorYieldResult<Event>;
    const response = uiTurnResponse(deps(store), first, events);
    const reader = response.body?.getReader();
    await reader?.read();
    await reader?.cancel();
    while (played.count < 52) await new Promise((resolve) => setTimeout(resolve, 1));
    expect((await store.getRun(RUN))?.status).toBe('completed');
    await store.close();
  });
});
