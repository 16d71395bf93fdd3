/**
 * The memory backend's run queue (the reference for `RunQueue`, see core/queue.ts): entries,
 * the last turn of each key and the token buckets, in maps. Every method runs to completion
 * without awaiting, so each is atomic. The event half of `enqueue` is the store's.
 */
import type { Event } from '../../core/events.js';
import {
  msUntilToken,
  type QueueEntry,
  type QueueLimits,
  type RateLimit,
  rateBucket,
  refilled,
  type TakeRequest,
  type TokenResult,
} from '../../core/queue.js';

interface Held extends QueueEntry {
  /** Enqueue order, for first in first out within a key. */
  order: number;
  leaseMs: number;
}

export class MemoryQueue {
  readonly #entries = new Map<string, Held>();
  /** The turn each key was last served at (a counter): least recently served first. */
  readonly #served = new Map<string, number>();
  readonly #buckets = new Map<string, { tokens: number; at: number }>();
  readonly #watchers = new Set<() => void>();
  #order = 0;
  #turn = 0;

  add(event: Event & { kind: 'run.queued' }, limits: QueueLimits): void {
    this.#entries.set(event.runId, {
      runId: event.runId,
      origin: event.origin,
      sessionId: event.sessionId,
      namespace: event.namespace,
      key: event.payload.key,
      priority: event.payload.priority,
      limits,
      enqueuedAt: event.ts,
      availableAt: event.ts,
      attempts: 0,
      takenBy: null,
      takenAt: null,
      order: this.#order++,
      leaseMs: 0,
    });
    this.#notify();
  }

  take({ worker, origins, max, leaseMs }: TakeRequest): QueueEntry[] {
    const now = Date.now();
    const taken: QueueEntry[] = [];
    const served = new Set(origins);
    while (taken.length < max) {
      const next = this.#candidates(now).find(
        (entry) => served.has(entry.origin) && this.#fits(entry, now),
      );
      if (!next) break;
      if (next.limits.rate) this.#spend(rateBucket(next.origin, next.key), next.limits.rate, now);
      next.takenBy = worker;
      next.takenAt = new Date(now).toISOString();
      next.leaseMs = leaseMs;
      next.attempts += 1;
      this.#served.set(next.key, ++this.#turn);
      taken.push(publicEntry(next));
    }
    return taken;
  }

  renew(worker: string, runIds: readonly string[]): string[] {
    const at = new Date().toISOString();
    return runIds.filter((runId) => {
      const entry = this.#entries.get(runId);
      if (entry?.takenBy !== worker) return false;
      entry.takenAt = at;
      return true;
    });
  }

  finish(runId: string, worker: string): boolean {
    if (this.#entries.get(runId)?.takenBy !== worker) return false;
    return this.#entries.delete(runId);
  }

  giveBack(runId: string, worker: string, availableAt: string): boolean {
    const entry = this.#entries.get(runId);
    if (entry?.takenBy !== worker) return false;
    Object.assign(entry, { takenBy: null, takenAt: null, availableAt });
    entry.attempts -= 1;
    this.#notify();
    return true;
  }

  dropWaiting(runId: string): boolean {
    const entry = this.#entries.get(runId);
    if (!entry || entry.takenBy !== null) return false;
    return this.#entries.delete(runId);
  }

  /** An entry removed with its run (retention, a cancelled run's cleanup). */
  forget(runId: string): void {
    this.#entries.delete(runId);
  }

  entry(runId: string): QueueEntry | null {
    const entry = this.#entries.get(runId);
    return entry ? publicEntry(entry) : null;
  }

  list(limit: number): QueueEntry[] {
    return [...this.#entries.values()]
      .sort((a, b) => b.priority - a.priority || a.order - b.order)
      .slice(0, Math.max(0, limit))
      .map(publicEntry);
  }

  takeToken(bucket: string, rate: RateLimit): TokenResult {
    const now = Date.now();
    const tokens = this.#tokens(bucket, rate, now);
    if (tokens < 1) return { ok: false, retryAfterMs: msUntilToken(tokens, rate) };
    this.#buckets.set(bucket, { tokens: tokens - 1, at: now });
    return { ok: true };
  }

  watch(onEnqueued: () => void): () => void {
    this.#watchers.add(onEnqueued);
    return () => this.#watchers.delete(onEnqueued);
  }

  /** Entries a worker may take now, in the order it takes them. */
  #candidates(now: number): Held[] {
    return [...this.#entries.values()]
      .filter((entry) =>
        entry.takenBy === null ? Date.parse(entry.availableAt) <= now : lapsed(entry, now),
      )
      .sort(
        (a, b) =>
          b.priority - a.priority ||
          (this.#served.get(a.key) ?? 0) - (this.#served.get(b.key) ?? 0) ||
          a.order - b.order,
      );
  }

  /** Whether the entry's origin and key have a free slot and a token. */
  #fits(entry: Held, now: number): boolean {
    const { concurrency, rate } = entry.limits;
    if (concurrency !== null) {
      let playing = 0;
      for (const other of this.#entries.values()) {
        if (other === entry || other.takenBy === null || lapsed(other, now)) continue;
        if (other.origin === entry.origin && other.key === entry.key) playing += 1;
      }
      if (playing >= concurrency) return false;
    }
    return rate === null || this.#tokens(rateBucket(entry.origin, entry.key), rate, now) >= 1;
  }

  #tokens(bucket: string, rate: RateLimit, now: number): number {
    const held = this.#buckets.get(bucket);
    return held ? refilled(held.tokens, now - held.at, rate) : rate.limit;
  }

  #spend(bucket: string, rate: RateLimit, now: number): void {
    this.#buckets.set(bucket, { tokens: this.#tokens(bucket, rate, now) - 1, at: now });
  }

  #notify(): void {
    for (const watcher of this.#watchers) queueMicrotask(watcher);
  }
}

function lapsed(entry: Held, now: number): boolean {
  return entry.takenAt !== null && now - Date.parse(entry.takenAt) > entry.leaseMs;
}

function publicEntry(entry: Held): QueueEntry {
  const { order: _order, leaseMs: _leaseMs, ...rest } = entry;
  return { ...rest, limits: { ...rest.limits } };
}
