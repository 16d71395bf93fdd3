/** ConsoleObserver: readable lines by default, the stored JSON (JSON Lines) on request. */
import { describe, expect, it } from 'vitest';
import { openTestDeck } from '../../test/support/decks.js';
import { Agent, ConsoleObserver, parseEvent, toWire } from '../index.js';
import { ScriptedModel } from '../testing/index.js';

function sink() {
  const lines: string[] = [];
  return { lines, stream: { write: (text: string) => lines.push(text) } };
}

const agent = () =>
  new Agent({ name: 'Greeter', model: new ScriptedModel([{ text: ['Hel', 'lo'] }]) });

describe('ConsoleObserver', () => {
  it('prints one readable line per event, deltas left out unless asked for', async () => {
    const quiet = sink();
    const chatty = sink();
    const { deck } = await openTestDeck({
      agents: [agent()],
      observers: [
        new ConsoleObserver({ stream: quiet.stream }),
        new ConsoleObserver({ stream: chatty.stream, deltas: true }),
      ],
    });
    const result = await deck.run('Greeter', 'hi');
    await deck.close();
    const short = result.runId.slice(0, 8);
    expect(quiet.lines[0]).toMatch(
      new RegExp(`^\\d\\d:\\d\\d:\\d\\d\\.\\d{3} Greeter ${short} #0 run.started\\n$`),
    );
    expect(quiet.lines.some((l) => l.includes('usage.reported ScriptedModel in=10 out=5'))).toBe(
      true,
    );
    // What the model saw, in a line each: the request's size, then how it ended.
    expect(
      quiet.lines.some((l) => l.includes('model.call.started ScriptedModel messages=1 tools=0')),
    ).toBe(true);
    expect(quiet.lines.some((l) => /model\.call\.completed - in=10 out=5 [\d.]+ms/.test(l))).toBe(
      true,
    );
    expect(quiet.lines.at(-1)).toMatch(/#\d+ run.completed\n$/);
    expect(quiet.lines.some((l) => l.includes('text.delta'))).toBe(false);
    // deck.run asks the model for the whole reply: one delta ('Hello'), not one per chunk.
    expect(chatty.lines.filter((l) => l.includes('text.delta'))).toHaveLength(1);
  });

  it('writes JSON Lines of the stored events, which parseEvent reads back', async () => {
    const out = sink();
    const { deck, eventStore } = await openTestDeck({
      agents: [agent()],
      observers: [new ConsoleObserver({ stream: out.stream, format: 'json', deltas: true })],
    });
    const result = await deck.run('Greeter', 'hi');
    await deck.close();
    const parsed = out.lines.map((line) => toWire(parseEvent(line.trimEnd())));
    expect(parsed).toEqual((await eventStore.read(result.runId)).map(toWire));
  });
});
