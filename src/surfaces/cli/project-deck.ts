/**
 * The deck a one-shot command (`runs prune`, `schedules`, `tick`, `runs approve`) opens on a
 * project: the one it was given, else the one found as served-state.ts says. The command opens
 * the event store `SERVICE_EVENTS` names itself and passes it in, so it can read what its deck
 * records (the end of a run it started) on the same connection; it closes it after the deck.
 * No background work (the servers do that), and the MCP servers are left to the first agent
 * turn that uses one: a command that lists or prunes never starts them.
 */
import { existsSync } from 'node:fs';
import type { EventStore } from '../../core/store.js';
import type { Deck } from '../../deck/deck.js';
import { openEventStore, parseEventStoreUrl } from '../../stores/events-url.js';
import {
  DEFAULT_PROJECT,
  holdsProject,
  noProject,
  servedProject,
  stateName,
} from './served-state.js';

export interface ProjectDeckOptions {
  /** The project directory the command was given, if any. */
  project: string | undefined;
  /** The command's name, for the line saying which project it took. */
  program: string;
  /** How the command is given a project, for the message when it finds none. @default '--project DIR' */
  pass?: string;
}

export interface ProjectDeck extends AsyncDisposable {
  deck: Deck;
  /** The deck's event store, which the command owns. */
  store: EventStore;
}

export async function openProjectDeck(options: ProjectDeckOptions): Promise<ProjectDeck> {
  const { program, pass = '--project DIR' } = options;
  const location = parseEventStoreUrl(process.env.SERVICE_EVENTS);
  let project = options.project ?? (holdsProject(DEFAULT_PROJECT) ? DEFAULT_PROJECT : null);
  const noState =
    location.backend === 'memory' || (location.backend === 'sqlite' && !existsSync(location.path));
  // Said before the store opens: opening the default one would create its file here.
  if (project === null && noState) throw noProject(location, pass);
  const store = openEventStore(process.env.SERVICE_EVENTS);
  let deck: Deck | undefined;
  try {
    if (project === null) {
      project = await servedProject(store, location, pass);
      console.error(
        `${program}: project ${project}, the one agentdeck serve last served on ${stateName(location)} (pass ${pass} for another)`,
      );
    }
    // Loaded once there is a project to open: a command that finds none says so at once.
    const { Deck } = await import('../../deck/deck.js');
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
