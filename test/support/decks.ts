/**
 * Test support: decks that are always closed after each test (one live Deck per process),
 * and small helpers to collect a stream.
 */

import { Deck, type DeckOptions, type Event } from '../../src/index.js';
import { MemoryEventStore } from '../../src/stores/memory/index.js';
import { afterEachTest } from './after-each-test.js';

const open: Deck<unknown>[] = [];

afterEachTest(async () => {
  while (open.length > 0) await open.pop()?.close();
});

/** A deck on a fresh in-memory event store, closed after the test. */
export function testDeck<C = unknown>(options: DeckOptions<C> = {}) {
  const eventStore = options.eventStore ?? new MemoryEventStore();
  const deck = new Deck<C>({ ...options, eventStore });
  open.push(deck as Deck<unknown>);
  return { deck, eventStore };
}

export async function openTestDeck<C = unknown>(options: DeckOptions<C> = {}) {
  const made = testDeck(options);
  await made.deck.open();
  return made;
}

export async function collect(stream: AsyncIterable<Event>): Promise<Event[]> {
  const events: Event[] = [];
  for await (const event of stream) events.push(event);
  return events;
}

export const kinds = (events: readonly Event[]) => events.map((e) => e.kind);
