/**
 * The retention sweep of an open deck with `retentionDays` set (background.ts): every minute,
 * one process sharing the store (the holder of the short lease `retention:sweep`) removes the
 * runs that ended more than the retention ago (retention.ts), a small batch at a time with a
 * pause between batches, and stops after a time budget; what is left waits for the next
 * sweep. So a backlog (a first sweep over a year of history) drains over a few sweeps without
 * holding the store: live turns write between the batches.
 * Tested in src/deck/retention.test.ts.
 */
import { randomUUID } from 'node:crypto';
import { errorMessage } from '../core/errors.js';
import { log } from '../core/log.js';
import { RepeatedFailures } from './repeated-failures.js';
import { daysToMs, pruneEnded, type RetentionDeps } from './retention.js';

export interface RetentionSweepOptions {
  retentionDays: number;
  /** How often a sweep starts, in ms. @default 60_000 */
  everyMs?: number;
  /** Runs per batch. @default 100 */
  batch?: number;
  /** Pause between batches, in ms. @default 50 */
  pauseMs?: number;
  /** Longest a sweep goes on, in ms. @default 5_000 */
  budgetMs?: number;
}

const SWEEP_KEY = 'retention:sweep';
/** The lease holds other processes off while one sweeps (and if it dies mid-sweep). */
const SWEEP_LEASE_MS = 120_000;

export class RetentionSweep {
  readonly #deps: RetentionDeps;
  readonly #options: Required<RetentionSweepOptions>;
  readonly #holder = `retention-${randomUUID()}`;
  readonly #failures = new RepeatedFailures('removing runs past their retention');
  #timer: NodeJS.Timeout | null = null;
  #running: Promise<void> | null = null;
  #stopped = false;

  constructor(deps: RetentionDeps, options: RetentionSweepOptions) {
    this.#deps = deps;
    this.#options = {
      everyMs: 60_000,
      batch: 100,
      pauseMs: 50,
      budgetMs: 5_000,
      ...options,
    };
  }

  /** A first sweep soon after the open, then one per `everyMs`. */
  start(): void {
    const first = setTimeout(() => this.sweep(), Math.min(1_000, this.#options.everyMs));
    first.unref();
    this.#timer = setInterval(() => this.sweep(), this.#options.everyMs);
    this.#timer.unref();
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    if (this.#timer) clearInterval(this.#timer);
    await this.#running;
  }

  /** One sweep; a sweep in flight is not doubled. Resolves when it ends. */
  sweep(): Promise<void> {
    if (this.#stopped) return Promise.resolve();
    this.#running ??= this.#underLease()
      .then(
        () => this.#failures.succeeded(),
        (error: unknown) => this.#failures.failed(error),
      )
      .finally(() => {
        this.#running = null;
      });
    return this.#running;
  }

  async #underLease(): Promise<void> {
    const { store } = this.#deps;
    const lease = await store.claim({
      key: SWEEP_KEY,
      runId: this.#holder,
      staleAfterMs: SWEEP_LEASE_MS,
    });
    if (!lease.acquired) return; // another process sweeps now
    try {
      await this.#batches();
    } finally {
      await store.release(SWEEP_KEY, this.#holder).catch((error: unknown) => {
        log.error(`[agentdeck] could not release the retention lease: ${errorMessage(error)}`);
      });
    }
  }

  async #batches(): Promise<void> {
    const { batch, pauseMs, budgetMs, retentionDays } = this.#options;
    const until = Date.now() + budgetMs;
    let runs = 0;
    let threads = 0;
    try {
      while (!this.#stopped && Date.now() < until) {
        const report = await pruneEnded(
          this.#deps,
          { olderThanMs: daysToMs(retentionDays), limit: batch, batch },
          Date.now(),
          () => this.#stopped,
        );
        runs += report.runs.length;
        threads += report.threads.length;
        if (report.runs.length < batch) return;
        await new Promise((resolve) => setTimeout(resolve, pauseMs));
      }
    } finally {
      // One line per sweep that removed something: what retention does is visible in the log.
      if (runs > 0) {
        log.info(
          `[agentdeck] retention: removed ${runs} run${runs === 1 ? '' : 's'} that ended more than ${retentionDays} day${retentionDays === 1 ? '' : 's'} ago, and ${threads} workflow thread${threads === 1 ? '' : 's'}`,
        );
      }
    }
  }
}
