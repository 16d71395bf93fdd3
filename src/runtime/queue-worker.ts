/**
 * The queue's worker in each open deck (background.ts starts it when the event store has a
 * run queue and `SERVICE_QUEUE_CONCURRENCY` is over 0): it takes up to that many entries of
 * the catalog's agents and workflows at once, plays each (queued-runs.ts), and finishes the
 * entry when the run stops playing here, which frees its slot (a run waiting for a person or a
 * timer holds none). It looks when told (an enqueue in this process, or any process on
 * Postgres), when a run of its own ends, and every `SERVICE_QUEUE_POLL_MS` otherwise. It
 * renews its holds once per heartbeat; a hold it stops renewing (its process died) lapses
 * after the lease, and another worker takes the run again. `halt()` stops taking;
 * runs in flight end with the deck (closing cancels them, as every live run).
 */
import { randomUUID } from 'node:crypto';
import { errorMessage } from '../core/errors.js';
import { log } from '../core/log.js';
import type { QueueEntry } from '../core/queue.js';
import type { QueuedRunEnd, QueueStore } from './queued-runs.js';
import { RepeatedFailures } from './repeated-failures.js';

/** Why a run in flight stops when its process closes. */
const HANDED_BACK = 'its process is shutting down; it goes back to the queue for another worker';

export interface QueueWorkerDeps {
  store: QueueStore;
  /** The agents and workflows this deck plays. */
  origins: readonly string[];
  /** Most entries held at once. */
  concurrency: number;
  /** How long a hold lasts unless renewed; renewed every third of it. */
  leaseMs: number;
  pollMs: number;
  play: (entry: QueueEntry) => Promise<QueuedRunEnd>;
  /** Stop a run playing here, recording nothing more (another worker took it); whether it was. */
  abandon: (runId: string, reason: string) => boolean;
}

export class QueueWorker {
  /** This process's worker id, as the queue's entries name their holder. */
  readonly id = `worker-${randomUUID()}`;
  readonly #deps: QueueWorkerDeps;
  readonly #held = new Map<string, Promise<void>>();
  readonly #failures = new RepeatedFailures('taking queued runs');
  #taking: Promise<void> | null = null;
  #again = false;
  #halted = false;
  /** Runs in flight when the deck closed: given back to the queue when they stop. */
  readonly #handedBack = new Set<string>();
  #timers: NodeJS.Timeout[] = [];
  #unwatch: (() => void) | null = null;

  constructor(deps: QueueWorkerDeps) {
    this.#deps = deps;
  }

  /** Runs this worker plays now. */
  get playing(): number {
    return this.#held.size;
  }

  async start(): Promise<void> {
    const { store, pollMs, leaseMs } = this.#deps;
    this.#unwatch = await store
      .watchQueue(() => this.poke())
      .catch((error: unknown) => {
        log.error(`[agentdeck] the queue's notices are off, polling only: ${errorMessage(error)}`);
        return null;
      });
    const poll = setInterval(() => this.poke(), pollMs);
    const renew = setInterval(() => void this.#renew(), Math.max(10, Math.floor(leaseMs / 3)));
    poll.unref();
    renew.unref();
    this.#timers = [poll, renew];
    this.poke();
  }

  /** Look at the queue now (coalesced with a look in flight). */
  poke(): void {
    if (this.#halted) return;
    if (this.#taking) {
      this.#again = true;
      return;
    }
    this.#taking = this.#take().finally(() => {
      this.#taking = null;
      if (this.#again) {
        this.#again = false;
        this.poke();
      }
    });
  }

  /**
   * Take nothing more (a draining process); the runs in flight go on, their holds renewed.
   * Resolves once a take in flight is done.
   */
  async stopTaking(): Promise<void> {
    this.#halted = true;
    const [poll] = this.#timers;
    if (poll) clearInterval(poll);
    this.#unwatch?.();
    this.#unwatch = null;
    await this.#taking;
  }

  /** Take nothing more and hand the runs in flight back to the queue (the deck closes). */
  async halt(): Promise<void> {
    await this.stopTaking();
    for (const timer of this.#timers) clearInterval(timer);
    // Handed back, not cancelled: each stops here recording nothing more, and its entry goes
    // back to the queue at once, for another process (or this one's next start) to go on with
    // it, as with a worker that died (queued-runs.ts), its attempt not counted.
    for (const runId of this.#held.keys()) {
      this.#handedBack.add(runId);
      this.#deps.abandon(runId, HANDED_BACK);
    }
  }

  /** After `halt()`: wait for the runs in flight to stop and go back to the queue. */
  async stop(): Promise<void> {
    await Promise.allSettled([...this.#held.values()]);
  }

  async #take(): Promise<void> {
    const { store, origins, concurrency, leaseMs } = this.#deps;
    if (origins.length === 0) return;
    try {
      // One entry a take, each played as soon as it is taken: a run does not wait for the
      // picks of the runs after it (nor for the empty pick that ends a batch).
      while (!this.#halted && this.#held.size < concurrency) {
        const [entry] = await store.take({ worker: this.id, origins, max: 1, leaseMs });
        this.#failures.succeeded();
        if (!entry) break;
        this.#play(entry);
      }
    } catch (error) {
      this.#failures.failed(error);
    }
  }

  #play(entry: QueueEntry): void {
    const { store, play } = this.#deps;
    // Its own hold lapsed while it played it (a stall) and it took it again: it plays it once.
    if (this.#held.has(entry.runId)) return;
    const done = play(entry)
      .catch((error: unknown): QueuedRunEnd => {
        // Before it began (its reads failed): back to the queue, for a later look.
        log.error(`[agentdeck] queued run '${entry.runId}' failed to play: ${errorMessage(error)}`);
        return { giveBackInMs: 1_000 };
      })
      .then(async (end) => {
        if (this.#handedBack.has(entry.runId)) {
          await store.giveBack(entry.runId, this.id, new Date().toISOString());
        } else if (end === 'finished') await store.finishTaken(entry.runId, this.id);
        else if (end === 'lapse') {
          // Not renewed from here on: another look takes it again once its hold lapses.
        } else {
          const at = new Date(Date.now() + end.giveBackInMs).toISOString();
          await store.giveBack(entry.runId, this.id, at);
        }
      })
      .catch((error: unknown) => {
        // The store is out: the hold lapses, and a worker takes the run again later.
        log.error(
          `[agentdeck] could not let go of queued run '${entry.runId}': ${errorMessage(error)}`,
        );
      })
      .finally(() => {
        this.#held.delete(entry.runId);
        this.poke();
      });
    this.#held.set(entry.runId, done);
  }

  async #renew(): Promise<void> {
    const ids = [...this.#held.keys()];
    if (ids.length === 0) return;
    try {
      const kept = new Set(await this.#deps.store.renewTaken(this.id, ids));
      for (const id of ids) {
        if (kept.has(id) || !this.#held.has(id)) continue;
        // Its hold lapsed (this process stalled) and another worker took the run: that one
        // plays it, from what was recorded; this one stops it without recording more.
        const reason = `its queue hold lapsed while this process stalled, and another worker took it`;
        if (this.#deps.abandon(id, reason)) {
          log.error(`[agentdeck] queued run '${id}' stopped here: ${reason}`);
        }
      }
    } catch (error) {
      this.#failures.failed(error);
    }
  }
}
