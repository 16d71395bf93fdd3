/**
 * Every way a turn can end leaves exactly one terminal event, a free session, and an
 * engine that has stopped: consumer gone, deck closed, session backend failing, a live
 * run's claim kept fresh, bad tool arguments, racing run ids.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import { collect, kinds, openTestDeck } from '../../test/support/decks.js';
import {
  Agent,
  BlockTooLargeError,
  ConflictError,
  type Event,
  type ImageBlock,
  tool,
} from '../index.js';
import { ScriptedModel } from '../testing/index.js';

afterEach(() => vi.unstubAllEnvs());

const terminalCount = (events: Event[]) =>
  events.filter((e) => ['run.completed', 'run.failed', 'run.cancelled'].includes(e.kind)).length;

/** A tool that waits until its run is aborted, and reports what it saw. */
function waitingTool() {
  const seen = { started: false, aborted: false };
  const wait = tool({
    name: 'wait',
    description: 'Waits for a long time',
    parameters: z.object({}),
    execute: async (_args, ctx) => {
      seen.started = true;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, 5_000);
        ctx.signal.addEventListener('abort', () => {
          seen.aborted = true;
          clearTimeout(timer);
          resolve();
        });
      });
      return 'waited';
    },
  });
  return { wait, seen };
}

describe('how turns end', () => {
  it('aborts a running tool when the consumer stops, and fences its late history writes', async () => {
    const { wait, seen } = waitingTool();
    const model = new ScriptedModel([
      { toolCalls: [{ name: 'wait', arguments: {} }] },
      { text: 'next turn' },
    ]);
    const { deck, eventStore } = await openTestDeck({
      agents: [new Agent({ name: 'A', model, tools: [wait] })],
    });
    let runId = '';
    for await (const event of deck.stream('A', 'first', { sessionId: 's' })) {
      runId = event.runId;
      if (event.kind === 'tool.call.started') break;
    }
    expect(seen.aborted || !seen.started).toBe(true);
    const first = await eventStore.read(runId);
    expect(kinds(first).at(-1)).toBe('run.cancelled');
    expect(terminalCount(first)).toBe(1);
    const before = (await deck.sessionFor('s').getItems()).length;
    await deck.run('A', 'second', { sessionId: 's' });
    const items = await deck.sessionFor('s').getItems();
    expect(items.length).toBe(before + 2);
    expect(JSON.stringify(items.slice(-2))).toContain('second');
  });

  it('cancels turns in flight when the deck closes, aborting their tools', async () => {
    const { wait, seen } = waitingTool();
    const model = new ScriptedModel([{ toolCalls: [{ name: 'wait', arguments: {} }] }]);
    const { deck, eventStore } = await openTestDeck({
      agents: [new Agent({ name: 'A', model, tools: [wait] })],
    });
    const running = collect(deck.stream('A', 'go', { sessionId: 'c', runId: 'r-close' }));
    await vi.waitFor(() => expect(seen.started).toBe(true));
    await deck.close();
    expect(seen.aborted).toBe(true);
    const events = await running;
    expect(kinds(events).at(-1)).toBe('run.cancelled');
    const stored = await eventStore.read('r-close');
    expect(terminalCount(stored)).toBe(1);
    expect(stored.at(-1)).toMatchObject({
      payload: { reason: expect.stringMatching(/deck closed/) },
    });
    expect(await eventStore.claimHolder('session:c')).toBeNull();
  });

  it('records run.failed (not cancelled) when the session backend fails, and frees the claim', async () => {
    const sessionFactory = () => {
      throw new Error('session store is down');
    };
    const model = new ScriptedModel([]);
    const { deck, eventStore } = await openTestDeck({
      agents: [new Agent({ name: 'A', model })],
      sessionFactory,
    });
    await expect(deck.run('A', 'hi', { sessionId: 'x', runId: 'r-sf' })).rejects.toThrow(
      'session store is down',
    );
    expect(kinds(await eventStore.read('r-sf'))).toEqual(['run.started', 'run.failed']);
    expect(await eventStore.claimHolder('session:x')).toBeNull();
  });

  it('keeps a live run’s claim fresh, so it is never taken over as stale', async () => {
    // A timeout a loaded machine's stalls stay well under (renewed every third of it).
    vi.stubEnv('SERVICE_RUNTIME_STALE_RUN_AFTER_SECONDS', '0.5');
    const model = new ScriptedModel([{ text: ['a', 'b', 'c', 'd', 'e', 'f'], delayMs: 200 }]);
    const { deck, eventStore } = await openTestDeck({ agents: [new Agent({ name: 'A', model })] });
    const running = collect(deck.stream('A', 'slow', { sessionId: 'live', runId: 'r-live' }));
    await new Promise((resolve) => setTimeout(resolve, 800)); // past the timeout
    await expect(deck.run('A', 'me too', { sessionId: 'live' })).rejects.toThrow(ConflictError);
    const events = await running;
    expect(kinds(events).at(-1)).toBe('run.completed');
    expect(terminalCount(await eventStore.read('r-live'))).toBe(1);
  });

  it('sends malformed tool arguments back to the model as an error and goes on', async () => {
    const model = new ScriptedModel([
      { toolCalls: [{ name: 'book', arguments: { slot: 9 }, callId: 'bad' }] },
      { text: 'Let me try again later.' },
    ]);
    const book = tool({
      name: 'book',
      description: 'Book',
      parameters: z.object({ slot: z.string() }),
      execute: () => 'booked',
    });
    const { deck } = await openTestDeck({
      agents: [new Agent({ name: 'A', model, tools: [book] })],
    });
    const events = await collect(deck.stream('A', 'book'));
    const completed = events.find((e) => e.kind === 'tool.call.completed');
    expect(completed).toMatchObject({ payload: { callId: 'bad', error: expect.any(String) } });
    expect(kinds(events).at(-1)).toBe('run.completed');
    expect(JSON.stringify(model.calls[1]?.input)).toContain("Error: tool 'book' failed");
  });

  it('lets exactly one of two racing turns use the same run id', async () => {
    const model = new ScriptedModel([{ text: 'one' }, { text: 'two' }]);
    const { deck, eventStore } = await openTestDeck({ agents: [new Agent({ name: 'A', model })] });
    const results = await Promise.allSettled([
      deck.run('A', 'x', { runId: 'dup' }),
      deck.run('A', 'y', { runId: 'dup' }),
    ]);
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    const refused = results.find((r) => r.status === 'rejected') as PromiseRejectedResult;
    expect(refused.reason).toBeInstanceOf(ConflictError);
    const recorded = await eventStore.read('dup');
    expect(kinds(recorded).filter((k) => k === 'run.started')).toHaveLength(1);
    expect(terminalCount(recorded)).toBe(1);
  });

  it('checks plain-object blocks like constructed ones', async () => {
    const model = new ScriptedModel([]);
    const { deck } = await openTestDeck({ agents: [new Agent({ name: 'A', model })] });
    const huge = { type: 'image', mediaType: 'image/png', dataB64: 'A'.repeat(2_000_000) };
    await expect(deck.run('A', [huge as unknown as ImageBlock])).rejects.toThrow(
      BlockTooLargeError,
    );
    expect(model.calls).toHaveLength(0);
  });

  it('refuses input with nothing the model can read', async () => {
    const model = new ScriptedModel([]);
    const { deck } = await openTestDeck({ agents: [new Agent({ name: 'A', model })] });
    const { DataBlock } = await import('../index.js');
    await expect(deck.run('A', [new DataBlock({ a: 1 })])).rejects.toThrow(
      /no block the model can read/,
    );
  });
});
