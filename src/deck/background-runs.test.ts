import { afterEach, describe, expect, it, vi } from 'vitest';
import { openTestDeck } from '../../test/support/decks.js';
import { ListSession } from '../../test/support/runtimes.js';
import { approval } from '../../test/support/workflows.js';
import {
  Agent,
  ConfigError,
  type Event,
  InvalidInputError,
  NotFoundError,
  type RunStatus,
  TextBlock,
} from '../index.js';
import { MemoryEventStore } from '../stores/memory/index.js';
import { ScriptedModel } from '../testing/index.js';

afterEach(() => vi.unstubAllEnvs());

const sleep = (ms: number) => new Promise((done) => setTimeout(done, ms));

/** Poll until `runId` has one of `statuses` (bounded). */
async function until(
  status: (runId: string) => Promise<RunStatus | null>,
  runId: string,
  statuses: RunStatus[],
): Promise<RunStatus | null> {
  let seen: RunStatus | null = null;
  for (let i = 0; i < 200 && !(seen && statuses.includes(seen)); i++) {
    seen = await status(runId);
    if (!seen || !statuses.includes(seen)) await sleep(10);
  }
  return seen;
}

/** A deck on a memory store, typed as one (the queue's reads are not on `EventStore`). */
async function queueDeck(options: Parameters<typeof openTestDeck>[0]) {
  const eventStore = new MemoryEventStore();
  const { deck } = await openTestDeck({ ...options, eventStore });
  return { deck, eventStore };
}

function replies(count: number, delayMs = 0) {
  return new ScriptedModel(
    Array.from({ length: count }, (_, i) => ({ text: `reply ${i}`, delayMs })),
  );
}

