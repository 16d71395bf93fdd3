import { afterEach, describe, expect, it, vi } from 'vitest';
import { openTestDeck } from '../../test/support/decks.js';
import { approval } from '../../test/support/workflows.js';
import { Agent, ConflictError, type InterruptResult, NotFoundError } from '../index.js';
import { MemoryEventStore } from '../stores/memory/index.js';
import { ScriptedModel } from '../testing/index.js';

afterEach(() => vi.unstubAllEnvs());

/** A run whose process died mid-turn: its events and its claim stay behind. */
async function abandonedRun(store: MemoryEventStore, runId: string, sessionId: string) {
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
  const claim = await store.claim({ key: `session:${sessionId}`, runId, staleAfterMs: 60_000 });
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
