/**
 * The metrics of one open deck, in the Prometheus text format: one prom-client `Registry`
 * per open deck (never prom-client's global one, since several decks may run in one process),
 * made when the deck opens and dropped when it closes. It is fed without ever being on a
 * run's path: the event store's answers to appends (run-metrics.ts) and the timing of every
 * store call (store-metrics.ts) through proxies the deck puts around its stores, the HTTP
 * surface's middleware (http-metrics.ts), and, at scrape time, readings of what the deck holds
 * now (state-gauges.ts). prom-client's default process metrics are left out: their event-loop
 * monitor and GC observer cannot be stopped, so each deck opened in a process would leave
 * its own running.
 */
import { Registry } from 'prom-client';
import type { QueueEntry } from '../../core/queue.js';
import type { EventStore } from '../../core/store.js';
import { HttpRequestMetrics } from './http-metrics.js';
import { QueueMetrics } from './queue-metrics.js';
import { appendedBy, RunMetrics } from './run-metrics.js';
import { type DeckReadings, StateGauges, within } from './state-gauges.js';
import { type StoreKind, StoreMetrics } from './store-metrics.js';

export interface DeckMetricsOptions {
  /** Runs whose start is remembered for `agentdeck_run_duration_seconds` until they end. @default 10000 */
  trackedRuns?: number;
  /** Most paused (and most waiting) runs one scrape counts. @default 10000 */
  waitingLimit?: number;
  /** How long a scrape waits for the store's count of runs at rest before showing the last one. @default 1000 */
  waitingTimeoutMs?: number;
  /** Most distinct `key` label values of each run queue metric; the rest count as `other`. @default 20 */
  queueKeyLabels?: number;
}

const DEFAULTS: Required<DeckMetricsOptions> = {
  trackedRuns: 10_000,
  waitingLimit: 10_000,
  waitingTimeoutMs: 1_000,
  queueKeyLabels: 20,
};

/** One scrape: the exposition text and the content type to serve it with. */
export interface Scrape {
  contentType: string;
  body: string;
}

export class DeckMetrics {
  readonly #registry = new Registry();
  readonly #runs: RunMetrics;
  readonly #stores: StoreMetrics;
  readonly #http: HttpRequestMetrics;
  readonly #state: StateGauges;
  readonly #queue: QueueMetrics;
  readonly #waitingTimeoutMs: number;
  /** The read of the run queue in flight, shared by scrapes that overlap. */
  #queueReading: Promise<void> | null = null;
  #readings: DeckReadings | null = null;

  constructor(options: DeckMetricsOptions = {}) {
    const settings = { ...DEFAULTS, ...options };
    this.#runs = new RunMetrics(this.#registry, settings.trackedRuns);
    this.#stores = new StoreMetrics(this.#registry);
    this.#http = new HttpRequestMetrics(this.#registry);
    this.#state = new StateGauges(this.#registry, settings);
    this.#queue = new QueueMetrics(this.#registry, {
      scanLimit: settings.waitingLimit,
      keyLabels: settings.queueKeyLabels,
      trackedRuns: settings.trackedRuns,
    });
    this.#waitingTimeoutMs = settings.waitingTimeoutMs;
  }

  /** `store` behind a proxy that times its operations and counts the events it appends. */
  meterEventStore<T extends EventStore>(store: T, backend: string): T {
    return this.#stores.meter(store, 'events', backend, (operation, _seconds, _failed, value) => {
      if (operation === 'take') return this.#queue.taken(value as QueueEntry[]);
      const events = appendedBy(operation, value);
      this.#runs.appended(events);
      for (const event of events) this.#queue.appended(event);
    });
  }

  /** A session or checkpointer behind a proxy that times its operations. */
  meter<T extends object>(target: T, store: StoreKind, backend: string): T {
    return this.#stores.meter(target, store, backend);
  }

  /** Read the deck's live runs, observer queues and runs at rest at each scrape from now on. */
  watch(readings: DeckReadings): void {
    this.#state.watch(readings);
    this.#readings = readings;
  }

  /** Count one answered HTTP request; `route` is the matched pattern, or `unmatched`. */
  recordRequest(method: string, route: string, status: number, seconds: number): void {
    this.#http.record(method, route, status, seconds);
  }

  /** Count one request the HTTP gate refused, by reason. */
  recordAuthRefusal(reason: string): void {
    this.#http.refused(reason);
  }

  /** Read the run queue's gauges again; like the runs at rest, never fails or hangs a scrape. */
  async #refreshQueue(): Promise<void> {
    const queue = this.#readings?.queue;
    if (!queue) return;
    this.#queueReading ??= this.#queue
      .read(queue)
      .catch(() => undefined) // counted by the store's error metric; the gauges keep their values
      .finally(() => {
        this.#queueReading = null;
      });
    await within(this.#queueReading, this.#waitingTimeoutMs);
  }

  /** Every metric, as Prometheus scrapes them. */
  async scrape(): Promise<Scrape> {
    await Promise.all([this.#state.refresh(), this.#refreshQueue()]);
    return { contentType: this.#registry.contentType, body: await this.#registry.metrics() };
  }
}
