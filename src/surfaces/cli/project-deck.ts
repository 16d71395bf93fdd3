/**
 * The deck a one-shot command (`runs prune`, `schedules`, `tick`) opens on a project. The
 * command opens the event store `SERVICE_EVENTS` names itself and passes it in, so it can read
 * what its deck records (the end of a run it started) on the same connection; it closes it
 * after the deck. No background work (the servers do that), and the MCP servers are left to
 * the first agent turn that uses one: a command that lists or prunes never starts them.
 */
import type { EventStore } from '../../core/store.js';
import { Deck } from '../../deck/deck.js';
import { openEventStore } from '../../stores/events-url.js';

export interface ProjectDeck extends AsyncDisposable {
  deck: Deck;
  /** The deck's event store, which the command owns. */
  store: EventStore;
}

export async function openProjectDeck(project: string): Promise<ProjectDeck> {
  const store = openEventStore(process.env.SERVICE_EVENTS);
  let deck: Deck | undefined;
  try {
    deck = await Deck.fromProject(project, { eventStore: store });
    await deck.open({ background: false, mcpStart: 'first-use' });
  } catch (error) {
    await deck?.close().catch(() => undefined);
    await store.close();
    throw error;
  }
  const opened = deck;
  return {
    deck: opened,
    store,
    async [Symbol.asyncDispose]() {
      try {
        await opened.close();
      } finally {
        await store.close();
      }
    },
  };
}
