/**
 * Draining a deck (runtime/drain.ts, #42): a turn that ends before the deadline ends as it
 * would; one still streaming at the deadline is paused at its next safe point and asked to
 * resume, and the next deck open on the store (another process, or this one's next start)
 * continues it once, to its end.
 */
import { describe, expect, it } from 'vitest';
import { kinds, openTestDeck } from '../../test/support/decks.js';
import { Agent, type Event } from '../index.js';
import { ScriptedModel } from '../testing/index.js';

function agents() {
  const slowModel = new ScriptedModel([
    { text: Array.from({ length: 40 }, (_, i) => `w${i} `), delayMs: 50 },
    { text: 'Continued elsewhere.' },
  ]);
  const quickModel = new ScriptedModel([{ text: ['Quick ', 'answer.'], delayMs: 20 }]);
  return [
    new Agent({ name: 'Slow', instructions: 'Talk long.', model: slowModel }),
    new Agent({ name: 'Quick', instructions: 'Answer.', model: quickModel }),
  ];
}

/** Read a stream in the background; its run id as soon as it has one. */
function follow(stream: AsyncIterable<Event>) {
  const events: Event[] = [];
  const done = (async () => {
    for await (const event of stream) events.push(event);
    return events;
  })();
  return { events, done, runId: () => events[0]?.runId };
}

describe('draining a deck', () => {
  it('lets quick turns end, hands a long one over, and the next deck continues it once', async () => {
    const first = await openTestDeck({ agents: agents() });
    const slow = follow(first.deck.stream('Slow', 'Go', { sessionId: 's-slow' }));
    const quick = follow(first.deck.stream('Quick', 'Go', { sessionId: 's-q' }));
    await expect.poll(() => slow.events.length > 1 && quick.runId() !== undefined).toBe(true);
    const slowId = slow.runId() ?? '';
    const report = await first.deck.drain(Date.now() + 300);
    expect(report).toMatchObject({ handedOver: [slowId], left: [] });
    expect(report.ended).not.toContain(slowId);
    expect(kinds(await quick.done).at(-1)).toBe('run.completed');
    expect(kinds(await slow.done).at(-1)).toBe('run.paused');
    await first.deck.close();
    // The paused turn was not cancelled by the close.
    expect((await first.eventStore.getRun(slowId))?.status).toBe('paused');

    const second = await openTestDeck({ agents: agents(), eventStore: first.eventStore });
    await expect
      .poll(async () => (await second.eventStore.getRun(slowId))?.status, {
        timeout: 5_000,
        interval: 100,
      })
      .toBe('completed');
    const events: Event[] = await first.eventStore.read(slowId);
    const runKinds = kinds(events).filter((k) => k.startsWith('run.'));
    expect(runKinds).toEqual(['run.started', 'run.paused', 'run.resumed', 'run.completed']);
  });

  it('with nothing in flight, ends at once', async () => {
    const { deck } = await openTestDeck({ agents: agents() });
    const started = Date.now();
    expect(await deck.drain(Date.now() + 5_000)).toEqual({ ended: [], handedOver: [], left: [] });
    expect(Date.now() - started).toBeLessThan(500);
  });
});
