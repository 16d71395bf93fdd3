import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { collect, kinds, openTestDeck } from '../../test/support/decks.js';
import { Agent, ConflictError, type Event, tool } from '../index.js';
import { ScriptedModel } from '../testing/index.js';

const only = <K extends Event['kind']>(events: Event[], kind: K) =>
  events.filter((e): e is Extract<Event, { kind: K }> => e.kind === kind);

describe('agent turns', () => {
  it('returns a TurnResult built from run.completed', async () => {
    const model = new ScriptedModel([
      { text: 'Tuesday at 9am works.', usage: { inputTokens: 22, outputTokens: 10 } },
    ]);
    const { deck, eventStore } = await openTestDeck({
      agents: [new Agent({ name: 'Booker', instructions: 'Book slots.', model })],
    });
    const result = await deck.run('Booker', 'When?', { sessionId: 's-1' });
    expect(result.output).toBe('Tuesday at 9am works.');
    expect(result.usage).toEqual({
      requests: 1,
      inputTokens: 22,
      outputTokens: 10,
      totalTokens: 32,
      usd: null,
    });
    expect(result.sessionId).toBe('s-1');
    const events = await eventStore.read(result.runId);
    const completed = events.at(-1);
    expect(completed?.kind).toBe('run.completed');
    expect(await deck.status(result.runId)).toBe('completed');
    expect(model.calls[0]?.systemInstructions).toBe('Book slots.');
    model.assertConsumed();
  });

  it('streams one text.delta per chunk, live, then exactly one terminal event', async () => {
    const chunks = ['Tues', 'day ', 'at ', '9am'];
    const model = new ScriptedModel([{ text: chunks, delayMs: 40 }]);
    const { deck } = await openTestDeck({ agents: [new Agent({ name: 'A', model })] });
    const arrivals: Array<{ kind: string; at: number }> = [];
    const events: Event[] = [];
    for await (const event of deck.stream('A', 'hi')) {
      arrivals.push({ kind: event.kind, at: performance.now() });
      events.push(event);
    }
    expect(kinds(events)).toEqual([
      'run.started',
      'model.call.started',
      'text.delta',
      'text.delta',
      'text.delta',
      'text.delta',
      'usage.reported',
      'model.call.completed',
      'message.completed',
      'run.completed',
    ]);
    expect(only(events, 'text.delta').map((e) => e.payload.text)).toEqual(chunks);
    // Live, not buffered: the first delta reached us well before the last one was produced.
    const deltas = arrivals.filter((a) => a.kind === 'text.delta');
    expect((deltas.at(-1)?.at ?? 0) - (deltas[0]?.at ?? 0)).toBeGreaterThan(80);
    const seqs = events.map((e) => e.seq);
    expect(seqs).toEqual(seqs.map((_, i) => i));
    const [message] = only(events, 'message.completed');
    expect(message?.payload.messageId).toBe(only(events, 'text.delta')[0]?.payload.messageId);
    expect(
      events.filter((e) => e.kind.startsWith('run.') && e.kind !== 'run.started'),
    ).toHaveLength(1);
  });

  it('records tool calls; a non-string result is sent to the model as JSON', async () => {
    const model = new ScriptedModel([
      { toolCalls: [{ name: 'find_slots', arguments: { day: 'tuesday' }, callId: 'c1' }] },
      { text: 'Tuesday 9am is free.' },
    ]);
    const findSlots = tool({
      name: 'find_slots',
      description: 'Free slots on a day',
      parameters: z.object({ day: z.string() }),
      execute: async ({ day }) => ({ day, slots: ['9am', '2pm'] }),
    });
    const { deck } = await openTestDeck({
      agents: [new Agent({ name: 'Booker', model, tools: [findSlots] })],
    });
    const events = await collect(deck.stream('Booker', 'free slots?'));
    const [started] = only(events, 'tool.call.started');
    const [completed] = only(events, 'tool.call.completed');
    expect(started?.payload).toEqual({
      callId: 'c1',
      name: 'find_slots',
      arguments: { day: 'tuesday' },
    });
    expect(completed?.payload).toEqual({
      callId: 'c1',
      name: 'find_slots',
      output: { day: 'tuesday', slots: ['9am', '2pm'] },
      error: null,
    });
    const sentBack = JSON.stringify(model.calls[1]?.input);
    expect(sentBack).toContain(
      JSON.stringify(JSON.stringify({ day: 'tuesday', slots: ['9am', '2pm'] })),
    );
    expect(kinds(events).at(-1)).toBe('run.completed');
    expect(only(events, 'usage.reported')).toHaveLength(2);
  });

  it('records a throwing tool with its error and sends the model a readable string', async () => {
    const model = new ScriptedModel([
      { toolCalls: [{ name: 'book', arguments: { slot: '9am' }, callId: 'c9' }] },
      { text: 'Sorry, I could not book it.' },
    ]);
    const book = tool({
      name: 'book',
      description: 'Book a slot',
      parameters: z.object({ slot: z.string() }),
      execute: () => {
        throw new Error('calendar is read-only');
      },
    });
    const { deck } = await openTestDeck({
      agents: [new Agent({ name: 'Booker', model, tools: [book] })],
    });
    const events = await collect(deck.stream('Booker', 'book 9am'));
    const [completed] = only(events, 'tool.call.completed');
    expect(completed?.payload).toMatchObject({
      callId: 'c9',
      error: 'calendar is read-only',
      output: null,
    });
    const toolResult = JSON.stringify(model.calls[1]?.input);
    expect(toolResult).toContain("Error: tool 'book' failed: calendar is read-only");
    expect(toolResult).not.toContain('stack');
    expect(kinds(events).at(-1)).toBe('run.completed');
  });

  it('returns the structured output when outputType is set', async () => {
    const model = new ScriptedModel([{ text: JSON.stringify({ day: 'tuesday', hour: 9 }) }]);
    const agent = new Agent({
      name: 'Slotter',
      model,
      outputType: z.object({ day: z.string(), hour: z.number() }),
    });
    const { deck, eventStore } = await openTestDeck({ agents: [agent] });
    const result = await deck.run<{ day: string; hour: number }>('Slotter', 'pick');
    expect(result.output).toEqual({ day: 'tuesday', hour: 9 });
    const last = (await eventStore.read(result.runId)).at(-1);
    expect(last?.kind === 'run.completed' && last.payload.output[0]?.type).toBe('data');
  });

  it('fails the run with run.failed and rethrows the original error', async () => {
    const model = new ScriptedModel([{ error: 'model overloaded' }]);
    const { deck, eventStore } = await openTestDeck({ agents: [new Agent({ name: 'A', model })] });
    await expect(deck.run('A', 'hi', { runId: 'r-fail' })).rejects.toThrow('model overloaded');
    const events = await eventStore.read('r-fail');
    expect(kinds(events)).toEqual([
      'run.started',
      'model.call.started',
      'model.call.completed',
      'run.failed',
    ]);
    expect(events[2]).toMatchObject({ payload: { error: 'model overloaded', output: null } });
    expect(events[3]).toMatchObject({
      payload: { errorType: 'Error', message: 'model overloaded' },
    });
    expect(await deck.status('r-fail')).toBe('failed');
  });

  it('ends with run.cancelled when the consumer stops reading, and frees the session', async () => {
    const model = new ScriptedModel([
      { text: ['a', 'b', 'c', 'd', 'e', 'f'], delayMs: 30 },
      { text: 'second turn' },
    ]);
    const { deck, eventStore } = await openTestDeck({ agents: [new Agent({ name: 'A', model })] });
    let runId = '';
    for await (const event of deck.stream('A', 'hi', { sessionId: 's-stop' })) {
      runId = event.runId;
      if (event.kind === 'text.delta') break;
    }
    const events = await eventStore.read(runId);
    expect(kinds(events).at(-1)).toBe('run.cancelled');
    expect(await deck.status(runId)).toBe('cancelled');
    const next = await deck.run('A', 'again', { sessionId: 's-stop' });
    expect(next.output).toBe('second turn');
  });

  it('refuses a second concurrent turn on the same session at once, recording nothing', async () => {
    const model = new ScriptedModel([{ text: ['slow', ' reply', ' here'], delayMs: 100 }]);
    const { deck } = await openTestDeck({ agents: [new Agent({ name: 'A', model })] });
    const first = deck.stream('A', 'hi', { sessionId: 'busy' });
    const started = await first.next();
    const t0 = performance.now();
    const refused = deck.run('A', 'me too', { sessionId: 'busy', runId: 'r-refused' });
    await expect(refused).rejects.toThrow(ConflictError);
    await expect(refused).rejects.toThrow(/session 'busy' is busy: run '.+' holds it/);
    expect(performance.now() - t0).toBeLessThan(100);
    expect(await deck.status('r-refused')).toBeNull();
    const rest = await collect(first);
    expect(rest.at(-1)?.kind).toBe('run.completed');
    expect((started.value as Event).kind).toBe('run.started');
  });

  it('refuses a run id that is already recorded', async () => {
    const model = new ScriptedModel([{ text: 'one' }]);
    const { deck } = await openTestDeck({ agents: [new Agent({ name: 'A', model })] });
    await deck.run('A', 'hi', { runId: 'same' });
    await expect(deck.run('A', 'hi', { runId: 'same' })).rejects.toThrow(
      /run id 'same' is already used/,
    );
  });

  it('records namespace and origin on every event', async () => {
    const model = new ScriptedModel([{ text: 'ok' }]);
    const { deck } = await openTestDeck({ agents: [new Agent({ name: 'A', model })] });
    const events = await collect(deck.stream('A', 'hi', { namespace: 'tenant-7' }));
    expect(new Set(events.map((e) => `${e.origin}/${e.namespace}`))).toEqual(
      new Set(['A/tenant-7']),
    );
  });

  it('passes the context by reference to instructions, tools and hooks', async () => {
    class Calendar {
      readonly booked: string[] = [];
    }
    const calendar = new Calendar();
    const seen: unknown[] = [];
    const model = new ScriptedModel([
      { toolCalls: [{ name: 'book', arguments: { slot: '9am' } }] },
      { text: 'booked' },
    ]);
    const book = tool({
      name: 'book',
      description: 'Book a slot',
      parameters: z.object({ slot: z.string() }),
      context: Calendar,
      execute: ({ slot }, ctx) => {
        seen.push(ctx.data);
        (ctx.data as Calendar).booked.push(slot);
        return 'ok';
      },
    });
    const agent = new Agent<Calendar>({
      name: 'Booker',
      model,
      tools: [book],
      instructions: (ctx) => {
        seen.push(ctx.data);
        return `Booked so far: ${ctx.data.booked.length}`;
      },
      hooks: { onToolEnd: (ctx) => void seen.push(ctx.data) },
    });
    const { deck } = await openTestDeck({ agents: [agent], context: Calendar });
    await deck.run('Booker', 'book 9am', { context: calendar });
    expect(calendar.booked).toEqual(['9am']);
    expect(seen.length).toBeGreaterThanOrEqual(3);
    for (const value of seen) expect(value).toBe(calendar);
    const schema = JSON.stringify(model.calls[0]?.tools);
    expect(schema).toContain('slot');
    expect(schema).not.toMatch(/ctx|context|Calendar|booked/);
  });
});
