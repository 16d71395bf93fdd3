/**
 * `multitask` on the synchronous runs (#40): `deck.run()` and `deck.stream()` on a busy
 * session or thread reject, wait (`enqueue`), or cancel the run there first (`interrupt`,
 * `rollback`), each wait bounded by `multitaskWaitMs` (deck/multitask.ts).
 */
import { describe, expect, it } from 'vitest';
import { collect, kinds, openTestDeck } from '../../test/support/decks.js';
import { approval } from '../../test/support/workflows.js';
import { Agent, ConflictError, type Event, InvalidInputError, TextBlock } from '../index.js';
import { endsWithMessageOf } from '../runtime/session-turns.js';
import { MemoryEventStore } from '../stores/memory/index.js';
import { ScriptedModel } from '../testing/index.js';

/** A first reply streamed over about `totalMs` (ten chunks), then a quick one. */
function slowThenQuick(totalMs: number) {
  const chunks = Array.from({ length: 10 }, (_, i) => `slow${i} `);
  return new ScriptedModel([
    { text: chunks, delayMs: totalMs / 10 },
    { text: 'quick reply', delayMs: 0 },
  ]);
}

/** A deck whose agent's first turn is slow, and that turn started on session `s-1`. */
async function busySession(delayMs: number) {
  const { deck } = await openTestDeck({
    agents: [new Agent({ name: 'helper', model: slowThenQuick(delayMs) })],
    workflows: [approval({ durable: true })],
  });
  const first = deck.stream('helper', 'first message', { sessionId: 's-1', runId: 'r-first' });
  // Its model call is under way (its first chunk seen): the claim is held, the step taken.
  for (let step = await first.next(); !step.done && step.value.kind !== 'text.delta'; ) {
    step = await first.next();
  }
  const rest = collect(first as AsyncIterable<Event>);
  return { deck, rest };
}

const userTexts = (items: unknown[]) =>
  JSON.stringify(items.filter((i) => (i as { role?: string }).role === 'user'));