describe('background runs', () => {
  it('queues an agent turn, returns at once, and a worker plays it to its end', async () => {
    const { deck, eventStore } = await queueDeck({
      agents: [new Agent({ name: 'helper', model: replies(1) })],
    });
    const queued = await deck.enqueue('helper', 'hello', { sessionId: 's-1', key: 'acme' });
    expect(queued).toMatchObject({ status: 'queued', key: 'acme', priority: 0 });
    expect(await until((id) => deck.status(id), queued.runId, ['completed'])).toBe('completed');
    const events = await eventStore.read(queued.runId);
    expect(events.map((e) => e.kind).slice(0, 2)).toEqual(['run.queued', 'run.started']);
    expect(events.at(-1)?.kind).toBe('run.completed');
    expect(await eventStore.queueEntry(queued.runId)).toBeNull();
    // The turn is in its session, as a synchronous one would be.
    expect((await deck.sessionFor('s-1').getItems()).length).toBeGreaterThan(0);
  });

  it('plays a workflow to its question, frees its slot, and takes the answer like any run', async () => {
    const { deck, eventStore } = await queueDeck({ workflows: [approval()] });
    const queued = await deck.enqueue('approval', { amount: 3 }, { sessionId: 'order-3' });
    expect(await until((id) => deck.status(id), queued.runId, ['waiting_human'])).toBe(
      'waiting_human',
    );
    expect(await eventStore.queueEntry(queued.runId)).toBeNull();
    const result = await deck.answer(queued.runId, { approved: true });
    expect(result).toMatchObject({ note: 'amount 3 approved' });
  });

  it('refuses a bad run at once and queues nothing', async () => {
    const eventStore = new MemoryEventStore();
    const { deck } = await openTestDeck({ workflows: [approval()], eventStore });
    await expect(deck.enqueue('nobody', {})).rejects.toThrow(NotFoundError);
    await expect(deck.enqueue('approval', { amount: 'many' })).rejects.toThrow(InvalidInputError);
    await expect(deck.enqueue('approval', { amount: 1 }, { priority: 1.5 })).rejects.toThrow(
      /priority must be a whole number from -1000 to 1000, got 1.5/,
    );
    await expect(deck.enqueue('approval', { amount: 1 }, { key: '' })).rejects.toThrow(
      /key must be a non-empty string/,
    );
    expect(await eventStore.listRuns()).toEqual([]);
    expect(() => new Agent({ name: 'a', queue: { concurrency: 0 } })).toThrow(ConfigError);
    expect(() => new Agent({ name: 'a', queue: { rate: { limit: 2, perSeconds: 0 } } })).toThrow(
      /queue.rate.perSeconds must be a number of seconds over 0, got 0/,
    );
  });

  it("keeps a tenant's keys its own: another tenant's key names a key of the caller's", async () => {
    vi.stubEnv('SERVICE_QUEUE_CONCURRENCY', '0');
    const { deck } = await queueDeck({
      agents: [new Agent({ name: 'helper', model: replies(1) })],
    });
    const named = await deck.enqueue('helper', 'hi', { namespace: 'acme', key: 'globex' });
    expect(named.key).toBe('acme/globex');
    expect((await deck.enqueue('helper', 'hi', { namespace: 'acme' })).key).toBe('acme');
    expect((await deck.enqueue('helper', 'hi', { key: 'globex' })).key).toBe('globex');
  });

  it('cancels a run still waiting in the queue: it never starts', async () => {
    vi.stubEnv('SERVICE_QUEUE_CONCURRENCY', '0'); // no worker here
    const { deck, eventStore } = await queueDeck({
      agents: [new Agent({ name: 'helper', model: replies(1) })],
    });
    const queued = await deck.enqueue('helper', 'hello');
    expect(await deck.status(queued.runId)).toBe('queued');
    await deck.cancel(queued.runId, { reason: 'changed my mind' });
    expect(await deck.status(queued.runId)).toBe('cancelled');
    expect((await eventStore.read(queued.runId)).map((e) => e.kind)).toEqual([
      'run.queued',
      'control.requested',
      'control.observed',
      'run.cancelled',
    ]);
    expect(await eventStore.queueEntry(queued.runId)).toBeNull();
  });

  it('plays at most `concurrency` runs of one key at once; another key is not held back', async () => {
    const agent = new Agent({ name: 'slow', model: replies(6, 40), queue: { concurrency: 1 } });
    const { deck, eventStore } = await queueDeck({ agents: [agent] });
    const limited = [];
    for (let i = 0; i < 3; i++) limited.push(await deck.enqueue('slow', `m${i}`, { key: 'k1' }));
    const other = await deck.enqueue('slow', 'other', { key: 'k2' });
    for (const run of [...limited, other]) {
      expect(await until((id) => deck.status(id), run.runId, ['completed'])).toBe('completed');
    }
    const spans = await Promise.all(limited.map((run) => spanOf(eventStore, run.runId)));
    spans.sort((a, b) => a.start - b.start);
    for (let i = 1; i < spans.length; i++) {
      expect(spans[i]?.start).toBeGreaterThanOrEqual(spans[i - 1]?.end ?? Infinity);
    }
    // k2's run started before k1's last one: it did not wait behind them.
    const otherSpan = await spanOf(eventStore, other.runId);
    expect(otherSpan.start).toBeLessThan(spans.at(-1)?.start ?? 0);
  });

  it('runs two background turns on one session one after the other (multitask enqueue)', async () => {
    const { deck, eventStore } = await queueDeck({
      agents: [new Agent({ name: 'helper', model: replies(2, 30) })],
    });
    const first = await deck.enqueue('helper', 'one', { sessionId: 'shared' });
    const second = await deck.enqueue('helper', 'two', {
      sessionId: 'shared',
      multitask: 'enqueue',
    });
    for (const run of [first, second]) {
      expect(await until((id) => deck.status(id), run.runId, ['completed'])).toBe('completed');
    }
    const [a, b] = await Promise.all([first, second].map((r) => spanOf(eventStore, r.runId)));
    expect((b?.start ?? 0) >= (a?.end ?? Infinity) || (a?.start ?? 0) >= (b?.end ?? Infinity)).toBe(
      true,
    );
  });
});

