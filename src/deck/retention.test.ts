import { describe, expect, it, vi } from 'vitest';
import { openTestDeck, testDeck } from '../../test/support/decks.js';
import { approval, threeSteps } from '../../test/support/workflows.js';
import { Agent, ConfigError, InterruptResult } from '../index.js';
import { threadClaimKey } from '../runtime/workflow-run.js';
import { MemoryEventStore } from '../stores/memory/index.js';
import { ev, run } from '../testing/event-store-events.js';
import { ScriptedModel } from '../testing/index.js';

const replies = (count: number) =>
  new ScriptedModel(Array.from({ length: count }, (_, i) => ({ text: `reply ${i}` })));

/** Ended runs are strictly before `now`: let the clock move past the last one. */
const tick = () => new Promise((resolve) => setTimeout(resolve, 5));

describe('retention: deck.prune()', () => {
  it('removes runs that ended and never one that has not, however old', async () => {
    const greeter = new Agent({ name: 'Greeter', model: replies(2) });
    const { deck, eventStore } = await openTestDeck({ agents: [greeter], workflows: [approval()] });
    const first = await deck.run('Greeter', 'hi');
    const second = await deck.run('Greeter', 'hi again', { sessionId: 'user-1' });
    const waiting = await deck.run('approval', { amount: 10 });
    expect(waiting).toBeInstanceOf(InterruptResult);
    const waitingId = (waiting as InterruptResult).runId as string;
    await tick();

    const report = await deck.prune({ olderThanMs: 0 });

    expect(report.runs.map((run) => run.runId).sort()).toEqual([first.runId, second.runId].sort());
    expect(report.runs.every((run) => run.status === 'completed')).toBe(true);
    expect(await eventStore.read(first.runId)).toEqual([]);
    expect(await eventStore.getRun(second.runId)).toBeNull();
    expect(await deck.status(waitingId)).toBe('waiting_human');
    // The waiting run is whole: it can still be answered.
    const answered = await deck.answer(waitingId, { approved: true });
    expect(answered).toMatchObject({ approved: true });
  });

  it('removes nothing in a dry run, and only what the filters name', async () => {
    const greeter = new Agent({ name: 'Greeter', model: replies(1) });
    const { deck, eventStore } = await openTestDeck({
      agents: [greeter],
      workflows: [threeSteps()],
    });
    const turn = await deck.run('Greeter', 'hi');
    await deck.run('three-steps', { n: 0 });
    await tick();

    const dry = await deck.prune({ olderThanMs: 0, dryRun: true });
    expect(dry.runs).toHaveLength(2);
    expect(await eventStore.getRun(turn.runId)).not.toBeNull();

    const onlyAgent = await deck.prune({ olderThanMs: 0, origin: 'Greeter' });
    expect(onlyAgent.runs.map((run) => run.origin)).toEqual(['Greeter']);
    expect(await deck.prune({ olderThanMs: 0, statuses: ['failed'] })).toEqual({
      runs: [],
      threads: [],
      skipped: [],
    });
    expect(await deck.prune({ olderThanMs: 60_000 })).toEqual({
      runs: [],
      threads: [],
      skipped: [],
    });
    expect((await deck.prune({ olderThanMs: 0 })).runs.map((run) => run.origin)).toEqual([
      'three-steps',
    ]);
  });

  it('forgets a workflow thread once none of its runs is left, and keeps one still in use', async () => {
    const { deck } = await openTestDeck({
      workflows: [threeSteps({ durable: true }), approval({ durable: true })],
    });
    await deck.run('three-steps', { n: 0 }, { sessionId: 't1' });
    const again = await deck.run('three-steps', { n: 0 }, { sessionId: 't1' });
    // The thread carries its state from one run to the next.
    expect((again as { steps: string[] }).steps).toHaveLength(6);

    await deck.run('approval', { amount: 1 }, { sessionId: 'a1' });
    const firstAsk = (await deck.pending())[0]?.runId as string;
    await deck.answer(firstAsk, { approved: true });
    const secondAsk = await deck.run('approval', { amount: 2 }, { sessionId: 'a1' });
    await tick();

    const report = await deck.prune({ olderThanMs: 0 });

    expect(report.runs).toHaveLength(3);
    // a1 still has a run waiting for an answer: its checkpoints stay.
    expect(report.threads).toEqual([{ workflow: 'three-steps', threadId: 't1' }]);
    const fresh = await deck.run('three-steps', { n: 0 }, { sessionId: 't1' });
    expect((fresh as { steps: string[] }).steps).toEqual(['one', 'two', 'three']);
    const done = await deck.answer((secondAsk as InterruptResult).runId as string, {
      approved: false,
    });
    expect(done).toMatchObject({ amount: 2, approved: false });
  });

  it('leaves the claim of a run waiting on a shared thread, however long it has waited', async () => {
    const { deck, eventStore } = await openTestDeck({ workflows: [approval({ durable: true })] });
    const first = await deck.run('approval', { amount: 1 }, { sessionId: 'shared' });
    await deck.answer((first as InterruptResult).runId as string, { approved: true });
    const waiting = await deck.run('approval', { amount: 2 }, { sessionId: 'shared' });
    const waitingId = (waiting as InterruptResult).runId as string;
    const key = threadClaimKey('approval', 'shared');
    expect((await eventStore.claimHolder(key))?.runId).toBe(waitingId);
    // The waiting run's claim is a minute old (past retention's own 30 s lease) when the
    // ended run on its thread is pruned.
    const claim = await eventStore.claimHolder(key);
    await eventStore.release(key, waitingId);
    const aMinuteAgo = new Date(Date.now() - 60_000);
    vi.useFakeTimers({ toFake: ['Date'], now: aMinuteAgo });
    await eventStore.claim({ key, runId: waitingId, staleAfterMs: 3_600_000 });
    vi.useRealTimers();
    expect((await eventStore.claimHolder(key))?.leaseMs).toBe(claim?.leaseMs);

    const report = await deck.prune({ olderThanMs: 0 });

    expect(report.runs.map((run) => run.runId)).toEqual([(first as InterruptResult).runId]);
    expect(report.threads).toEqual([]);
    expect((await eventStore.claimHolder(key))?.runId).toBe(waitingId);
    // The thread is still the waiting run's: another run on it is refused until it is answered.
    await expect(deck.run('approval', { amount: 3 }, { sessionId: 'shared' })).rejects.toThrow(
      /busy/,
    );
    expect(await deck.answer(waitingId, { approved: true })).toMatchObject({ amount: 2 });
  });

  it('sweeps by itself in an open deck with retentionDays', async () => {
    const greeter = new Agent({ name: 'Greeter', model: replies(1) });
    // About 9 ms: the first sweep, a second after the open, finds the turn expired.
    const { deck, eventStore } = await openTestDeck({ agents: [greeter], retentionDays: 1e-7 });
    const turn = await deck.run('Greeter', 'hi');
    const deadline = Date.now() + 10_000;
    while ((await eventStore.getRun(turn.runId)) !== null && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(await eventStore.getRun(turn.runId)).toBeNull();
  });

  it('refuses to open with a retention on a store that cannot remove runs', async () => {
    const memory = new MemoryEventStore();
    // A store of one's own without the RunPruning ability.
    const withoutPruning = new Proxy(memory, {
      get: (target, key) => {
        if (key === 'pruneRuns') return undefined;
        const value = Reflect.get(target, key, target);
        return typeof value === 'function' ? value.bind(target) : value;
      },
    });
    const { deck } = testDeck({ eventStore: withoutPruning, retentionDays: 30 });
    await expect(deck.open()).rejects.toThrow(/cannot remove runs \(it has no pruneRuns\)/);
  });

  it('refuses a retentionDays that is not a positive number, naming it', () => {
    expect(() => testDeck({ retentionDays: 0 })).toThrow(ConfigError);
    expect(() => testDeck({ retentionDays: Number.NaN })).toThrow(/retentionDays/);
  });

  it('keeps a thread a run holds while it checks, and the runs of names it does not know', async () => {
    const { deck, eventStore } = await openTestDeck({ workflows: [threeSteps({ durable: true })] });
    await deck.run('three-steps', { n: 0 }, { sessionId: 't1' });
    // Two ended runs of a name this deck does not know (another deck's, or a renamed agent's).
    const others = ['o1', 'o2'].map((runId) => ({ ...run({ origin: 'Elsewhere' }), runId }));
    for (const other of others) await eventStore.append([ev.started(other), ev.completed(other)]);
    await tick();
    // A run starting on the thread holds its claim: retention leaves the thread alone.
    await eventStore.claim({
      key: threadClaimKey('three-steps', 't1'),
      runId: 'r-new',
      staleAfterMs: 60_000,
    });
    const dry = await deck.prune({ olderThanMs: 0, dryRun: true });
    expect(dry.skipped).toEqual([{ origin: 'Elsewhere', runs: 2 }]);
    const report = await deck.prune({ olderThanMs: 0 });
    expect(report.threads).toEqual([]);
    expect(report.runs.map((run) => [run.origin, run.sessionId])).toEqual([['three-steps', 't1']]);
    // Kept, and counted so whoever pruned knows why they stay.
    expect(report.skipped).toEqual([{ origin: 'Elsewhere', runs: 2 }]);
    expect(await eventStore.getRun('o1')).not.toBeNull();
    await expect(deck.prune({ olderThanMs: 0, origin: 'Elsewhere' })).rejects.toThrow(
      /'Elsewhere' is no agent or workflow of this deck/,
    );
  });

  it('rejects a bad prune request before it removes anything', async () => {
    const { deck } = await openTestDeck({});
    await expect(deck.prune({ olderThanMs: 0, batch: 0 })).rejects.toThrow(
      /`batch` must be a whole number/,
    );
    await expect(deck.prune({ olderThanMs: 0, limit: 1.5 })).rejects.toThrow(/`limit`/);
    await expect(deck.prune({ olderThanMs: -1 })).rejects.toThrow(/olderThan/);
    await expect(
      deck.prune({ olderThanMs: 0, statuses: ['running' as 'completed'] }),
    ).rejects.toThrow(/not an ended status/);
  });
});
