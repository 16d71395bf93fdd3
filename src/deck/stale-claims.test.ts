import { END, START, StateGraph } from '@langchain/langgraph';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import { openTestDeck } from '../../test/support/decks.js';
import { approval } from '../../test/support/workflows.js';
import {
  Agent,
  ConflictError,
  type InterruptResult,
  interrupt,
  NotFoundError,
  Workflow,
} from '../index.js';
import { MemoryEventStore } from '../stores/memory/index.js';
import { ScriptedModel } from '../testing/index.js';

afterEach(() => vi.unstubAllEnvs());

/** A run whose process died mid-turn: its events and its claim stay behind. */
async function abandonedRun(
  store: MemoryEventStore,
  runId: string,
  sessionId: string,
  leaseMs?: number,
) {
  await store.append([
    {
      kind: 'run.started',
      runId,
      sessionId,
      namespace: null,
      origin: 'A',
      payload: { invocableType: 'agent', input: [] },
    },
  ]);
  const claim = await store.claim({
    key: `session:${sessionId}`,
    runId,
    staleAfterMs: 60_000,
    ...(leaseMs === undefined ? {} : { leaseMs }),
  });
  expect(claim.acquired).toBe(true);
}

describe('stale session claims', () => {
  it('keeps a fresh claim: the second turn gets ConflictError', async () => {
    const eventStore = new MemoryEventStore();
    await abandonedRun(eventStore, 'dead-run', 'conv');
    const model = new ScriptedModel([]);
    const { deck } = await openTestDeck({ agents: [new Agent({ name: 'A', model })], eventStore });
    await expect(deck.run('A', 'hi', { sessionId: 'conv' })).rejects.toThrow(ConflictError);
  });

  it('takes over a claim older than SERVICE_RUNTIME_STALE_RUN_AFTER_SECONDS and fails the stale run', async () => {
    vi.stubEnv('SERVICE_RUNTIME_STALE_RUN_AFTER_SECONDS', '0.05');
    const eventStore = new MemoryEventStore();
    await abandonedRun(eventStore, 'dead-run', 'conv');
    await new Promise((resolve) => setTimeout(resolve, 80));
    const model = new ScriptedModel([{ text: 'fresh start' }]);
    const { deck } = await openTestDeck({ agents: [new Agent({ name: 'A', model })], eventStore });
    const result = await deck.run('A', 'hi', { sessionId: 'conv' });
    expect(result.output).toBe('fresh start');
    expect(await deck.status('dead-run')).toBe('failed');
    const closing = (await eventStore.read('dead-run')).at(-1);
    expect(closing).toMatchObject({
      kind: 'run.failed',
      sessionId: 'conv',
      origin: 'A',
      payload: { errorType: 'StaleRunError' },
    });
    expect(await eventStore.claimHolder('session:conv')).toBeNull();
  });

  it('refuses a malformed stale-run setting at open', async () => {
    vi.stubEnv('SERVICE_RUNTIME_STALE_RUN_AFTER_SECONDS', 'soon');
    await expect(openTestDeck({ agents: [] })).rejects.toThrow(
      /SERVICE_RUNTIME_STALE_RUN_AFTER_SECONDS=soon is not a positive number/,
    );
  });

  it('releases a paused workflow thread after the timeout: a new run takes it, the old one can no longer be answered', async () => {
    // Long enough that the conflict below is seen even on a loaded machine.
    vi.stubEnv('SERVICE_RUNTIME_STALE_RUN_AFTER_SECONDS', '0.5');
    const { deck } = await openTestDeck({ workflows: [approval()] });
    const paused = (await deck.run(
      'approval',
      { amount: 1 },
      { sessionId: 'slow' },
    )) as InterruptResult;
    await expect(deck.run('approval', { amount: 2 }, { sessionId: 'slow' })).rejects.toThrow(
      ConflictError,
    );
    await new Promise((resolve) => setTimeout(resolve, 600));
    const next = (await deck.run(
      'approval',
      { amount: 2 },
      { sessionId: 'slow' },
    )) as InterruptResult;
    expect(next.payload).toEqual({ question: 'approve?', amount: 2 });
    expect(await deck.status(paused.runId as string)).toBe('failed');
    await expect(deck.answer(paused.runId as string, { approved: true })).rejects.toThrow(
      NotFoundError,
    );
    expect((await deck.pending()).map((p) => p.runId)).toEqual([next.runId]);
  });
});

