/**
 * A terminal event the store cannot take (its backend is down) is kept and written once the
 * store is back, exactly once, and handed to the run's taps then; one that another writer
 * ended meanwhile is dropped, as is a pause put back on a run no longer playing; what is
 * left at close is given up with a log line. The store
 * is the memory reference with an outage switch (a fake, not a mock).
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { TextBlock } from '../core/blocks.js';
import { StoreUnavailableError } from '../core/errors.js';
import { type Event, type EventDraft, isTerminal, type NewEvent } from '../core/events.js';
import { MemoryEventStore } from '../stores/memory/events.js';
import { PendingEndings } from './pending-endings.js';
import { RunRecorder } from './recorder.js';

/** The memory store, refusing writes while `down`, as a store whose server restarts. */
class OutageStore extends MemoryEventStore {
  down = false;

  override async append(events: readonly NewEvent[]): Promise<Event[]> {
    this.#refuse();
    return super.append(events);
  }

  override async endRun(event: NewEvent, release: string | null): Promise<Event | null> {
    this.#refuse();
    return super.endRun(event, release);
  }

  #refuse(): void {
    if (this.down) throw new StoreUnavailableError('postgres', 'the test store is down');
  }
}

const identity = { runId: 'r1', sessionId: null, namespace: null, origin: 'helper' };
const started: EventDraft = {
  kind: 'run.started',
  payload: { invocableType: 'agent', input: [new TextBlock('hi')] },
};
const failed: EventDraft = {
  kind: 'run.failed',
  payload: { errorType: 'StoreUnavailableError', message: 'down' },
};

afterEach(() => {
  vi.restoreAllMocks();
});

describe('PendingEndings', () => {
  it('writes an ending the store refused once the store is back, once, and taps it then', async () => {
    const store = new OutageStore();
    const endings = new PendingEndings(store, 20);
    const tapped: Event[] = [];
    const recorder = new RunRecorder(store, identity, [(event) => tapped.push(event)], endings);
    await recorder.record(started);
    store.down = true;
    vi.spyOn(console, 'error').mockImplementation(() => {});
    await expect(recorder.record(failed)).rejects.toBeInstanceOf(StoreUnavailableError);
    expect(endings.size).toBe(1);
    await new Promise((done) => setTimeout(done, 80)); // a few retries while still down
    expect((await store.getRun('r1'))?.status).toBe('running');
    store.down = false;
    await vi.waitFor(() => expect(endings.size).toBe(0), { timeout: 2_000, interval: 10 });
    const events = await store.read('r1');
    expect(events.filter(isTerminal).map((event) => event.kind)).toEqual(['run.failed']);
    expect(tapped.map((event) => event.kind)).toEqual(['run.started', 'run.failed']);
    await endings.close();
  });

  it('drops an ending whose run another writer ended meanwhile (one terminal event)', async () => {
    const store = new OutageStore();
    const endings = new PendingEndings(store, 20);
    const recorder = new RunRecorder(store, identity, [], endings);
    await recorder.record(started);
    store.down = true;
    vi.spyOn(console, 'error').mockImplementation(() => {});
    await expect(recorder.record(failed)).rejects.toThrow('down');
    store.down = false;
    // A stale sweep in another process closes it first.
    await store.endRun(
      {
        ...identity,
        kind: 'run.failed',
        payload: { errorType: 'StaleRunError', message: 'swept' },
      },
      null,
    );
    await vi.waitFor(() => expect(endings.size).toBe(0), { timeout: 2_000, interval: 10 });
    const terminals = (await store.read('r1')).filter(isTerminal);
    expect(terminals.map((event) => event.payload)).toEqual([
      { errorType: 'StaleRunError', message: 'swept' },
    ]);
    await endings.close();
  });

  it('writes a pause put back (a resume refused for an outage) only on a run still playing', async () => {
    const store = new OutageStore();
    const endings = new PendingEndings(store, 20);
    const tapped: Event[] = [];
    await store.append([{ ...identity, ...started }]);
    const asked = { ...identity, sessionId: 'other', runId: 'r2' };
    await store.append([{ ...asked, ...started }]);
    vi.spyOn(console, 'error').mockImplementation(() => {});
    const pause = { kind: 'run.interrupted', payload: { payload: 'ok?', threadId: 't' } } as const;
    endings.add({ ...identity, ...pause } as NewEvent, null, (event) => tapped.push(event));
    endings.add({ ...asked, ...pause } as NewEvent, null, (event) => tapped.push(event));
    // Run r2 was closed meanwhile (a stale sweep): its pause is dropped.
    await store.endRun({ ...asked, ...failed } as NewEvent, null);
    await vi.waitFor(() => expect(endings.size).toBe(0), { timeout: 2_000, interval: 10 });
    expect((await store.getRun('r1'))?.status).toBe('waiting_human');
    expect((await store.getRun('r2'))?.status).toBe('failed');
    expect(tapped.map((event) => `${event.runId} ${event.kind}`)).toEqual(['r1 run.interrupted']);
    await endings.close();
  });

  it('gives up at close, with a line saying the stale sweep will end the run', async () => {
    const store = new OutageStore();
    const endings = new PendingEndings(store, 10_000);
    const recorder = new RunRecorder(store, identity, [], endings);
    await recorder.record(started);
    store.down = true;
    const log = vi.spyOn(console, 'error').mockImplementation(() => {});
    await expect(recorder.record(failed)).rejects.toThrow('down');
    await endings.close();
    expect(endings.size).toBe(0);
    expect(log.mock.calls.at(-1)?.[0]).toMatch(/run 'r1' closes with its terminal event unwritten/);
    expect((await store.getRun('r1'))?.status).toBe('running');
  });
});
