/**
 * One observer's bounded queue. The recorder's tap only pushes (O(1), never throws); the
 * queue delivers to the observer later, on its own turns of the event loop, a slice at a
 * time, so a run never waits for an observer: a slow observer (one whose `emit` returns a
 * promise that takes seconds) grows only its own backlog, and a full backlog drops new
 * events for that observer alone. An observer that fails `failureLimit` times in a row is
 * disabled (its backlog dropped) and re-enabled after a delay that doubles while it keeps
 * failing. Each disable and each retry is logged once.
 */
import { errorMessage } from '../core/errors.js';
import type { Event } from '../core/events.js';
import { log } from '../core/log.js';
import { type Observer, observerName } from './observer.js';

export interface ObserverQueueOptions {
  /** Events held for an observer that is behind; past it, new events are dropped. @default 10000 */
  capacity?: number;
  /** Failures in a row (a throwing emit, or a rejected promise) that disable the observer. @default 5 */
  failureLimit?: number;
  /** How long a disabled observer rests before it is retried; doubles while it keeps failing. @default 30000 */
  retryAfterMs?: number;
  /** The longest rest between retries. @default 600000 */
  maxRetryAfterMs?: number;
  /** Events delivered synchronously before the queue yields to the event loop. @default 256 */
  sliceSize?: number;
  /** How long closing waits for the backlog, then for the observer's `close()`. @default 10000 */
  closeTimeoutMs?: number;
  /** Where the queue's log lines go. @default the deck's log (core/log.ts), as warnings */
  log?: (line: string) => void;
}

const DEFAULTS: Required<ObserverQueueOptions> = {
  capacity: 10_000,
  failureLimit: 5,
  retryAfterMs: 30_000,
  maxRetryAfterMs: 600_000,
  sliceSize: 256,
  closeTimeoutMs: 10_000,
  log: (line) => log.warn(line),
};

type QueueState = 'active' | 'disabled' | 'closed';

export class ObserverQueue {
  readonly name: string;
  readonly #options: Required<ObserverQueueOptions>;
  #state: QueueState = 'active';
  #events: Event[] = [];
  #head = 0;
  #draining: Promise<void> | null = null;
  #failures = 0;
  #failureLogged = false;
  #restMs: number;
  #retryTimer: NodeJS.Timeout | null = null;
  #dropped = 0;
  #droppedTotal = 0;

  constructor(
    readonly observer: Observer,
    options: ObserverQueueOptions = {},
  ) {
    this.#options = { ...DEFAULTS, ...options };
    this.#restMs = this.#options.retryAfterMs;
    this.name = observerName(observer);
  }

  /** Events waiting for delivery. */
  get backlog(): number {
    return this.#events.length - this.#head;
  }

  /** Events this observer never got because its queue was full or it was disabled (for metrics). */
  get droppedTotal(): number {
    return this.#droppedTotal;
  }

  /** Whether the observer is currently disabled after repeated failures. */
  get disabled(): boolean {
    return this.#state === 'disabled';
  }

  /** Queue an event; returns at once. Dropped when the observer is disabled, closed or too far behind. */
  push(event: Event): void {
    if (this.#state !== 'active') {
      if (this.#state === 'disabled') this.#droppedTotal += 1;
      return;
    }
    if (this.backlog >= this.#options.capacity) {
      if (this.#dropped === 0) {
        this.#log(
          `is ${this.backlog} events behind; dropping its new events until it catches up ` +
            '(an observer that cannot lose events should read the event store)',
        );
      }
      this.#dropped += 1;
      this.#droppedTotal += 1;
      return;
    }
    this.#events.push(event);
    this.#draining ??= this.#drain();
  }

  /**
   * Deliver the backlog (bounded by `closeTimeoutMs`), then call the observer's `close()`
   * (bounded the same way). Never throws: a failing observer is logged.
   */
  async close(): Promise<void> {
    if (this.#retryTimer) clearTimeout(this.#retryTimer);
    const wasActive = this.#state === 'active';
    if (wasActive && this.#draining) {
      const caughtUp = await within(this.#draining, this.#options.closeTimeoutMs);
      if (!caughtUp)
        this.#log(`did not catch up before close; ${this.backlog} events not delivered`);
    }
    this.#state = 'closed';
    this.#events = [];
    this.#head = 0;
    try {
      const closing = Promise.resolve(this.observer.close?.());
      if (!(await within(closing, this.#options.closeTimeoutMs))) {
        this.#log(`close() did not finish within ${this.#options.closeTimeoutMs} ms`);
      }
    } catch (error) {
      this.#log(`close() failed: ${errorMessage(error)}`);
    }
  }

  async #drain(): Promise<void> {
    // Start on a later turn: the run that recorded the event goes on first.
    await nextTurn();
    let slice = 0;
    while (this.#state === 'active' && this.backlog > 0) {
      const event = this.#events[this.#head] as Event;
      this.#head += 1;
      if (this.#head >= 4096 && this.#head * 2 >= this.#events.length) this.#compact();
      try {
        const result = this.observer.emit(event);
        if (isPromiseLike(result)) await result;
        this.#succeeded();
      } catch (error) {
        this.#failed(event, error);
      }
      slice += 1;
      if (slice >= this.#options.sliceSize) {
        slice = 0;
        await nextTurn();
      }
    }
    this.#compact();
    if (this.#dropped > 0 && this.#state === 'active') {
      this.#log(`caught up; ${this.#dropped} events were dropped while it was behind`);
      this.#dropped = 0;
    }
    this.#draining = null;
  }

  #succeeded(): void {
    this.#failures = 0;
    this.#restMs = this.#options.retryAfterMs;
  }

  #failed(event: Event, error: unknown): void {
    this.#failures += 1;
    if (!this.#failureLogged) {
      this.#failureLogged = true;
      this.#log(
        `failed on ${event.kind}: ${errorMessage(error)} (failures are counted, not logged; ` +
          `${this.#options.failureLimit} in a row disable it for a while)`,
      );
    }
    if (this.#failures < this.#options.failureLimit) return;
    const rest = this.#restMs;
    this.#log(
      `failed ${this.#failures} times in a row (last: ${errorMessage(error)}); disabled, ` +
        `its ${this.backlog} queued events dropped; retrying in ${Math.round(rest / 1000)} s`,
    );
    this.#state = 'disabled';
    this.#droppedTotal += this.backlog;
    this.#events = [];
    this.#head = 0;
    this.#restMs = Math.min(rest * 2, this.#options.maxRetryAfterMs);
    this.#retryTimer = setTimeout(() => this.#retry(), rest);
    this.#retryTimer.unref();
  }

  #retry(): void {
    this.#retryTimer = null;
    if (this.#state !== 'disabled') return;
    this.#state = 'active';
    this.#failures = 0;
    this.#log('re-enabled: events are delivered to it again');
  }

  /** Drop delivered events from the front (when the queue runs empty, or the front has grown large). */
  #compact(): void {
    if (this.#head === 0) return;
    this.#events = this.#events.slice(this.#head);
    this.#head = 0;
  }

  #log(message: string): void {
    this.#options.log(`[agentdeck] observer '${this.name}' ${message}`);
  }
}

function isPromiseLike(value: unknown): value is PromiseLike<unknown> {
  return typeof (value as PromiseLike<unknown> | undefined)?.then === 'function';
}

const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

/** Whether `promise` settles within `ms` (a rejection counts as settled and is rethrown). */
async function within(promise: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), ms);
    timer.unref();
  });
  try {
    return await Promise.race([promise.then(() => true as const), timeout]);
  } finally {
    clearTimeout(timer);
  }
}
