/**
 * What every route handler gets: the deck, read access to its event log (granted by the
 * deck itself when it builds the app: the public Deck has no event-log reader, SPEC.md rule
 * 9), the per-request run options, and the error log.
 */

import type { Event } from '../../core/events.js';
import type { AppendNotifier, EventStore } from '../../core/store.js';
import type { Deck } from '../../deck/deck.js';
import type { Readiness } from '../../deck/readiness.js';
import { type ErrorLog, HttpError } from './errors.js';
import type { AppOptions } from './options.js';

/** The part of the event store the HTTP surface reads (and, if the store has it, its append notices). */
export type EventLog = Pick<EventStore, 'read' | 'getRun' | 'listRuns'> & Partial<AppendNotifier>;

/** What the HTTP surface needs of the open deck's metrics (observers/metrics/deck-metrics.ts). */
export interface HttpMetrics {
  /** Count one answered request; `route` is the matched pattern, or `unmatched`. */
  recordRequest(method: string, route: string, status: number, seconds: number): void;
  /** Every metric in the Prometheus text format, with its content type. */
  scrape(): Promise<{ contentType: string; body: string }>;
}

/** What the deck grants its own HTTP surface beyond its public methods (SPEC.md rule 9). */
export interface DeckGrants {
  /** The open deck's event log, or `null` before it opens. */
  eventLog(): EventLog | null;
  /** Stop a run this process plays now, for a client that left; whether it was playing. */
  stopRun(runId: string, reason: string): boolean;
  /** Whether every configured backend answers now, or `null` before the deck opens. */
  readiness(): Promise<Readiness> | null;
  /** Why agent `name` cannot play a turn (no model configured), or `null` when it can. */
  missingModel?(name: string): string | null;
  /**
   * `deck.stream` for a caller that only wants the result (a JSON response): recorded the
   * same way, except that an agent's replies are asked for whole (one `text.delta` each).
   */
  streamForResult: StreamFn;
  /** The open deck's metrics, or `null` before it opens (none: no metrics). */
  metrics?(): HttpMetrics | null;
}

type StreamFn = (
  name: string,
  input: string,
  options: { sessionId?: string; context?: unknown },
) => AsyncGenerator<Event, void, undefined>;

export interface HttpDeps {
  deck: Deck<unknown>;
  /** The open deck's event log; 503 when the deck is not open. */
  eventLog(): EventLog;
  /** Stop a live run of this process (an SSE client disconnected). */
  stopRun(runId: string, reason: string): boolean;
  /** Whether every configured backend answers now, or `null` before the deck opens. */
  readiness(): Promise<Readiness> | null;
  /** Why agent `name` cannot play a turn (no model configured), or `null` when it can. */
  missingModel(name: string): string | null;
  /** Play an agent turn whose events are read for its result only (see {@link DeckGrants}). */
  streamForResult: StreamFn;
  /** The open deck's metrics, or `null` when it is not open. */
  metrics(): HttpMetrics | null;
  /** The run options every HTTP-started run gets: its context, from the request (or none). */
  runContext(request: Request): Promise<{ context?: unknown }>;
  log: ErrorLog;
  /** Aborted when the server shuts down. */
  shutdown: AbortSignal | undefined;
}

export function makeDeps<C>(deck: Deck<C>, grants: DeckGrants, options: AppOptions<C>): HttpDeps {
  const contextOf = options.context;
  return {
    deck: deck as Deck<unknown>,
    stopRun: grants.stopRun,
    readiness: grants.readiness,
    missingModel: grants.missingModel ?? (() => null),
    streamForResult: grants.streamForResult,
    metrics: grants.metrics ?? (() => null),
    eventLog() {
      const log = grants.eventLog();
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