describe('heartbeats: a live run whose process is gone is stale after its lease', () => {
  const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

  it('takes over a live claim that stopped renewing, long before the stale-run timeout', async () => {
    const eventStore = new MemoryEventStore();
    // A live run of a process that died: its last renewal promised one within 50 ms.
    await abandonedRun(eventStore, 'dead-run', 'conv', 50);
    const model = new ScriptedModel([{ text: 'fresh start' }]);
    const { deck } = await openTestDeck({ agents: [new Agent({ name: 'A', model })], eventStore });
    await expect(deck.run('A', 'hi', { sessionId: 'conv' })).rejects.toThrow(ConflictError);
    await sleep(80);
    expect((await deck.run('A', 'hi', { sessionId: 'conv' })).output).toBe('fresh start');
    const closing = (await eventStore.read('dead-run')).at(-1);
    expect(closing).toMatchObject({ kind: 'run.failed', payload: { errorType: 'StaleRunError' } });
    expect(closing?.kind === 'run.failed' && closing.payload.message).toMatch(
      /was not renewed for 0.05 s \(its process stopped its heartbeat/,
    );
  });

  it("keeps a live turn's claim renewed: a second turn is refused well past the lease", async () => {
    // A lease a loaded machine's stalls stay well under.
    vi.stubEnv('SERVICE_RUNTIME_HEARTBEAT_SECONDS', '0.1');
    const eventStore = new MemoryEventStore();
    const model = new ScriptedModel([{ text: ['slow', ' answer'], delayMs: 500 }]);
    const { deck } = await openTestDeck({ agents: [new Agent({ name: 'A', model })], eventStore });
    const first = deck.run('A', 'hi', { sessionId: 'busy' });
    await sleep(450); // half again the 300 ms lease
    const holder = await eventStore.claimHolder('session:busy');
    expect(holder?.leaseMs).toBe(300);
    await expect(deck.run('A', 'again', { sessionId: 'busy' })).rejects.toThrow(ConflictError);
    expect((await first).output).toBe('slow answer');
  });

  it('lets a paused workflow keep its thread past the lease: only the stale-run timeout frees it', async () => {
    vi.stubEnv('SERVICE_RUNTIME_HEARTBEAT_SECONDS', '0.02');
    const { deck, eventStore } = await openTestDeck({ workflows: [approval()] });
    await deck.run('approval', { amount: 1 }, { sessionId: 'waiting' });
    const kept = await eventStore.claimHolder('thread:approval:waiting');
    expect(kept?.leaseMs).toBeUndefined();
    await sleep(100);
    await expect(deck.run('approval', { amount: 2 }, { sessionId: 'waiting' })).rejects.toThrow(
      ConflictError,
    );
  });

  it("closes a gone process's run without waiting for its session's next turn", async () => {
    vi.stubEnv('SERVICE_RUNTIME_HEARTBEAT_SECONDS', '0.02'); // the deck sweeps every 60 ms
    const eventStore = new MemoryEventStore();
    await abandonedRun(eventStore, 'dead-run', 'conv', 50);
    await abandonedRun(eventStore, 'no-lease-run', 'other'); // follows the 3600 s timeout
    const { deck } = await openTestDeck({ agents: [], eventStore });
    await sleep(250);
    expect(await deck.status('dead-run')).toBe('failed');
    expect((await eventStore.read('dead-run')).at(-1)).toMatchObject({
      kind: 'run.failed',
      payload: { errorType: 'StaleRunError' },
    });
    expect(await eventStore.claimHolder('session:conv')).toBeNull();
    expect(await deck.status('no-lease-run')).toBe('running');
    expect((await eventStore.claimHolder('session:other'))?.runId).toBe('no-lease-run');
  });

  it('stops a live run that a sweep closed while its process stalled', async () => {
    vi.stubEnv('SERVICE_RUNTIME_HEARTBEAT_SECONDS', '0.02');
    // A store whose renewals of this session stall (a paused process, a slow database).
    class StallingStore extends MemoryEventStore {
      stall = false;
      override async claim(request: Parameters<MemoryEventStore['claim']>[0]) {
        if (this.stall && request.runId === 'r-stalled') await sleep(300);
        return super.claim(request);
      }
    }
    const eventStore = new StallingStore();
    const model = new ScriptedModel([
      { text: Array.from({ length: 30 }, () => 'x '), delayMs: 30 },
    ]);
    const { deck } = await openTestDeck({ agents: [new Agent({ name: 'A', model })], eventStore });
    const events: string[] = [];
    const playing = (async () => {
      for await (const event of deck.stream('A', 'hi', { sessionId: 's', runId: 'r-stalled' })) {
        events.push(event.kind);
        if (events.length === 3) eventStore.stall = true;
      }
    })();
    await playing;
    // The sweep closed it as failed; the run saw it at its next renewal and stopped early.
    expect(await deck.status('r-stalled')).toBe('failed');
    const log = await eventStore.read('r-stalled');
    expect(log.filter((e) => e.kind === 'text.delta').length).toBeLessThan(30);
    expect(log.some((e) => e.kind === 'run.completed')).toBe(false);
  });

  it('does not report a workflow run as waiting once a sweep closed it while its process stalled', async () => {
    vi.stubEnv('SERVICE_RUNTIME_HEARTBEAT_SECONDS', '0.05');
    // Renewals of this run stall well past the node (a busy pool); the sweep closes the run.
    class StallingStore extends MemoryEventStore {
      stall = false;
      override async claim(request: Parameters<MemoryEventStore['claim']>[0]) {
        if (this.stall && request.runId === 'r-stalled') await sleep(700);
        return super.claim(request);
      }
    }
    const eventStore = new StallingStore();
    const State = z.object({ answer: z.string().default('') });
    const slowAsk = new Workflow({
      name: 'slow-ask',
      state: State,
      graph: (state) =>
        new StateGraph(state)
          .addNode('slow', async () => {
            eventStore.stall = true;
            await sleep(300);
            return {};
          })
          .addNode('ask', () => ({ answer: interrupt<string>({ question: 'why?' }) }))
          .addEdge(START, 'slow')
          .addEdge('slow', 'ask')
          .addEdge('ask', END),
    });
    const { deck } = await openTestDeck({ workflows: [slowAsk], eventStore });
    await expect(deck.run('slow-ask', {}, { sessionId: 't', runId: 'r-stalled' })).rejects.toThrow(
      /closed as failed by another process while this one stalled/,
    );
    expect(await deck.status('r-stalled')).toBe('failed');
    const kinds = (await eventStore.read('r-stalled')).map((event) => event.kind);
    expect(kinds).not.toContain('run.interrupted');
    expect(await deck.pending()).toEqual([]);
  });

  it('refuses a malformed heartbeat setting at open', async () => {
    vi.stubEnv('SERVICE_RUNTIME_HEARTBEAT_SECONDS', '0');
    await expect(openTestDeck({ agents: [] })).rejects.toThrow(
      /SERVICE_RUNTIME_HEARTBEAT_SECONDS=0 is not a positive number/,
    );
  });
});
