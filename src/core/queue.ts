/**
 * The run queue: a store ability (`RunQueue`) that holds background runs until a worker in
 * some process takes them. A queued run is a run like any other: its first event is
 * `run.queued` (status `queued`), and the queue holds one entry per run beside it, written in
 * the same commit. Workers take entries (exactly one worker holds an entry at a time), play
 * the run, and finish the entry when the run stops playing (ended, or waiting for a person or
 * a timer: such runs hold no slot). A worker renews its hold; an entry whose hold lapsed
 * (its process is gone) is taken again by another worker.
 *
 * Fair turns and limits are the store's, so that they hold across processes: within a
 * priority the key served least recently goes first, within a key the oldest entry; an
 * entry whose origin and key already play `concurrency` runs, or whose token bucket is
 * empty, waits. Backends implement it in `src/stores/<backend>/`; the contract is
 * `describeQueueContract` (src/testing/event-store-queue.ts). Docs: docs/background-runs.md.
 */
import type { Event, NewEvent } from './events.js';

/** A token bucket: at most `limit` starts per `periodMs`, refilled continuously. */
export interface RateLimit {
  limit: number;
  periodMs: number;
}

/** The limits an entry waits under, fixed when it is enqueued (from its agent or workflow). */
export interface QueueLimits {
  /** Most runs of this origin and key playing at once, across every process; `null`: none. */
  concurrency: number | null;
  /** The token bucket of this origin and key (see {@link rateBucket}); `null`: none. */
  rate: RateLimit | null;
}

export interface QueueEntry {
  runId: string;
  /** The agent or workflow. */
  origin: string;
  sessionId: string | null;
  namespace: string | null;
  /** The key its limits and fair turns count under. */
  key: string;
  /** Higher first. */
  priority: number;
  limits: QueueLimits;
  /** ISO 8601 UTC. */
  enqueuedAt: string;
  /** Not taken before this time (ISO 8601 UTC): a retry's backoff, or a busy session's wait. */
  availableAt: string;
  /** How many times a worker took it (and did not give it back untouched). */
  attempts: number;
  /** The worker holding it, or `null` while it waits. */
  takenBy: string | null;
  /** When its holder took or last renewed it (ISO 8601 UTC), or `null`. */
  takenAt: string | null;
}

export interface TakeRequest {
  /** The taking worker's id (one per process). */
  worker: string;
  /** Only entries of these agents and workflows: the ones the worker's deck serves. */
  origins: readonly string[];
  /** At most this many entries. */
  max: number;
  /** The worker renews its holds within this many ms; a hold not renewed for longer lapses. */
  leaseMs: number;
}

export type TokenResult = { ok: true } | { ok: false; retryAfterMs: number };

export interface RunQueue {
  /**
   * Append `event` (a `run.queued`, the run's first event) and its entry in one write;
   * ConflictError when the run already has events. Wakes the watchers (every process's, on a
   * backend shared by processes).
   */
  enqueue(event: NewEvent, limits: QueueLimits): Promise<Event>;
  /**
   * Take up to `max` entries of `origins` for `worker`: waiting ones that are available, and held ones
   * whose hold lapsed. Highest priority first; within a priority the key served least
   * recently first (fair turns), within a key the oldest first. An entry whose origin and key
   * hold `concurrency` live entries, or whose bucket has no token, is passed over (a token is
   * taken for each entry taken). Each taken entry: `takenBy`, `takenAt` now, `attempts` + 1.
   * No two workers ever hold one entry.
   */
  take(request: TakeRequest): Promise<QueueEntry[]>;
  /** Renew the worker's hold on `runIds`; the ids it still holds (another may have taken a lapsed one). */
  renewTaken(worker: string, runIds: readonly string[]): Promise<string[]>;
  /** Remove the entry `worker` holds (its run stopped playing); `false` when it does not hold it. */
  finishTaken(runId: string, worker: string): Promise<boolean>;
  /**
   * Give a held entry back untouched (its attempt not counted), available again at
   * `availableAt`: a busy session, a deck closing. `false` when `worker` does not hold it.
   */
  giveBack(runId: string, worker: string, availableAt: string): Promise<boolean>;
  /** Remove an entry no worker holds (a cancel before it started); `false` when held or absent. */
  dropWaiting(runId: string): Promise<boolean>;
  /** One entry, or `null`. */
  queueEntry(runId: string): Promise<QueueEntry | null>;
  /** Entries, highest priority then oldest first, at most `limit` (waiting and held alike). */
  listQueue(limit: number): Promise<QueueEntry[]>;
  /** Take a token of `bucket` for a synchronous start: `ok`, or how long until one is there. */
  takeToken(bucket: string, rate: RateLimit): Promise<TokenResult>;
  /** Call `onEnqueued` when an entry is enqueued or given back (by any process where it can); returns the unwatch. */
  watchQueue(onEnqueued: () => void): Promise<() => void>;
}

export function isRunQueue(store: object): store is RunQueue {
  return (
    typeof (store as Partial<RunQueue>).enqueue === 'function' &&
    typeof (store as Partial<RunQueue>).take === 'function'
  );
}

/** The token bucket shared by the queued and the synchronous starts of `origin` under `key`. */
export function rateBucket(origin: string, key: string): string {
  return `rate:${encodeURIComponent(origin)}:${key}`;
}

/** The tokens in a bucket after `elapsedMs` of refill, at most its limit. */
export function refilled(tokens: number, elapsedMs: number, rate: RateLimit): number {
  return Math.min(rate.limit, tokens + (Math.max(0, elapsedMs) * rate.limit) / rate.periodMs);
}

/** How long until a bucket holding `tokens` has one again, in ms (at least 1). */
export function msUntilToken(tokens: number, rate: RateLimit): number {
  return Math.max(1, Math.ceil(((1 - tokens) * rate.periodMs) / rate.limit));
}
