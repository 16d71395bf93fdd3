/**
 * Writes one run's events: adds the envelope to each draft, stores it (the store assigns
 * seq and ts), then hands the stored event to the taps. Storing comes first, so whatever a
 * watcher sees is already durable. A run has exactly one terminal event: the recorder
 * refuses anything after it, and does not write a terminal event for a run that another
 * writer (a stale-claim takeover, a closing deck) has already ended. A terminal event the
 * store cannot take now (its backend is down) waits in the Runtime's `PendingEndings`.
 */
import { errorMessage, isBackendOutage } from '../core/errors.js';
import type { TerminalKind } from '../core/event-kinds.js';
import type { Event, EventDraft, NewEvent } from '../core/events.js';
import { log } from '../core/log.js';
import { TERMINAL_STATUSES } from '../core/status.js';
import { canPauseRuns, type EventStore, hasRunBoundaries } from '../core/store.js';
import type { PendingEndings } from './pending-endings.js';

export interface RunIdentity {
  runId: string;
  sessionId: string | null;
  namespace: string | null;
  origin: string;
}

/** Receives every stored event, in order; must not block (in-memory work only). */
export type EventTap = (event: Event) => void;

/** The run already has its terminal event; nothing more may be recorded. */
export class RunEndedError extends Error {
  override name = 'RunEndedError';
}

const TERMINAL_KINDS: ReadonlySet<string> = new Set<TerminalKind>([
  'run.completed',
  'run.failed',
  'run.cancelled',
]);

export class RunRecorder {
  #ended = false;
  readonly #store: EventStore;
  readonly #taps: readonly EventTap[];
  /** Where a terminal event the store could not take waits to be written (pending-endings.ts). */
  readonly #endings: PendingEndings | null;

  constructor(
    store: EventStore,
    readonly identity: RunIdentity,
    taps: readonly EventTap[] = [],
    endings: PendingEndings | null = null,
  ) {
    this.#store = store;
    this.#taps = taps;
    this.#endings = endings;
  }

  /** Whether this run's terminal event is recorded (by this recorder or, as far as it knows, another writer). */
  get ended(): boolean {
    return this.#ended;
  }

  /**
   * Store `draft` (for a terminal event, unless another writer has ended the run), then tap it.
   * With `releaseKey`, on a store that writes run boundaries (`RunBoundaries`), a terminal
   * event also frees that claim in the same write; the caller has stopped renewing it.
   */
  async record(draft: EventDraft, releaseKey: string | null = null): Promise<Event> {
    const { runId } = this.identity;
    if (this.#ended)
      throw new RunEndedError(`run '${runId}' has ended; '${draft.kind}' not recorded`);
    const event = { ...this.identity, ...draft } as NewEvent;
    if (!TERMINAL_KINDS.has(draft.kind)) return this.#tap(await this.#append(event));
    this.#ended = true;
    try {
      return this.#tap(await this.#end(event, releaseKey));
    } catch (error) {
      // The backend is down or full: the ending waits and is written once it is back.
      if (this.#endings && isBackendOutage(error)) {
        this.#endings.add(event, releaseKey, (stored) => this.#tap(stored));
      }
      throw error;
    }
  }

  /**
   * Store a pause (`run.interrupted`, `run.paused`) and, on a store that can (`RunPauses`),
   * renew the claim `keepKey` without a lease in the same write; then tap it. Returns whether
   * the claim was kept with it (otherwise the caller keeps it).
   */
  async recordPause(draft: EventDraft, keepKey: string): Promise<{ event: Event; kept: boolean }> {
    const { runId } = this.identity;
    if (this.#ended)
      throw new RunEndedError(`run '${runId}' has ended; '${draft.kind}' not recorded`);
    const event = { ...this.identity, ...draft } as NewEvent;
    if (!canPauseRuns(this.#store))
      return { event: this.#tap(await this.#append(event)), kept: false };
    return { event: this.#tap(await this.#store.pauseRun(event, keepKey)), kept: true };
  }

  /** The run was ended by another writer (found out by the caller): nothing more is recorded. */
  endedElsewhere(message: string): RunEndedError {
    this.#ended = true;
    return new RunEndedError(message);
  }

  async #end(event: NewEvent, releaseKey: string | null): Promise<Event> {
    const { runId, kind } = event;
    if (hasRunBoundaries(this.#store)) {
      // The store checks, in the same write, that no other writer ended the run.
      const stored = await this.#store.endRun(event, releaseKey);
      if (!stored) throw alreadyEnded(runId, kind, null);
      return stored;
    }
    const summary = await this.#store.getRun(runId);
    if (summary && TERMINAL_STATUSES.includes(summary.status)) {
      throw alreadyEnded(runId, kind, summary.status);
    }
    return this.#append(event);
  }

  async #append(event: NewEvent): Promise<Event> {
    const [stored] = await this.#store.append([event]);
    if (!stored) throw new Error('event store returned no event for an append');
    return stored;
  }

  /** Hand an event stored by another call (the run's first, written with its claim) to the taps. */
  adopt(event: Event): Event {
    this.#tap(event);
    return event;
  }

  #tap(event: Event): Event {
    for (const tap of this.#taps) {
      try {
        tap(event);
      } catch (error) {
        log.error(`[agentdeck] an event tap failed on ${event.kind}: ${errorMessage(error)}`);
      }
    }
    return event;
  }
}

function alreadyEnded(runId: string, kind: string, status: string | null): RunEndedError {
  return new RunEndedError(
    `run '${runId}' was already ended${status ? ` (${status})` : ''} by another writer; '${kind}' not recorded`,
  );
}
