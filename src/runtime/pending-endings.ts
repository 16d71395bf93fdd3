/**
 * Terminal events the store could not take when they happened. A run that is playing when
 * its backend goes down (Postgres restarting, the SQLite disk full) fails, and its
 * `run.failed` (or `run.completed`, `run.cancelled`) cannot be written either. Rather than
 * leave the log saying `running` until a stale sweep notices, the Runtime keeps each such
 * ending here and writes it as soon as the store takes writes again, once a second. The
 * store's own check (`endRun` refuses a run another writer ended, such as a sweep in another
 * process) keeps it exactly one terminal event per run. What is still unwritten when the deck
 * closes is tried once more and then left to the stale sweep (runtime/stale-sweep.ts), which
 * closes runs whose claims ran out in any process.
 */
import { errorMessage, isBackendOutage } from '../core/errors.js';
import type { Event, NewEvent } from '../core/events.js';
import { log } from '../core/log.js';
import { TERMINAL_STATUSES } from '../core/status.js';
import { type EventStore, hasRunBoundaries } from '../core/store.js';

const TERMINAL_KINDS: ReadonlySet<string> = new Set([
  'run.completed',
  'run.failed',
  'run.cancelled',
]);

/** How often unwritten endings are tried again, in ms. */
export const PENDING_ENDING_RETRY_MS = 1_000;

interface PendingEnding {
  event: NewEvent;
  releaseKey: string | null;
  /** Hands the stored event to the run's taps. */
  written: (event: Event) => void;
}

export class PendingEndings {
  readonly #store: EventStore;
  readonly #retryMs: number;
  readonly #pending = new Map<string, PendingEnding>();
  #timer: NodeJS.Timeout | null = null;
  #trying: Promise<void> | null = null;
  #closed = false;

  constructor(store: EventStore, retryMs = PENDING_ENDING_RETRY_MS) {
    this.#store = store;
    this.#retryMs = retryMs;
  }

  /** Runs whose terminal event waits for the store. */
  get size(): number {
    return this.#pending.size;
  }

  /**
   * Keep `event` (a terminal event, or the pause of a run whose resume was refused for an
   * outage, whose write failed for a temporary reason) to write later.
   */
  add(event: NewEvent, releaseKey: string | null, written: (event: Event) => void): void {
    if (this.#closed) return;
    const what = TERMINAL_KINDS.has(event.kind) ? 'ended' : 'stopped';
    log.error(
      `[agentdeck] run '${event.runId}' ${what} while the event store could not take its ` +
        `'${event.kind}'; it is written as soon as the store is back`,
    );
    this.#pending.set(event.runId, { event, releaseKey, written });
    this.#schedule();
  }

  /** Try once more, then stop: what is left is closed by a stale sweep later. */
  async close(): Promise<void> {
    this.#closed = true;
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = null;
    await this.#trying;
    if (this.#pending.size > 0) await this.#tryAll();
    for (const runId of this.#pending.keys()) {
      log.error(
        `[agentdeck] run '${runId}' closes with its terminal event unwritten (the store is ` +
          'still unavailable); the stale sweep of the next deck on this store ends it',
      );
    }
    this.#pending.clear();
  }

  #schedule(): void {
    if (this.#timer || this.#closed) return;
    this.#timer = setTimeout(() => {
      this.#timer = null;
      this.#trying = this.#tryAll().finally(() => {
        this.#trying = null;
        if (this.#pending.size > 0) this.#schedule();
      });
    }, this.#retryMs);
    this.#timer.unref();
  }

  async #tryAll(): Promise<void> {
    for (const [runId, ending] of [...this.#pending]) {
      try {
        const stored = await this.#write(ending);
        this.#pending.delete(runId);
        if (stored) ending.written(stored);
      } catch (error) {
        if (isBackendOutage(error)) return; // still down: the rest would fail too
        this.#pending.delete(runId);
        log.error(`[agentdeck] could not record the end of run '${runId}': ${errorMessage(error)}`);
      }
    }
  }

  /** The stored terminal event, or `null` when another writer has ended the run meanwhile. */
  async #write({ event, releaseKey }: PendingEnding): Promise<Event | null> {
    const store = this.#store;
    if (!TERMINAL_KINDS.has(event.kind)) {
      // A pause put back (a resume refused for an outage): only on a run still playing.
      if ((await store.getRun(event.runId))?.status !== 'running') return null;
      return (await store.append([event]))[0] ?? null;
    }
    if (hasRunBoundaries(store)) return store.endRun(event, releaseKey);
    const summary = await store.getRun(event.runId);
    if (summary && TERMINAL_STATUSES.includes(summary.status)) return null;
    const [stored] = await store.append([event]);
    if (releaseKey) await store.release(releaseKey, event.runId);
    return stored ?? null;
  }
}
