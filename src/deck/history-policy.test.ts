/**
 * The history policy through the real engine: what the scripted model receives on each turn
 * of a session (`model.calls[i].input`), with the full history by default, the latest items,
 * a token budget, a compaction hook and the deck's default; a paused turn resumed with the
 * history it was sent; bad values refused with ConfigError. The session keeps everything.
 */
import type { ModelRequest } from '@openai/agents-core';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { collect, openTestDeck, testDeck } from '../../test/support/decks.js';
import { estimateTokens } from '../authoring/history-policy.js';
import { Agent, ConfigError, type Deck, tool } from '../index.js';
import { ScriptedModel } from '../testing/index.js';

/** What a request's input says, one line per item: `user: hi`, `assistant: hello`, `call look_up`... */
function said(request: ModelRequest | undefined): string[] {
  const input = request?.input ?? [];
  if (typeof input === 'string') return [`user: ${input}`];
  return input.map((item) => {
    const raw = item as { type?: string; role?: string; content?: unknown; name?: string };
    if (raw.type === 'function_call') return `call ${raw.name}`;
    if (raw.type === 'function_call_result') return `result ${raw.name}`;
    const content = raw.content;
    const text =
      typeof content === 'string'
        ? content
        : (content as Array<{ text?: string }>).map((part) => part.text ?? '').join('');
    return `${raw.role}: ${text}`;
  });
}

/** Plays `turns` turns of one session; the model answers `a<n>` to `q<n>`. */
async function converse(deck: Deck, agent: string, turns: number): Promise<void> {
  for (let n = 1; n <= turns; n += 1) await deck.run(agent, `q${n}`, { sessionId: 'conv' });
}

const answers = (turns: number) =>
  new ScriptedModel(Array.from({ length: turns }, (_, n) => ({ text: `a${n + 1}` })));

