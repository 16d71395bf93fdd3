/**
 * What a deck grants its own HTTP surface beyond its public methods (SPEC.md rule 9: the
 * public Deck has no event-log reader): read access to the log, stopping a run whose client
 * left, readiness (and the session backend's alone), metrics, and a turn played for its result only. Built from closures over
 * the deck's private parts by `Deck.app()`.
 */
import type { Event } from '../core/events.js';
import { isPingable } from '../core/store.js';
import type { LangGraphEngine } from '../engines/langgraph/index.js';
import { popTurn } from '../runtime/session-turns.js';
import type { DeckGrants, ServedTurnOptions } from '../surfaces/http/served-deck.js';
import type { ServedEvals } from '../surfaces/http/served-evals.js';
import { type CatalogSources, describeCatalog } from './catalog-description.js';
import { queuePlaceOf } from './enqueue.js';
import type { OpenParts } from './open-parts.js';
import { checkReadiness } from './readiness.js';

export interface GrantSources {
  /** The open deck's parts, or `null` before it opens (and after it closes). */
  parts(): OpenParts | null;
  /** Why agent `name` cannot play a turn (no model configured), or `null`. */
  missingModel(name: string): string | null;
  /** Play a turn or run, read live or, with `live: false`, for its result only. */
  play(
    name: string,
    input: string | Record<string, unknown>,
    options: ServedTurnOptions,
    live: boolean,
  ): AsyncGenerator<Event, unknown, undefined>;
  /** The deck's datasets and experiments (deck/evals.ts); `null` before it opens. */
  evals(): ServedEvals | null;
  /** What the studio routes read: the catalog and its engines; `null` before `build()`. */
  studio(): StudioSources | null;
}

/** The catalog and the engines behind it (`GET /catalog`, threads). */
export interface StudioSources extends CatalogSources {
  workflowEngine: LangGraphEngine;
}

export function deckGrants(sources: GrantSources): DeckGrants {
  const { parts } = sources;
  return {
    eventLog: () => parts()?.store ?? null,
    queuePlace: (runId) => {
      const store = parts()?.store;
      return store ? queuePlaceOf(store, runId) : null;
    },
    stopRun: (runId, reason) => parts()?.runtime.stopRun(runId, reason) ?? false,
    readiness: () => {
      const open = parts();
      return open ? checkReadiness(open) : null;
    },
    sessionsReachable: async () => {
      const sessions = parts()?.sessions;
      if (sessions && isPingable(sessions)) await sessions.ping();
    },
    missingModel: sources.missingModel,
    evals: sources.evals,
    metrics: () => parts()?.metrics ?? null,
    // The JSON routes ignore the generator's return value: no layer to hide it.
    streamForResult: (name, input, options) =>
      sources.play(name, input, options, false) as AsyncGenerator<Event, void, undefined>,
    playTurn: (name, input, options, live) =>
      sources.play(name, input, options, live) as AsyncGenerator<Event, void, undefined>,
    catalog: () => {
      const studio = parts() ? sources.studio() : null;
      return studio ? describeCatalog(studio) : null;
    },
    threadState: (name, threadId) => {
      const studio = parts() ? sources.studio() : null;
      const workflow = studio?.workflows.get(name);
      if (!studio || !workflow) return null;
      return studio.workflowEngine.threadState(workflow, threadId);
    },
    sessionItems: (sessionId, limit) => {
      const open = parts();
      return open ? open.sessionFor(sessionId).getItems(limit) : null;
    },
    popTurn: (sessionId) => {
      const open = parts();
      return open ? popTurn(open.sessionFor(sessionId)) : null;
    },
  };
}
