/**
 * Timers that fire by themselves: an open deck with `wakeTimers` (on in `serve()` and
 * `agentdeck serve`) wakes each sleeping thread at its time, with no `tick()` call.
 *
 * It does not poll the threads. The checkpointer's timer index (SQLite `lg_wakeups`, Postgres
 * `agentdeck_wakeups`) knows the earliest wake-up; a timer is armed for it. A run going to
 * sleep in this process re-arms it at once (a tap on `run.paused`); one going to sleep in
 * another process sharing the store is seen at the next look at the index, once a second (one
 * indexed `min()` query). When the timer fires, the process takes a short lease on the event
 * store (the claim `timers:tick`), so processes sharing a Postgres do not all scan at once,
 * and ticks: each due thread is resumed under its own thread claim and resume lock, so it is
 * woken exactly once whichever process gets there (timers.ts). At start it ticks
 * once, for what fell due while the process was down.
 * Tested through the deck: src/deck/wake-timers.test.ts; across processes in
 * test/timers-processes.test.ts.
 */
import { randomUUID } from 'node:crypto';
import { errorMessage } from '../core/errors.js';
import type { Event } from '../core/events.js';
import { log } from '../core/log.js';
import type { Claims } from '../core/store.js';
import { wakeAtOfReason } from '../core/wakeups.js';
import { RepeatedFailures } from './repeated-failures.js';

/** How often the index is read for wake-ups other processes armed, in ms. */
export const TIMER_LOOK_MS = 1_000;
/** How long a tick's lease holds other processes off if its holder dies, in ms. */
const TICK_LEASE_MS = 10_000;
const TICK_KEY = 'timers:tick';

export interface TimerDeps {
  store: Claims;
  /** The earliest wake-up of a sleeping thread (ISO 8601 UTC), or `null`. */
  nextWakeup(): Promise<string | null>;
  /** Wake the threads due at `now` (the deck's `tick()`); how many woke, how many failed to. */
  tick(now: Date): Promise<{ woken: number; failed: number }>;
}

export class TimerWaker {
  readonly #deps: TimerDeps;
  readonly #lookMs: number;
  readonly #holder = `timers-${randomUUID()}`;
  readonly #failures = new RepeatedFailures('waking sleeping workflow threads');
  #armed: { at: number; timer: NodeJS.Timeout } | null = null;
  #look: NodeJS.Timeout | null = null;
  #running: Promise<void> | null = null;
  #stopped = false;

  constructor(deps: TimerDeps, lookMs = TIMER_LOOK_MS) {
    this.#deps = deps;
    this.#lookMs = lookMs;
  }

  /** A Runtime tap: a run of this process going to sleep arms its wake-up at once. */
  readonly tap = (event: Event): void => {
    if (event.kind !== 'run.paused') return;
    const wakeAt = wakeAtOfReason(event.payload.reason);
    if (wakeAt === null) return;
    const at = Date.parse(wakeAt);
    if (!Number.isNaN(at)) this.#arm(at);
  };

  /** Wake what is due now (what fell due while the process was down), then keep watching. */
  start(): void {
    this.#fire();
    this.#look = setInterval(() => void this.#lookAhead(), this.#lookMs);
    this.#look.unref();
  }

  /** Stop watching; waits for a tick in flight. */
  async stop(): Promise<void> {
    this.#stopped = true;
    if (this.#look) clearInterval(this.#look);
    if (this.#armed) clearTimeout(this.#armed.timer);
    this.#armed = null;
    await this.#running;
  }

  /**
   * Read the index; arm for a wake-up coming before the next look. After a tick that woke
   * nothing and failed some, one still due is tried again a look later, not at once, so a
   * thread that keeps failing cannot spin the loop; after any other tick the next wake-up is
   * armed at its own time.
   */
  async #lookAhead(afterTick = false): Promise<void> {
    if (this.#stopped || this.#running) return;
    try {
      const next = await this.#deps.nextWakeup();
      this.#failures.succeeded();
      if (next === null) return;
      const at = Date.parse(next);
      this.#arm(afterTick ? Math.max(at, Date.now() + this.#lookMs) : at);
    } catch (error) {
      this.#failures.failed(error);
    }
  }

  /** Fire at `at` (now, if it has passed), unless something earlier is armed already. */
  #arm(at: number): void {
    if (this.#stopped) return;
    if (this.#armed && this.#armed.at <= at) return;
    // Beyond the next look, it will be seen again then: a far timer holds nothing armed.
    const delay = Math.max(0, at - Date.now());
    if (delay > this.#lookMs) return;
    if (this.#armed) clearTimeout(this.#armed.timer);
    const timer = setTimeout(() => {
      this.#armed = null;
      this.#fire();
    }, delay);
    timer.unref();
    this.#armed = { at, timer };
  }

  #fire(): void {
    if (this.#stopped || this.#running) return;
    let stuck = false;
    this.#running = this.#tickUnderLease()
      .then(
        (result) => {
          this.#failures.succeeded();
          stuck = result !== null && result.woken === 0 && result.failed > 0;
        },
        (error: unknown) => this.#failures.failed(error),
      )
      .finally(() => {
        this.#running = null;
        void this.#lookAhead(stuck); // what is next, now that these are awake
      });
  }

  async #tickUnderLease(): Promise<{ woken: number; failed: number } | null> {
    const { store } = this.#deps;
    const lease = await store.claim({
      key: TICK_KEY,
      runId: this.#holder,
      staleAfterMs: TICK_LEASE_MS,
    });
    if (!lease.acquired) return null; // another process is ticking; the next look tries again
    try {
      return await this.#deps.tick(new Date());
    } finally {
      await store.release(TICK_KEY, this.#holder).catch((error: unknown) => {
        log.error(`[agentdeck] could not release the timer lease: ${errorMessage(error)}`);
      });
    }
  }
}
