import { describe, expect, it } from 'vitest';
import { Agent } from '../authoring/agent.js';
import { TextBlock } from '../core/blocks.js';
import { StoreUnavailableError } from '../core/errors.js';
import type { Event } from '../core/events.js';
import type { QueueEntry } from '../core/queue.js';
import { MemoryEventStore } from '../stores/memory/index.js';
import { ScriptedModel } from '../testing/index.js';
import { busySessionWaitMs, playQueuedRun, type QueuedRunParts } from './queued-runs.js';
import type { RunPlayer } from './run-player.js';

const agent = new Agent({ name: 'helper', model: new ScriptedModel([{ text: 'hi' }]) });

async function queued(store: MemoryEventStore) {
  await store.enqueue(
    {
      kind: 'run.queued',
      runId: 'r-1',
      sessionId: 's-1',
      namespace: null,
      origin: 'helper',
      payload: { invocableType: 'agent', input: [new TextBlock('hello')], key: 'k', priority: 0 },
    },
    { concurrency: null, rate: null },
  );
  const [entry] = await store.take({ worker: 'w', origins: ['helper'], max: 1, leaseMs: 60_000 });
  if (!entry) throw new Error('not taken');
  return entry;
}

/** A runtime whose turn records its start, then meets an outage it cannot write an end through. */
function failingRuntime(store: MemoryEventStore, beforeStart: boolean): RunPlayer {
  return {
    async *streamAgent() {
      if (beforeStart) throw new StoreUnavailableError('postgres', 'the store is down');
      const [started] = await store.append([
        {
          kind: 'run.started',
          runId: 'r-1',
          sessionId: 's-1',
          namespace: null,
          origin: 'helper',
          payload: { invocableType: 'agent', input: [new TextBlock('hello')] },
        },
      ]);
      yield started as Event;
      throw new StoreUnavailableError('postgres', 'the store went down mid-turn');
    },
  } as unknown as RunPlayer;
}

function parts(store: MemoryEventStore, beforeStart: boolean): QueuedRunParts {
  return {
    store,
    runtime: failingRuntime(store, beforeStart),
    agents: new Map([['helper', agent]]),
    workflows: new Map(),
    engine: {} as QueuedRunParts['engine'],
  };
}

describe('playQueuedRun and outages', () => {
  it('gives back a run the store refused before it began (its attempt not counted)', async () => {
    const store = new MemoryEventStore();
    const entry = await queued(store);
    expect(await playQueuedRun(parts(store, true), entry)).toEqual({ giveBackInMs: 1_000 });
  });

  it('lets the hold of a run that began lapse, rather than give it back to be played again uncounted', async () => {
    const store = new MemoryEventStore();
    const entry = await queued(store);
    expect(await playQueuedRun(parts(store, false), entry)).toBe('lapse');
    expect((await store.getRun('r-1'))?.status).toBe('running');
  });
});

describe('a busy session', () => {
  it('is looked at again after a tenth of the wait so far, from 250 ms to 5 s', () => {
    const at = (enqueuedAt: number) =>
      busySessionWaitMs(
        { enqueuedAt: new Date(enqueuedAt).toISOString() } as QueueEntry,
        1_000_000,
      );
    expect(at(1_000_000)).toBe(250);
    expect(at(1_000_000 - 10_000)).toBe(1_000);
    expect(at(1_000_000 - 3_600_000)).toBe(5_000);
  });
});
