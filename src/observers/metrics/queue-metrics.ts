/**
 * The run queue (#40) as the metrics see it, for a deck whose event store has one:
 * - at scrape time, read from the store (`listQueue`, at most `scanLimit` entries): the
 *   entries by origin, key and state (`waiting`: no worker holds it; `held`: a worker plays
 *   it), and the age of the oldest waiting entry of each origin. The same for every process
 *   on one store (use `max`, not `sum`); a store that fails or is slow leaves the last values.
 * - as this process's worker starts queued runs: how long each waited, from its `run.queued`
 *   to its `run.started` (by the events' timestamps), and how many started, by origin and key.
 *   Both come from the event store's own answers through the deck's metering proxy: the
 *   entries a `take` answered are remembered (at most `trackedRuns`) until their run's
 *   `run.started` (or its end, for a run cancelled before it started) is appended here.
 *   A run a worker takes again after its first worker died was started already: it counts
 *   once, where it started.
 * Keys can be many (a tenant each): each metric labels at most `keyLabels` distinct keys,
 * the deepest at each scrape for the gauges, the first seen for the counter; the rest count
 * under `key="other"`.
 */
import { Counter, Gauge, Histogram, type Registry } from 'prom-client';
import { type Event, isTerminal } from '../../core/events.js';
import type { QueueEntry, RunQueue } from '../../core/queue.js';

/** From a worker taking it at once to an hour behind a busy key. */
const WAIT_BUCKETS = [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 900, 3600];

/** The key label of the keys past the `keyLabels` limit. */
export const OTHER_KEY = 'other';

export interface QueueMetricsOptions {
  /** Most queue entries one scrape reads; a deeper queue reads as this many. */
  scanLimit: number;
  /** Most distinct `key` label values per metric; the rest count under `other`. */
  keyLabels: number;
  /** Taken entries remembered until their run starts. */
  trackedRuns: number;
}

interface Taken {
  key: string;
  enqueuedAt: number;
}

export class QueueMetrics {
  readonly #options: QueueMetricsOptions;
  readonly #depth: Gauge<'origin' | 'key' | 'state'>;
  readonly #oldest: Gauge<'origin'>;
  readonly #wait: Histogram<'origin'>;
  readonly #started: Counter<'origin' | 'key'>;
  /** The keys the started counter labels by name (at most `keyLabels`). */
  readonly #startedKeys = new Set<string>();
  /** Entries this process's worker took, by run id, until their run starts or ends. */
  readonly #taken = new Map<string, Taken>();

  constructor(registry: Registry, options: QueueMetricsOptions) {
    this.#options = options;
    const registers = [registry];
    this.#depth = new Gauge({
      name: 'agentdeck_queue_depth',
      help:
        'Background runs in the run queue, by agent or workflow name, key and state (waiting: ' +
        `no worker holds it; held: a worker plays it), read at scrape time (at most ${options.scanLimit} ` +
        `entries); the ${options.keyLabels} deepest keys by name, the rest as key="${OTHER_KEY}".`,
      labelNames: ['origin', 'key', 'state'],
      registers,
    });
    this.#oldest = new Gauge({
      name: 'agentdeck_queue_oldest_wait_seconds',
      help: 'Age of the oldest waiting entry of the run queue (now minus its run.queued), by agent or workflow name.',
      labelNames: ['origin'],
      registers,
    });
    this.#wait = new Histogram({
      name: 'agentdeck_queue_wait_seconds',
      help:
        "From a queued run's run.queued to its run.started, by the events' timestamps; runs " +
        "this process's worker started.",
      labelNames: ['origin'],
      buckets: WAIT_BUCKETS,
      registers,
    });
    this.#started = new Counter({
      name: 'agentdeck_queue_runs_started_total',
      help:
        "Queued runs this process's worker started, by agent or workflow name and key (the " +
        `first ${options.keyLabels} keys seen by name, the rest as key="${OTHER_KEY}").`,
      labelNames: ['origin', 'key'],
      registers,
    });
  }

  /** Remember the entries a `take` answered, to time their runs' starts. */
  taken(entries: readonly QueueEntry[]): void {
    for (const entry of entries) {
      const enqueuedAt = Date.parse(entry.enqueuedAt);
      if (Number.isNaN(enqueuedAt)) continue;
      if (this.#taken.size >= this.#options.trackedRuns && !this.#taken.has(entry.runId)) {
        const oldest = this.#taken.keys().next();
        if (!oldest.done) this.#taken.delete(oldest.value);
      }
      this.#taken.set(entry.runId, { key: entry.key, enqueuedAt });
    }
  }

  /** An event this process appended: a taken run's start is counted, its end forgets it. */
  appended(event: Event): void {
    const taken = this.#taken.get(event.runId);
    if (!taken) return;
    if (event.kind === 'run.started') {
      this.#taken.delete(event.runId);
      const seconds = (Date.parse(event.ts) - taken.enqueuedAt) / 1000;
      if (seconds >= 0) this.#wait.observe({ origin: event.origin }, seconds);
      this.#started.inc({ origin: event.origin, key: this.#startedKey(taken.key) });
    } else if (isTerminal(event)) {
      this.#taken.delete(event.runId); // cancelled before it started
    }
  }

  #startedKey(key: string): string {
    if (this.#startedKeys.has(key)) return key;
    if (this.#startedKeys.size >= this.#options.keyLabels) return OTHER_KEY;
    this.#startedKeys.add(key);
    return key;
  }

  /** Read the queue again and set the gauges; rejects when the store does. */
  async read(queue: Pick<RunQueue, 'listQueue'>, now = Date.now()): Promise<void> {
    const entries = await queue.listQueue(this.#options.scanLimit);
    this.#depth.reset();
    this.#oldest.reset();
    for (const [labels, count] of depthOf(entries, this.#options.keyLabels)) {
      this.#depth.set(labels, count);
    }
    const oldest = new Map<string, number>();
    for (const entry of entries) {
      if (entry.takenBy !== null) continue;
      const at = Date.parse(entry.enqueuedAt);
      if (!Number.isNaN(at)) oldest.set(entry.origin, Math.min(oldest.get(entry.origin) ?? at, at));
    }
    for (const [origin, at] of oldest) {
      this.#oldest.set({ origin }, Math.max(0, (now - at) / 1000));
    }
  }
}

type DepthLabels = { origin: string; key: string; state: 'waiting' | 'held' };

/** Entries counted by origin, key and state; only the `keyLabels` deepest keys by name. */
export function depthOf(
  entries: readonly QueueEntry[],
  keyLabels: number,
): Array<[DepthLabels, number]> {
  const byKey = new Map<string, number>();
  for (const entry of entries) byKey.set(entry.key, (byKey.get(entry.key) ?? 0) + 1);
  const named = new Set(
    [...byKey]
      .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
      .slice(0, keyLabels)
      .map(([key]) => key),
  );
  const counts = new Map<string, [DepthLabels, number]>();
  for (const entry of entries) {
    const labels: DepthLabels = {
      origin: entry.origin,
      key: named.has(entry.key) ? entry.key : OTHER_KEY,
      state: entry.takenBy === null ? 'waiting' : 'held',
    };
    const id = JSON.stringify([labels.origin, labels.key, labels.state]);
    const seen = counts.get(id);
    if (seen) seen[1] += 1;
    else counts.set(id, [labels, 1]);
  }
  return [...counts.values()];
}