describe('multitask on deck.run() and deck.stream()', () => {
  it('without multitask refuses a busy session as before', async () => {
    const { deck, rest } = await busySession(150);
    await expect(deck.run('helper', 'second', { sessionId: 's-1' })).rejects.toBeInstanceOf(
      ConflictError,
    );
    await rest;
  });

  it("'reject' names the run in the way", async () => {
    const { deck, rest } = await busySession(150);
    const refused = deck.run('helper', 'second', { sessionId: 's-1', multitask: 'reject' });
    await expect(refused).rejects.toThrow(/run 'r-first' is running/);
    await expect(refused).rejects.toMatchObject({ holderRunId: 'r-first' });
    await rest;
    expect(await deck.status('r-first')).toBe('completed');
  });

  it("'enqueue' waits for the run there to end, then plays", async () => {
    const { deck, rest } = await busySession(150);
    const started = Date.now();
    const result = await deck.run('helper', 'second', { sessionId: 's-1', multitask: 'enqueue' });
    expect(Date.now() - started).toBeGreaterThanOrEqual(100);
    expect(result.output).toBe('quick reply');
    expect(kinds(await rest).at(-1)).toBe('run.completed');
    expect(await deck.status('r-first')).toBe('completed');
    const items = await deck.sessionFor('s-1').getItems();
    expect(userTexts(items)).toMatch(/first message.*second/);
  });

  it("'enqueue' gives up after multitaskWaitMs, naming the busy run, and plays nothing", async () => {
    const { deck, rest } = await busySession(400);
    const options = { sessionId: 's-1', multitask: 'enqueue', multitaskWaitMs: 50 } as const;
    const refused = deck.run('helper', 'second', options);
    await expect(refused).rejects.toThrow(/still busy after 50 ms.*run 'r-first' is running/);
    await expect(refused).rejects.toBeInstanceOf(ConflictError);
    await rest;
    expect(await deck.status('r-first')).toBe('completed');
    expect(userTexts(await deck.sessionFor('s-1').getItems())).not.toMatch(/second/);
  });

  it("'interrupt' cancels the run there at its next safe point, then plays", async () => {
    const { deck, rest } = await busySession(2_000);
    const started = Date.now();
    const events = await collect(
      deck.stream('helper', 'second', { sessionId: 's-1', multitask: 'interrupt' }),
    );
    expect(Date.now() - started).toBeLessThan(1_500);
    expect(kinds(events).at(-1)).toBe('run.completed');
    expect(kinds(await rest).at(-1)).toBe('run.cancelled');
    expect(await deck.status('r-first')).toBe('cancelled');
    // The stopped turn's message stays in the session.
    expect(userTexts(await deck.sessionFor('s-1').getItems())).toMatch(/first message.*second/);
  });

  it("'rollback' cancels the run there and takes its unfinished turn out of the session", async () => {
    const { deck, rest } = await busySession(2_000);
    const result = await deck.run('helper', 'second', { sessionId: 's-1', multitask: 'rollback' });
    expect(result.output).toBe('quick reply');
    expect(kinds(await rest).at(-1)).toBe('run.cancelled');
    const texts = userTexts(await deck.sessionFor('s-1').getItems());
    expect(texts).not.toMatch(/first message/);
    expect(texts).toMatch(/second/);
  });

  it("a workflow's thread: 'interrupt' cancels the run waiting there; 'rollback' is refused", async () => {
    const { deck, rest } = await busySession(0);
    await rest;
    const paused = await deck.run('approval', { amount: 5 }, { sessionId: 't-1' });
    expect(paused).toMatchObject({ threadId: 't-1' });
    const [waiting] = await deck.pending();
    expect(waiting?.threadId).toBe('t-1');
    await expect(
      deck.run('approval', { amount: 6 }, { sessionId: 't-1', multitask: 'rollback' }),
    ).rejects.toBeInstanceOf(InvalidInputError);
    expect(await deck.status(waiting?.runId as string)).toBe('waiting_human');
    const again = await deck.run(
      'approval',
      { amount: 6 },
      { sessionId: 't-1', multitask: 'interrupt' },
    );
    expect(again).toMatchObject({ threadId: 't-1' });
    expect(await deck.status(waiting?.runId as string)).toBe('cancelled');
  });

  it('refuses an unknown multitask or wait before anything plays', async () => {
    const { deck, rest } = await busySession(0);
    await rest;
    const bad = { sessionId: 's-2', multitask: 'later' } as unknown as { sessionId: string };
    await expect(deck.run('helper', 'x', bad)).rejects.toBeInstanceOf(InvalidInputError);
    await expect(
      deck.run('helper', 'x', { sessionId: 's-2', multitask: 'enqueue', multitaskWaitMs: -1 }),
    ).rejects.toBeInstanceOf(InvalidInputError);
    expect(await deck.sessionFor('s-2').getItems()).toEqual([]);
  });
});

describe("'rollback' takes out only the stopped turn's own message", () => {
  it('leaves a session whose last item is not that message (the turn stopped before writing it)', async () => {
    const eventStore = new MemoryEventStore();
    const { deck } = await openTestDeck({ agents: [new Agent({ name: 'helper' })], eventStore });
    const session = deck.sessionFor('s-9');
    await session.addItems([
      { role: 'user', content: 'older' },
      { role: 'assistant', status: 'completed', content: [{ type: 'output_text', text: 'done' }] },
    ] as never);
    await eventStore.append([
      {
        kind: 'run.started',
        runId: 'r-9',
        sessionId: 's-9',
        namespace: null,
        origin: 'helper',
        payload: { invocableType: 'agent', input: [new TextBlock('newer')] },
      },
    ]);
    expect(await endsWithMessageOf(eventStore, session, 'r-9')).toBe(false);
    await session.addItems([
      { role: 'user', content: [{ type: 'input_text', text: 'newer' }] },
    ] as never);
    expect(await endsWithMessageOf(eventStore, session, 'r-9')).toBe(true);
  });
});
