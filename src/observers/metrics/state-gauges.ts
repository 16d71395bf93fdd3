/**
 * What an open deck holds now, read when Prometheus scrapes rather than tracked as it
 * changes: the runs this process plays, the observers' queues, and the runs at rest in the
 * event store (paused, or waiting for a person's answer). The last is a store query; a scrape
 * never fails or hangs on it: a query that fails (counted by the store's own error metric)
 * or does not answer in time leaves the gauge at its last value.
 */
import { Counter, Gauge, type Registry } from 'prom-client';
import type { RunQueue } from '../../core/queue.js';
import type { EventStore } from '../../core/store.js';

/** An observer's queue as the metrics read it (observers/queue.ts). */
export interface QueueReading {
  readonly name: string;
  /** Events waiting for delivery. */
  readonly backlog: number;
  /** Events it has dropped since it started, ever growing. */
  readonly droppedTotal: number;
}

/** Where the gauges read from; given once the deck's parts exist. */
export interface DeckReadings {
  /** Runs this process plays now. */
  liveRuns(): number;
  observers: readonly QueueReading[];
  /** The event store the runs at rest are counted in. */
  runs: Pick<EventStore, 'listRuns'>;
  /** The event store's run queue, when it has one (queue-metrics.ts). */
  queue?: Pick<RunQueue, 'listQueue'>;
}

export interface StateGaugesOptions {
  /** Most paused (and most waiting) runs one scrape counts; a larger number reads as this. */
  waitingLimit: number;
  /** How long a scrape waits for the count of runs at rest before it shows the last one. */
  waitingTimeoutMs: number;
}

const AT_REST = ['paused', 'waiting_human'] as const;

export class StateGauges {
  #state: DeckReadings | null = null;
  readonly #options: StateGaugesOptions;
  readonly #waiting: Gauge<'status'>;
  /** The count of runs at rest being read, shared by scrapes that overlap. */
  #reading: Promise<void> | null = null;
  readonly #dropped: Counter<'observer'>;
  /** What each observer's dropped count was at the last scrape, to add only the difference. */
  readonly #droppedSeen = new Map<string, number>();

  constructor(registry: Registry, options: StateGaugesOptions) {
    this.#options = options;
    const registers = [registry];
    const gauges = this;
    new Gauge({
      name: 'agentdeck_live_runs',
      help: 'Runs this process is playing now (agent turns and workflow segments).',
      registers,
      collect() {
        this.set(gauges.#state?.liveRuns() ?? 0);
      },
    });
    this.#waiting = new Gauge({
      name: 'agentdeck_runs_waiting',
      help:
        'Runs at rest in the event store, by status (paused, waiting_human), read at scrape ' +
        `time (at most ${options.waitingLimit} each); the same for every process on the store.`,
      labelNames: ['status'],
      registers,
    });
    new Gauge({
      name: 'agentdeck_observer_queue_backlog',
      help: 'Events queued for an observer and not yet delivered.',
      labelNames: ['observer'],
      registers,
      collect() {
        this.reset();
        for (const [observer, backlog] of sumBy(gauges.#state?.observers, (q) => q.backlog)) {
          this.set({ observer }, backlog);
        }
      },
    });
    this.#dropped = new Counter({
      name: 'agentdeck_observer_events_dropped_total',
      help: 'Events an observer never got: its queue was full, or it was disabled after failures.',
      labelNames: ['observer'],
      registers,
      collect() {
        gauges.#collectDropped();
      },
    });
  }

  watch(state: DeckReadings): void {
    this.#state = state;
    for (const queue of state.observers) this.#dropped.inc({ observer: queue.name }, 0);
  }

  /**
   * Count the runs at rest again, before a scrape is written (so a store error it meets is in
   * the same scrape). Never rejects, and returns after `waitingTimeoutMs` at the latest.
   */
  async refresh(): Promise<void> {
    const store = this.#state?.runs;
    if (!store) return;
    const { waitingLimit, waitingTimeoutMs } = this.#options;
    this.#reading ??= Promise.all(
      AT_REST.map(async (status) => {
        const runs = await store.listRuns({ status, limit: waitingLimit });
        this.#waiting.set({ status }, runs.length);
      }),
    )
      .then(() => undefined)
      .catch(() => undefined) // counted by the store's error metric; the gauge keeps its value
      .finally(() => {
        this.#reading = null;
      });
    await within(this.#reading, waitingTimeoutMs);
  }

  #collectDropped(): void {
    for (const [observer, total] of sumBy(this.#state?.observers, (q) => q.droppedTotal)) {
      const delta = total - (this.#droppedSeen.get(observer) ?? 0);
      if (delta > 0) this.#dropped.inc({ observer }, delta);
      this.#droppedSeen.set(observer, total);
    }
  }
}

/** Per observer name (two observers may share one), the sum of `value`. */
function sumBy(
  queues: readonly QueueReading[] | undefined,
  value: (queue: QueueReading) => number,
): Map<string, number> {
  const sums = new Map<string, number>();
  for (const queue of queues ?? []) {
    sums.set(queue.name, (sums.get(queue.name) ?? 0) + value(queue));
  }
  return sums;
}

/** Wait for `promise`, but no longer than `ms`. */
export async function within(promise: Promise<void>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, ms);
    timer.unref();
  });
  try {
    await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}
