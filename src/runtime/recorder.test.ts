/**
 * The recorder writes exactly one terminal event per run: it refuses anything after the run's
 * terminal event, and does not write a terminal event for a run another writer ended. Checked
 * on the memory store with its run boundaries (the store checks in the write) and without
 * them (the recorder reads the run first), and taps see each event once it is stored.
 */
import { describe, expect, it } from 'vitest';
import type { Event, EventDraft } from '../core/events.js';
import type { EventStore } from '../core/store.js';
import { MemoryEventStore } from '../stores/memory/index.js';
import { RunEndedError, RunRecorder } from './recorder.js';

/** The memory store without the `RunBoundaries` ability (an older or simpler backend). */
function withoutRunBoundaries(store: EventStore): EventStore {
  return new Proxy(store, {
    get(target, property) {
      if (property === 'endRun' || property === 'claimAndAppend') return undefined;
      const value = Reflect.get(target, property, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}

const identity = { runId: 'r-1', sessionId: null, namespace: null, origin: 'scripted' };
const started: EventDraft = { kind: 'run.started', payload: { invocableType: 'agent', input: [] } };
const completed: EventDraft = { kind: 'run.completed', payload: { output: [], usage: null } };
const failed: EventDraft = { kind: 'run.failed', payload: { errorType: 'Error', message: 'x' } };

describe.each([
  ['with run boundaries', () => new MemoryEventStore()],
  ['without run boundaries', () => withoutRunBoundaries(new MemoryEventStore())],
])('RunRecorder, %s', (_name, makeStore) => {
  it('stores each draft before its taps see it, and refuses anything after the terminal event', async () => {
    const store = makeStore();
    const tapped: Event[] = [];
    const recorder = new RunRecorder(store, identity, [(event) => tapped.push(event)]);
    await recorder.record(started);
    await recorder.record({ kind: 'text.delta', payload: { messageId: 'm', text: 'hi' } });
    await recorder.record(completed);
    expect(recorder.ended).toBe(true);
    await expect(recorder.record(failed)).rejects.toBeInstanceOf(RunEndedError);
    await expect(
      recorder.record({ kind: 'text.delta', payload: { messageId: 'm', text: 'late' } }),
    ).rejects.toBeInstanceOf(RunEndedError);
    const log = await store.read('r-1');
    expect(log.map((e) => e.kind)).toEqual(['run.started', 'text.delta', 'run.completed']);
    expect(tapped).toEqual(log);
  });

  it('writes no terminal event for a run another writer ended', async () => {
    const store = makeStore();
    const mine = new RunRecorder(store, identity);
    const other = new RunRecorder(store, identity); // a stale-claim takeover, a closing deck
    await mine.record(started);
    await other.record(failed);
    await expect(mine.record(completed)).rejects.toBeInstanceOf(RunEndedError);
    expect(mine.ended).toBe(true);
    const log = await store.read('r-1');
    expect(log.map((e) => e.kind)).toEqual(['run.started', 'run.failed']);
  });
});
