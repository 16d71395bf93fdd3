/**
 * Which loop plays a turn (`loop-choice.ts`), and the three rows of its table playing one
 * turn: the same events and the same conversation, a live turn's text in as many deltas as
 * the model streamed.
 */
import { Agent as EngineAgent, tool as engineTool, type MCPServer } from '@openai/agents-core';
import { describe, expect, it } from 'vitest';
import { collect, kinds, openTestDeck } from '../../../../test/support/decks.js';
import { Day, slots, steps } from '../../../../test/support/slot-turn.js';
import { Agent, type Event, tool } from '../../../index.js';
import { ScriptedModel } from '../../../testing/index.js';
import { chooseTurnLoop } from './loop-choice.js';

describe('the choice of turn loop', () => {
  const compiled = (ownToolsOnly: boolean, mcp: boolean) => {
    const agent = new EngineAgent({ name: 'A' });
    if (mcp) agent.mcpServers = [{ name: 'files' } as MCPServer];
    return { agent, ownToolsOnly };
  };
  const choice = (live: boolean, ownToolsOnly: boolean, mcp: boolean) => {
    const loop = chooseTurnLoop(live, compiled(ownToolsOnly, mcp));
    return { name: loop.name, wholeReplies: loop.wholeReplies };
  };

  it('plays a live turn on the streamed loop, streaming from the model', () => {
    expect(choice(true, true, false)).toEqual({ name: 'streamed', wholeReplies: false });
    expect(choice(true, false, true)).toEqual({ name: 'streamed', wholeReplies: false });
  });

  it('plays a turn nobody reads live on the plain loop when its tools are all the deck’s own', () => {
    expect(choice(false, true, false)).toEqual({ name: 'plain', wholeReplies: true });
  });

  it('plays other turns nobody reads live on the streamed loop, with whole replies', () => {
    expect(choice(false, false, false)).toEqual({ name: 'streamed', wholeReplies: true });
    expect(choice(false, true, true)).toEqual({ name: 'streamed', wholeReplies: true });
  });
});

/** What a run recorded, its consecutive deltas of one message joined, without ids, times and latencies. */
function comparable(events: readonly Event[]) {
  const joined: Array<{ kind: string; payload: Record<string, unknown> }> = [];
  for (const e of events) {
    const payload = JSON.parse(JSON.stringify(e.payload).replaceAll(e.runId, '<run>'));
    if (e.kind === 'model.call.completed') payload.latencyMs = 0;
    const last = joined.at(-1);
    if (
      e.kind === 'text.delta' &&
      last?.kind === 'text.delta' &&
      last.payload.messageId === payload.messageId
    ) {
      last.payload.text = `${last.payload.text}${payload.text}`;
    } else {
      joined.push({ kind: e.kind, payload });
    }
  }
  return joined;
}

describe('the three rows on one turn', () => {
  it('record the same events and the same conversation', async () => {
    const own = (name: string) =>
      new Agent({
        name,
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
    const { deck, eventStore } = await openTestDeck({ agents: [own('Live'), own('Own'), built] });
    const live = await collect(deck.stream('Live', 'When?', { sessionId: 's-live' }));
    const plain = await deck.run('Own', 'When?', { sessionId: 's-own' });
    const replayed = await deck.run('Built', 'When?', { sessionId: 's-built' });
    const liveLog = await eventStore.read(live[0]?.runId ?? '');
    const plainLog = await eventStore.read(plain.runId);
    const replayedLog = await eventStore.read(replayed.runId);
    // Streamed live, each reply came in the model's pieces; whole, one delta per reply.
    const deltas = (log: readonly Event[]) => kinds(log).filter((kind) => kind === 'text.delta');
    expect(deltas(liveLog).length).toBeGreaterThan(2);
    expect(deltas(plainLog)).toHaveLength(2);
    expect(comparable(liveLog)).toEqual(comparable(plainLog));
    expect(comparable(replayedLog)).toEqual(comparable(plainLog));
    const history = async (id: string) =>
      JSON.parse(
        JSON.stringify(await deck.sessionFor(id).getItems()).replaceAll(/"id":"[^"]*",?/g, ''),
      );
    expect(await history('s-live')).toEqual(await history('s-own'));
    expect(await history('s-built')).toEqual(await history('s-own'));
  });
});
