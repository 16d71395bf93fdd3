/**
 * What every route handler gets: the deck, read access to its event log (granted by the
 * deck itself when it builds the app: the public Deck has no event-log reader, SPEC.md rule
 * 9), the per-request run options, and the error log.
 */

import { log } from '../../core/log.js';
import { type ErrorLog, HttpError } from './errors.js';
import { identityOf } from './identity.js';
import type { AppOptions } from './options.js';
import type {
  DeckGrants,
  EventLog,
  HttpMetrics,
  QueuePlace,
  Readiness,
  ServedDeck,
} from './served-deck.js';

export interface HttpDeps {
  deck: ServedDeck;
  /** The open deck's event log; 503 when the deck is not open. */
  eventLog(): EventLog;
  /** A run's place in the queue, or `null` (not queued, or a deck without a queue). */
  queuePlace(runId: string): Promise<QueuePlace | null>;
  /** Take a session's latest turn out of its history (see {@link DeckGrants}); 503 before open. */
  popTurn(sessionId: string): Promise<number>;
  /** Stop a live run of this process (an SSE client disconnected). */
  stopRun(runId: string, reason: string): boolean;
  /** Whether every configured backend answers now, or `null` before the deck opens. */
  readiness(): Promise<Readiness> | null;
  /** Rejects with a `StoreUnavailableError` when the session backend is down now. */
  sessionsReachable(): Promise<void>;
  /** Why agent `name` cannot play a turn (no model configured), or `null` when it can. */
  missingModel(name: string): string | null;
  /** Play an agent turn whose events are read for its result only (see {@link DeckGrants}). */
  streamForResult: DeckGrants['streamForResult'];
  /** Play an agent turn with the caller's history and instructions (see {@link DeckGrants}). */
  playTurn: NonNullable<DeckGrants['playTurn']>;
  /** The open deck's metrics, or `null` when it is not open. */
  metrics(): HttpMetrics | null;
  /** The run options every HTTP-started run gets: its context, from the request and its identity (or none). */
  runContext(request: Request): Promise<{ context?: unknown }>;
  log: ErrorLog;
  /** Aborted when the server shuts down. */
  shutdown: AbortSignal | undefined;
}

export function makeDeps<C>(
  deck: ServedDeck<C>,
  grants: DeckGrants,
  options: AppOptions<C>,
): HttpDeps {
  const contextOf = options.context;
  return {
    deck: deck as ServedDeck,
    stopRun: grants.stopRun,
    readiness: grants.readiness,
    sessionsReachable: grants.sessionsReachable ?? (async () => {}),
    missingModel: grants.missingModel ?? (() => null),
    streamForResult: grants.streamForResult,
    playTurn:
      grants.playTurn ??
      (() => {
        throw new HttpError(501, `deck '${deck.name}' plays no turns with a given history`);
      }),
    metrics: grants.metrics ?? (() => null),
    async popTurn(sessionId) {
      const popped = grants.popTurn?.(sessionId);
      if (popped === undefined) throw new HttpError(501, 'this deck cannot edit a session');
      if (popped === null) throw new HttpError(503, `deck '${deck.name}' not started`);
      return popped;
    },
    queuePlace: async (runId) => (await grants.queuePlace?.(runId)) ?? null,
    eventLog() {
      const log = grants.eventLog();
      if (!log) throw new HttpError(503, `deck '${deck.name}' not started`);
      return log;
    },
    runContext: contextOf
      ? async (request) => ({ context: await contextOf(request, identityOf(request)) })
      : async () => ({}),
    log: options.log ?? ((message) => log.error(message)),
    shutdown: options.shutdown,
  };
}

/** WIRE.md's 404 for an unknown agent or workflow: `No agent named 'Nope'. Available: ['Greeter'].` */
export function unknownName(kind: 'agent' | 'workflow', name: string, names: Iterable<string>) {
  const list = [...names].map((n) => `'${n}'`).join(', ');
  return new HttpError(404, `No ${kind} named '${name}'. Available: [${list}].`);
}