describe('history policy', () => {
  it('sends the full history by default', async () => {
    const model = answers(3);
    const { deck } = await openTestDeck({ agents: [new Agent({ name: 'A', model })] });
    await converse(deck, 'A', 3);
    expect(said(model.calls[0])).toEqual(['user: q1']);
    expect(said(model.calls[2])).toEqual([
      'user: q1',
      'assistant: a1',
      'user: q2',
      'assistant: a2',
      'user: q3',
    ]);
    expect(await deck.sessionFor('conv').getItems()).toHaveLength(6);
  });

  it('lastItems: only the latest stored items go before the message; the session keeps all', async () => {
    const model = answers(4);
    const { deck } = await openTestDeck({
      agents: [new Agent({ name: 'A', model, history: { lastItems: 3 } })],
    });
    await converse(deck, 'A', 4);
    expect(said(model.calls[1])).toEqual(['user: q1', 'assistant: a1', 'user: q2']);
    expect(said(model.calls[3])).toEqual([
      'assistant: a2',
      'user: q3',
      'assistant: a3',
      'user: q4',
    ]);
    expect(await deck.sessionFor('conv').getItems()).toHaveLength(8);
  });

  it('maxTokens: the latest items whose estimate (JSON length / 4) fits the budget', async () => {
    const model = answers(3);
    const { deck } = await openTestDeck({
      agents: [new Agent({ name: 'A', model, history: { maxTokens: 60 } })],
    });
    await converse(deck, 'A', 3);
    // The budget holds q2 and a2, not a1 as well (the estimates of what was stored):
    const [, a1, q2, a2] = (await deck.sessionFor('conv').getItems()).map(estimateTokens);
    expect((q2 ?? 0) + (a2 ?? 0)).toBeLessThanOrEqual(60);
    expect((a1 ?? 0) + (q2 ?? 0) + (a2 ?? 0)).toBeGreaterThan(60);
    expect(said(model.calls[2])).toEqual(['user: q2', 'assistant: a2', 'user: q3']);
  });

  it('never starts with a tool output whose call was cut off', async () => {
    const lookUp = tool({
      name: 'look_up',
      description: 'Look a room up',
      parameters: z.object({ room: z.string() }),
      execute: async ({ room }) => `room ${room} is free`,
    });
    const model = new ScriptedModel([
      { toolCalls: [{ name: 'look_up', arguments: { room: '4' } }] },
      { text: 'a1' },
      { text: 'a2' },
    ]);
    const { deck } = await openTestDeck({
      agents: [new Agent({ name: 'A', model, tools: [lookUp], history: { lastItems: 2 } })],
    });
    await converse(deck, 'A', 2);
    // Stored: q1, call, result, a1. The latest 2 start with the result: it is left out too.
    expect(said(model.calls[2])).toEqual(['assistant: a1', 'user: q2']);
  });

  it('compact: its answer is sent, on copies, and the session is unchanged', async () => {
    const model = answers(3);
    const seen: number[] = [];
    const { deck } = await openTestDeck({
      agents: [
        new Agent({
          name: 'A',
          model,
          history: {
            lastItems: 10,
            compact: async (items) => {
              seen.push(items.length);
              const first = items[0];
              if (first) first.content = 'changed by the hook'; // a copy: nothing else sees it
              return [{ role: 'system', content: `summary of ${items.length}` }];
            },
          },
        }),
      ],
    });
    await converse(deck, 'A', 3);
    expect(seen).toEqual([0, 2, 4]);
    expect(said(model.calls[2])).toEqual(['system: summary of 4', 'user: q3']);
    const stored = await deck.sessionFor('conv').getItems();
    expect(stored).toHaveLength(6);
    expect(stored[0]).toMatchObject({ role: 'user', content: 'q1' });
  });

  it("the deck's history is the default; an agent's own wins", async () => {
    const model = answers(6);
    const { deck } = await openTestDeck({
      history: { lastItems: 1 },
      agents: [
        new Agent({ name: 'Short', model }),
        new Agent({ name: 'Long', model, history: { lastItems: 100 } }),
      ],
    });
    await converse(deck, 'Short', 3);
    expect(said(model.calls[2])).toEqual(['assistant: a2', 'user: q3']);
    await converse(deck, 'Long', 1);
    expect(said(model.calls[3])).toHaveLength(7);
  });

  it('a turn paused in a tool resumes with the history it was sent', async () => {
    let pause: (() => Promise<unknown>) | null = null;
    const wait = tool({
      name: 'wait',
      description: 'Wait',
      parameters: z.object({}),
      execute: async () => {
        await pause?.();
        return 'waited';
      },
    });
    const model = new ScriptedModel([
      { text: 'a1' },
      { toolCalls: [{ name: 'wait', arguments: {} }] },
      { text: 'a2' },
    ]);
    const { deck } = await openTestDeck({
      agents: [new Agent({ name: 'A', model, tools: [wait], history: { lastItems: 2 } })],
    });
    await deck.run('A', 'q1', { sessionId: 'conv' });
    let runId = '';
    pause = () => deck.pause(runId, { reason: 'check' });
    const events = await collect(
      (async function* () {
        for await (const event of deck.stream('A', 'q2', { sessionId: 'conv' })) {
          runId = event.runId;
          yield event;
        }
      })(),
    );
    expect(events.at(-1)?.kind).toBe('run.paused');
    pause = null;
    const resumed = await deck.resume(runId);
    expect(resumed.at(-1)?.kind).toBe('run.completed');
    expect(said(model.calls[2])).toEqual([
      'user: q1',
      'assistant: a1',
      'user: q2',
      'call wait',
      'result wait',
    ]);
    model.assertConsumed();
    expect(await deck.sessionFor('conv').getItems()).toHaveLength(6);
  });

  it('refuses bad values with ConfigError, naming the agent or the deck', () => {
    const bad = [
      { lastItems: 0 },
      { lastItems: 2.5 },
      { maxTokens: -1 },
      { maxTokens: '100' },
      { compact: 'summarize' },
      { lastitems: 10 },
      [],
      'all',
    ];
    for (const history of bad) {
      expect(() => new Agent({ name: 'A', history: history as never })).toThrow(ConfigError);
    }
    expect(() => new Agent({ name: 'A', history: { lastItems: 0 } })).toThrow(
      "agent 'A': `history.lastItems` must be a whole number above 0; got number 0",
    );
    const { deck } = testDeck({ history: { maxTokens: 0 } });
    expect(() => deck.build()).toThrow(
      /deck '.*': `history.maxTokens` must be a whole number above 0/,
    );
  });
});
