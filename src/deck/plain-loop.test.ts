/**
 * Turns nobody reads live (`deck.run`, JSON chat) run on the engine's plain loop when all
 * their tools are the deck's own: the same events as the streamed loop, paused and resumed
 * at the same safe points. A tool built for the engine directly keeps the streamed loop,
 * which makes it the reference here.
 */

import { tool as engineTool } from '@openai/agents';
import { describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import { kinds, openTestDeck } from '../../test/support/decks.js';
import { Day, slots, steps } from '../../test/support/slot-turn.js';
import { modelCallsOf } from '../core/model-calls.js';
import { Agent, type Event, tool } from '../index.js';
import { ScriptedModel } from '../testing/index.js';

/** What a run recorded, without what differs between two runs (ids, times, latencies). */
function comparable(events: readonly Event[]) {
  return events.map((e) => ({
    kind: e.kind,
    payload: JSON.parse(
      JSON.stringify(e.payload)
        .replaceAll(e.runId, '<run>')
        .replace(/"latencyMs":[0-9.]+/, '"latencyMs":0'),
    ),
  }));
}

describe('turns on the plain loop', () => {
  it('records what the streamed loop records for the same turn', async () => {
    const own = new Agent({
      name: 'Own',
      instructions: 'Book.',
      model: new ScriptedModel(steps()),
      tools: [
        tool({ name: 'find_slots', description: 'Free slots', parameters: Day, execute: slots }),
      ],
    });
    const built = new Agent({
      name: 'Built',
      instructions: 'Book.',
      model: new ScriptedModel(steps()),
      tools: [
        engineTool({
          name: 'find_slots',
          description: 'Free slots',
          parameters: Day,
          execute: slots,
        }),
      ],
    });
    const { deck, eventStore } = await openTestDeck({ agents: [own, built] });
    const plain = await deck.run('Own', 'When?', { sessionId: 's-own' });
    const streamed = await deck.run('Built', 'When?', { sessionId: 's-built' });
    expect(plain.output).toBe('Tuesday at 9am.');
    const plainLog = await eventStore.read(plain.runId);
    const streamedLog = await eventStore.read(streamed.runId);
    expect(kinds(plainLog)).toEqual([
      'run.started',
      'model.call.started',
      'text.delta',
      'usage.reported',
      'model.call.completed',
      'message.completed',
      'tool.call.started',
      'tool.call.started',
      'tool.call.completed',
      'tool.call.completed',
      'model.call.started',
      'text.delta',
      'usage.reported',
      'model.call.completed',
      'message.completed',
      'run.completed',
    ]);
    expect(comparable(plainLog)).toEqual(comparable(streamedLog));
    // The conversation holds the same turn.
    const history = async (id: string) =>
      JSON.parse(
        JSON.stringify(await deck.sessionFor(id).getItems()).replaceAll(/"id":"[^"]*",?/g, ''),
      );
    expect(await history('s-own')).toEqual(await history('s-built'));
  });

  it('does not take a headless agent run inside one of its tools for its own model calls', async () => {
    const helper = new Agent({
      name: 'Helper',
      instructions: 'Help.',
      model: new ScriptedModel([
        { text: 'helper says hi', usage: { inputTokens: 3, outputTokens: 3 } },
      ]),
    });
    const ask = tool({
      name: 'ask_helper',
      description: 'Asks the helper',
      parameters: z.object({}),
      execute: async () => (await helper.run('hi')).finalOutput as string,
    });
    const outer = new Agent({
      name: 'Outer',
      instructions: 'Use the helper.',
      model: new ScriptedModel([
        { toolCalls: [{ name: 'ask_helper', arguments: {}, callId: 'call_ask' }] },
        { text: 'Done.' },
      ]),
      tools: [ask],
    });
    const { deck, eventStore } = await openTestDeck({ agents: [outer] });
    const result = await deck.run('Outer', 'Go', { sessionId: 's-outer' });
    expect(result.output).toBe('Done.');
    const log = await eventStore.read(result.runId);
    expect(kinds(log)).toEqual([
      'run.started',
      'model.call.started',
      'usage.reported',
      'model.call.completed',
      'tool.call.started',
      'tool.call.completed',
      'model.call.started',
      'text.delta',
      'usage.reported',
      'model.call.completed',
      'message.completed',
      'run.completed',
    ]);
    expect(JSON.stringify(log)).not.toContain('helper says hi"}]'); // only as the tool's output
    expect(result.usage?.requests).toBe(2);
  });

  it('pauses before its next model call and resumes from that call, running no tool twice', async () => {
    const seen = { calls: 0, started: false };
    const book = tool({
      name: 'book',
      description: 'Books the room (a side effect: it must run once)',
      parameters: z.object({}),
      execute: async () => {
        seen.calls += 1;
        seen.started = true;
        await new Promise((resolve) => setTimeout(resolve, 150));
        return 'booked';
      },
    });
    const model = new ScriptedModel([
      { toolCalls: [{ name: 'book', arguments: {}, callId: 'call_book' }] },
      { text: 'The room is booked.' },
    ]);
    const { deck, eventStore } = await openTestDeck({
      agents: [new Agent({ name: 'Booker', instructions: 'Book.', model, tools: [book] })],
    });
    const running = deck.run('Booker', 'Book room 4', { sessionId: 's-1', runId: 'r-plain' });
    await vi.waitFor(() => expect(seen.started).toBe(true));
    await deck.pause('r-plain', { reason: 'check budget' });
    await running;
    expect(await deck.status('r-plain')).toBe('paused');
    expect(kinds(await eventStore.read('r-plain')).slice(-3)).toEqual([
      'tool.call.completed',
      'control.observed',
      'run.paused',
    ]);
    // What it saved is the input of the model call it stopped before: the tool's output included.
    const saved = JSON.parse((await eventStore.readContinuation('r-plain')) ?? '{}');
    expect(JSON.stringify(saved.input)).toContain('booked');
    expect(model.calls).toHaveLength(1);

    const continued = await deck.resume('r-plain');
    expect(kinds(continued)).toEqual([
      'run.resumed',
      'model.call.started',
      'text.delta',
      'usage.reported',
      'model.call.completed',
      'message.completed',
      'run.completed',
    ]);
    // The continued segment goes on numbering the run's model calls, and stores only values
    // the run had not: its request is rebuilt from both segments.
    const resumedCall = continued.find((e) => e.kind === 'model.call.started');
    expect(resumedCall?.kind === 'model.call.started' && resumedCall.payload).toMatchObject({
      callId: 'r-plain:c1',
      instructions: expect.stringMatching(/^v:[0-9a-f]{12}$/),
    });
    const stored = (await eventStore.read('r-plain')).flatMap((e) =>
      e.kind === 'model.call.started' ? Object.keys(e.payload.values) : [],
    );
    expect(new Set(stored).size).toBe(stored.length);
    const [, again] = modelCallsOf(await eventStore.read('r-plain'));
    expect(again?.instructions).toBe('Book.');
    expect(JSON.stringify(again?.messages)).toContain('Book room 4');
    expect(seen.calls).toBe(1);
    model.assertConsumed();
    const completed = continued.at(-1);
    expect(completed?.kind === 'run.completed' && completed.payload.usage?.requests).toBe(2);
    expect(await eventStore.readContinuation('r-plain')).toBeNull();
    const items = JSON.stringify(await deck.sessionFor('s-1').getItems());
    expect(items.match(/Book room 4/g)).toHaveLength(1);
    expect(items.match(/"function_call_result"/g)).toHaveLength(1);
    expect(items.match(/The room is booked\./g)).toHaveLength(1);
  });
});