describe('a background run whose worker died', () => {
  /** A run queued and taken by a worker that then died mid-turn (its hold lapses in 30 ms). */
  async function abandoned(store: MemoryEventStore, origin: string) {
    const { runId } = await store.enqueue(
      {
        kind: 'run.queued',
        runId: `dead-${origin}`,
        sessionId: `s-${origin}`,
        namespace: null,
        origin,
        payload: { invocableType: 'agent', input: [new TextBlock('hello')], key: 'k', priority: 0 },
      },
      { concurrency: null, rate: null },
    );
    await store.take({ worker: 'gone', origins: [origin], max: 1, leaseMs: 30 });
    await store.append([
      {
        kind: 'run.started',
        runId,
        sessionId: `s-${origin}`,
        namespace: null,
        origin,
        payload: { invocableType: 'agent', input: [new TextBlock('hello')] },
      },
    ]);
    await sleep(50);
    return runId;
  }

  it('plays an agent turn again while its retry policy allows, and says so in run.resumed', async () => {
    const eventStore = new MemoryEventStore();
    const runId = await abandoned(eventStore, 'retried');
    const agent = new Agent({
      name: 'retried',
      model: replies(1),
      queue: { retry: { attempts: 2 } },
    });
    const { deck } = await openTestDeck({ agents: [agent], eventStore });
    expect(await until((id) => deck.status(id), runId, ['completed'])).toBe('completed');
    const resumed = (await eventStore.read(runId)).find((e) => e.kind === 'run.resumed');
    expect(resumed?.payload).toMatchObject({
      retry: { attempt: 2, reason: expect.stringMatching(/the worker playing it stopped/) },
    });
  });

  it('fails an agent turn with no attempt left (WorkerLostError)', async () => {
    const eventStore = new MemoryEventStore();
    const runId = await abandoned(eventStore, 'once');
    const { deck } = await openTestDeck({
      agents: [new Agent({ name: 'once', model: replies(1) })],
      eventStore,
    });
    expect(await until((id) => deck.status(id), runId, ['failed'])).toBe('failed');
    const failed = (await eventStore.read(runId)).at(-1);
    expect(failed?.payload).toMatchObject({
      errorType: 'WorkerLostError',
      message: expect.stringMatching(/attempt 1 of 1; no attempt is left/),
    });
    expect(await eventStore.queueEntry(runId)).toBeNull();
  });
});

describe('a background run in flight when its deck closes', () => {
  it('goes back to the queue, not cancelled, and the next deck plays it once more', async () => {
    const eventStore = new MemoryEventStore();
    // One conversation store for both decks, as Redis would be for two processes.
    const sessions = new Map<string, ListSession>();
    const sessionFactory = (id: string) => {
      const session = sessions.get(id) ?? new ListSession(id);
      sessions.set(id, session);
      return session;
    };
    const slow = new ScriptedModel([{ text: Array.from({ length: 40 }, () => 'x '), delayMs: 25 }]);
    const first = await openTestDeck({
      agents: [new Agent({ name: 'helper', model: slow })],
      eventStore,
      sessionFactory,
    });
    const queued = await first.deck.enqueue('helper', 'hello', { sessionId: 's-h' });
    expect(await until((id) => first.deck.status(id), queued.runId, ['running'])).toBe('running');
    await sleep(60); // its message is in the session, its reply not yet
    await first.deck.close();
    expect((await eventStore.read(queued.runId)).map((e) => e.kind)).not.toContain('run.cancelled');
    expect(await eventStore.queueEntry(queued.runId)).toMatchObject({ takenBy: null, attempts: 0 });
    expect(sessions.get('s-h')?.items.map((item) => (item as { role?: string }).role)).toEqual([
      'user',
    ]);
    const next = await openTestDeck({
      agents: [new Agent({ name: 'helper', model: replies(1) })],
      eventStore,
      sessionFactory,
    });
    expect(await until((id) => next.deck.status(id), queued.runId, ['completed'])).toBe(
      'completed',
    );
    const resumed = (await eventStore.read(queued.runId)).filter((e) => e.kind === 'run.resumed');
    expect(resumed).toHaveLength(1);
    // The stopped attempt's message was taken out before the turn played again: sent once.
    expect(sessions.get('s-h')?.items.map((item) => (item as { role?: string }).role)).toEqual([
      'user',
      'assistant',
    ]);
  });
});

/** When a run started (`run.started`) and ended, in ms. */
async function spanOf(store: MemoryEventStore, runId: string) {
  const events: Event[] = await store.read(runId);
  const at = (kind: string) => Date.parse(events.find((e) => e.kind === kind)?.ts ?? '');
  return { start: at('run.started'), end: at('run.completed') };
}
