/**
 * What the runs of an open deck did, counted from the events it appended: runs started (by
 * origin and kind) and ended (by origin and status), how long they took, and events by kind.
 * The events are the event store's own answers to this process's appends (`append`,
 * `claimAndAppend`/`endRun` of `RunBoundaries`, `pauseRun` of `RunPauses`), counted
 * synchronously as each append resolves, so every write counts once: a recorder's, and also
 * those made with no taps (a paused run cancelled at rest, a control request written into a
 * run at rest). Nothing goes through the observers' queues, which may drop events.
 */
import { Counter, Histogram, type Registry } from 'prom-client';
import { type Event, isKnownKind, isTerminal } from '../../core/events.js';

/** From a short turn to a day (a workflow that waited for a person). */
const DURATION_BUCKETS = [
  0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 900, 1800, 3600, 14_400, 86_400,
];

const STATUS_OF = {
  'run.completed': 'completed',
  'run.failed': 'failed',
  'run.cancelled': 'cancelled',
} as const;

export class RunMetrics {
  readonly #started: Counter<'origin' | 'kind'>;
  readonly #ended: Counter<'origin' | 'status'>;
  readonly #duration: Histogram<'origin' | 'status'>;
  readonly #appended: Counter<'kind'>;
  readonly #byKind = new Map<string, { inc(): void }>();
  /** When each run whose `run.started` this process appended started (ms), until it ends. */
  readonly #starts = new Map<string, number>();
  readonly #trackedRuns: number;

  constructor(registry: Registry, trackedRuns: number) {
    this.#trackedRuns = trackedRuns;
    const registers = [registry];
    this.#started = new Counter({
      name: 'agentdeck_runs_started_total',
      help: 'Runs this process started (run.started appended), by agent or workflow name and kind.',
      labelNames: ['origin', 'kind'],
      registers,
    });
    this.#ended = new Counter({
      name: 'agentdeck_runs_ended_total',
      help: 'Runs this process ended (terminal event appended), by agent or workflow name and status.',
      labelNames: ['origin', 'status'],
      registers,
    });
    this.#duration = new Histogram({
      name: 'agentdeck_run_duration_seconds',
      help:
        "From a run's run.started to its terminal event, by the events' own timestamps, pauses " +
        'and waits included; only runs this process both started and ended.',
      labelNames: ['origin', 'status'],
      buckets: DURATION_BUCKETS,
      registers,
    });
    this.#appended = new Counter({
      name: 'agentdeck_events_appended_total',
      help: 'Events this process appended to the event store, by kind.',
      labelNames: ['kind'],
      registers,
    });
  }

  /** Count the events an event store operation answered with (see {@link appendedBy}). */
  appended(events: readonly Event[]): void {
    for (const event of events) this.#count(event);
  }

  #count(event: Event): void {
    // A kind outside the canonical set (none is written today) counts under one label, so a
    // writer's mistake cannot grow the series without bound.
    const kind = isKnownKind(event.kind) ? event.kind : 'other';
    let child = this.#byKind.get(kind);
    if (!child) {
      child = this.#appended.labels({ kind });
      this.#byKind.set(kind, child);
    }
    child.inc();
    if (event.kind === 'run.started') {
      this.#started.inc({ origin: event.origin, kind: event.payload.invocableType });
      this.#remember(event.runId, Date.parse(event.ts));
    } else if (isTerminal(event)) {
      const status = STATUS_OF[event.kind];
      this.#ended.inc({ origin: event.origin, status });
      const start = this.#starts.get(event.runId);
      if (start === undefined) return; // started by another process, or forgotten
      this.#starts.delete(event.runId);
      const seconds = (Date.parse(event.ts) - start) / 1000;
      if (seconds >= 0) this.#duration.observe({ origin: event.origin, status }, seconds);
    }
  }

  #remember(runId: string, startedAt: number): void {
    if (Number.isNaN(startedAt)) return;
    // Runs that never end here (continued by another process) must not grow the map for
    // ever: past the limit the oldest start is forgotten (Map keeps insertion order).
    if (this.#starts.size >= this.#trackedRuns) {
      const oldest = this.#starts.keys().next();
      if (!oldest.done) this.#starts.delete(oldest.value);
    }
    this.#starts.set(runId, startedAt);
  }
}

/** The stored events an event store operation resolved with: none for anything but an append. */
export function appendedBy(operation: string, value: unknown): readonly Event[] {
  if (operation === 'append') return value as Event[];
  if (operation === 'claimAndAppend') return (value as { events: Event[] | null }).events ?? [];
  if (operation === 'endRun') return value === null ? [] : [value as Event];
  if (operation === 'pauseRun') return [value as Event];
  return [];
}
