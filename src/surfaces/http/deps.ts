/**
 * What every route handler gets: the deck, read access to its event log (granted by the
 * deck itself when it builds the app: the public Deck has no event-log reader, SPEC.md rule
 * 9), the per-request run options, and the error log.
 */

import type { EventStore } from '../../core/store.js';
import type { Deck } from '../../deck/deck.js';
import { type ErrorLog, HttpError } from './errors.js';
import type { AppOptions } from './options.js';

/** The part of the event store the HTTP surface reads. */
export type EventLog = Pick<EventStore, 'read' | 'getRun' | 'listRuns'>;

export interface HttpDeps {
  deck: Deck<unknown>;
  /** The open deck's event log; 503 when the deck is not open. */
  eventLog(): EventLog;
  /** The run options every HTTP-started run gets: its context, from the request (or none). */
  runContext(request: Request): Promise<{ context?: unknown }>;
  log: ErrorLog;
  /** Aborted when the server shuts down. */
  shutdown: AbortSignal | undefined;
}

export function makeDeps<C>(
  deck: Deck<C>,
  eventLog: () => EventLog | null,
  options: AppOptions<C>,
): HttpDeps {
  const contextOf = options.context;
  return {
    deck: deck as Deck<unknown>,
    eventLog() {
      const log = eventLog();
      if (!log) throw new HttpError(503, `deck '${deck.name}' not started`);
      return log;
    },
    runContext: contextOf
      ? async (request) => ({ context: await contextOf(request) })
      : async () => ({}),
    log: options.log ?? ((message) => console.error(message)),
    shutdown: options.shutdown,
  };
}

/** WIRE.md's 404 for an unknown agent or workflow: `No agent named 'Nope'. Available: ['Greeter'].` */
export function unknownName(kind: 'agent' | 'workflow', name: string, names: Iterable<string>) {
  const list = [...names].map((n) => `'${n}'`).join(', ');
  return new HttpError(404, `No ${kind} named '${name}'. Available: [${list}].`);
}
