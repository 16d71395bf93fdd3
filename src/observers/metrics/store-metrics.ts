/**
 * The latency and errors of the storage an open deck uses, per store, backend and operation
 * (`store="events", backend="sqlite", operation="append"`): each store object is put behind a
 * timing proxy (instrument.ts) when the deck opens, so every call made through the deck is
 * measured, whoever makes it (a run, the stale sweep, an HTTP read, a scrape).
 */
import { Counter, Histogram, type Registry } from 'prom-client';
import { type OperationReport, timeOperations } from './instrument.js';

/** Which of the deck's stores an operation went to. */
export type StoreKind = 'events' | 'sessions' | 'checkpoints';

type Labels = 'store' | 'backend' | 'operation';

/** From half a millisecond (an in-memory call) to seconds (a remote store under load). */
const BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

export class StoreMetrics {
  readonly #duration: Histogram<Labels>;
  readonly #errors: Counter<Labels>;

  constructor(registry: Registry) {
    this.#duration = new Histogram({
      name: 'agentdeck_store_operation_duration_seconds',
      help: 'Time from a call of a store method until its promise settled, failed or not.',
      labelNames: ['store', 'backend', 'operation'],
      buckets: BUCKETS,
      registers: [registry],
    });
    this.#errors = new Counter({
      name: 'agentdeck_store_operation_errors_total',
      help: 'Store method calls whose promise rejected.',
      labelNames: ['store', 'backend', 'operation'],
      registers: [registry],
    });
  }

  /**
   * `target` behind a proxy that measures each of its operations; `then` is told of each
   * one that succeeded, with its value.
   */
  meter<T extends object>(target: T, store: StoreKind, backend: string, then?: OperationReport): T {
    // Shared by every target metered with these labels: a deck meters each session it opens
    // (one per request), and the label children are made once, not once per session.
    const children = this.#childrenOf(store, backend);
    return timeOperations(target, (operation, seconds, failed, value) => {
      let child = children.get(operation);
      if (!child) {
        const labels = { store, backend, operation };
        const duration = this.#duration.labels(labels);
        const errors = this.#errors.labels(labels);
        errors.inc(0); // the series reads 0 before a first error, so a rate() over it works
        child = { observe: (s) => duration.observe(s), fail: () => errors.inc() };
        children.set(operation, child);
      }
      child.observe(seconds);
      if (failed) child.fail();
      else then?.(operation, seconds, failed, value);
    });
  }

  readonly #children = new Map<string, Map<string, Child>>();

  #childrenOf(store: StoreKind, backend: string): Map<string, Child> {
    const key = `${store} ${backend}`;
    let children = this.#children.get(key);
    if (!children) {
      children = new Map();
      this.#children.set(key, children);
    }
    return children;
  }
}

interface Child {
  observe(seconds: number): void;
  fail(): void;
}
