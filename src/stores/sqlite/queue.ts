/**
 * The SQLite event store's run queue (the RunQueue ability, core/queue.ts; the memory backend's
 * `MemoryQueue` is the reference). Entries, the turns of keys and the token buckets are tables
 * of the event store's file (migration 8), so every process on the file shares them.
 *
 * `enqueue` writes the `run.queued` event and the entry in one transaction of the appender
 * (which joins an open group commit; the store awaits its commit before it resolves). Every
 * other write commits at once, after committing this connection's group and flushing the
 * others' on the file (`GroupCommit.transaction` and `beforeWrite`). `take` reads and writes
 * inside one `BEGIN IMMEDIATE` transaction: SQLite lets one writer at a time hold the file,
 * so two processes (or two connections) never take one entry, and the fair turns, the live
 * holds and the buckets it reads are the ones it writes against. It picks one entry at a time
 * (the candidates query is ordered by priority, the key's last turn, enqueue order), so the
 * keys take turns within one call as well. SQLite cannot wake another process: `watchQueue`
 * calls the watchers of the stores of this process on the same file; workers elsewhere poll.
 */
import type { DatabaseSync, SQLOutputValue, StatementSync } from 'node:sqlite';
import { ConflictError, InvalidInputError, StoreError } from '../../core/errors.js';
import type { Event, NewEvent } from '../../core/events.js';
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
import { requireQueued } from '../shared/queue.js';
import { prepareEvents } from '../shared/stored-event.js';
import type { Appender, Written } from './append.js';
import { prepareAll } from './database.js';
import type { GroupCommit } from './group-commit.js';

/** The columns of an entry (`QueueEntry`), each prefixed by `table`. */
function columns(table = ''): string {
  return ['run_id', 'origin', 'session_id', 'namespace', 'key', 'priority', 'concurrency']
    .concat(['rate_limit', 'rate_period_ms', 'enqueued_at', 'available_at', 'attempts'])
    .concat(['taken_by', 'taken_at'])
    .map((column) => `${table}${column}`)
    .join(', ');
}
const COLUMNS = columns();

export const QUEUE_SQL = {
  insert: `INSERT INTO queue_entries (run_id, origin, session_id, namespace, key, priority,
      concurrency, rate_limit, rate_period_ms, enqueued_at, available_at, ready_at)
    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  // `queue_by_ready`: one range per origin; the few available entries are then sorted.
  candidates: `SELECT q.seq, ${columns('q.')}, coalesce(t.turn, 0) AS turn
    FROM queue_entries q LEFT JOIN queue_turns t ON t.key = q.key
    WHERE q.origin IN (SELECT value FROM json_each(?1)) AND q.ready_at <= ?2
    ORDER BY q.priority DESC, turn, q.seq`,
  // Live holds: held and not lapsed (`ready_at` of a held entry is when its hold lapses).
  liveHolds: `SELECT count(*) AS n FROM queue_entries
    WHERE origin = ? AND key = ? AND taken_by IS NOT NULL AND ready_at > ?`,
  hold: `UPDATE queue_entries SET taken_by = ?, taken_at = ?, lease_ms = ?, ready_at = ?,
      attempts = attempts + 1
    WHERE seq = ? RETURNING ${COLUMNS}`,
  serve: `INSERT INTO queue_turns (key, turn)
    VALUES (?, (SELECT coalesce(max(turn), 0) + 1 FROM queue_turns))
    ON CONFLICT (key) DO UPDATE SET turn = excluded.turn`,
  renew: `UPDATE queue_entries SET taken_at = ?, ready_at = ? + lease_ms + 1
    WHERE taken_by = ? AND run_id IN (SELECT value FROM json_each(?)) RETURNING run_id`,
  finish: 'DELETE FROM queue_entries WHERE run_id = ? AND taken_by = ?',
  giveBack: `UPDATE queue_entries SET taken_by = NULL, taken_at = NULL, lease_ms = 0,
      available_at = ?, ready_at = ?, attempts = attempts - 1
    WHERE run_id = ? AND taken_by = ?`,
  drop: 'DELETE FROM queue_entries WHERE run_id = ? AND taken_by IS NULL',
  entry: `SELECT ${COLUMNS} FROM queue_entries WHERE run_id = ?`,
  list: `SELECT ${COLUMNS} FROM queue_entries ORDER BY priority DESC, seq LIMIT ?`,
  bucket: 'SELECT tokens, updated_at FROM queue_buckets WHERE bucket = ?',
  setBucket: `INSERT INTO queue_buckets (bucket, tokens, updated_at) VALUES (?, ?, ?)
    ON CONFLICT (bucket) DO UPDATE SET tokens = excluded.tokens, updated_at = excluded.updated_at`,
} as const;

type Row = Record<string, SQLOutputValue>;

/** The watchers of each database file in this process (`watchQueue`). */
const watchersByFile = new Map<string, Set<() => void>>();

/** One connection's queue: its prepared statements, and its watchers. */
export class SqliteQueue {
  readonly #sql: { [K in keyof typeof QUEUE_SQL]: StatementSync };
  readonly #appender: Appender;
  readonly #writes: GroupCommit;
  /** The file's key (see `fileKey`), or a key of its own for a private database. */
  readonly #file: string;
  readonly #mine = new Set<() => void>();

  constructor(db: DatabaseSync, appender: Appender, writes: GroupCommit, file: string) {
    this.#sql = prepareAll(db, QUEUE_SQL);
    this.#appender = appender;
    this.#writes = writes;
    this.#file = file;
  }

  /** Write `event` (a `run.queued`, the run's first) and its entry in one transaction. */
  enqueue(event: NewEvent, limits: QueueLimits): Written<Event> {
    requireQueued(event, limits);
    const prepared = prepareEvents([event]);
    return this.#appender.inTransaction((insert, status) => {
      if (status(event.runId) !== null) {
        throw new ConflictError(`run '${event.runId}' already exists; a queued run needs a new id`);
      }
      const [stored] = insert(prepared);
      if (stored?.kind !== 'run.queued') throw new StoreError('the queued run was not stored');
      const { runId, origin, sessionId, namespace, ts, payload } = stored;
      const { concurrency, rate } = limits;
      this.#sql.insert.run(
        ...[runId, origin, sessionId, namespace, payload.key, payload.priority, concurrency],
        ...[rate?.limit ?? null, rate?.periodMs ?? null, ts, ts, Date.parse(ts)],
      );
      return stored;
    });
  }

  take({ worker, origins, max, leaseMs }: TakeRequest): QueueEntry[] {
    if (max < 1 || origins.length === 0) return [];
    const served = JSON.stringify(origins);
    return this.#writes.transaction(() => {
      const now = Date.now();
      const at = new Date(now).toISOString();
      const taken: QueueEntry[] = [];
      while (taken.length < max) {
        const next = this.#next(served, now);
        if (!next) break;
        const { origin, key } = toEntry(next);
        const rate = rateOf(next);
        if (rate) this.#spend(rateBucket(origin, key), rate, now);
        const row = this.#sql.hold.get(
          worker,
          at,
          leaseMs,
          now + leaseMs + 1,
          Number(next.seq),
        ) as Row;
        this.#sql.serve.run(key);
        taken.push(toEntry(row));
      }
      return taken;
    });
  }

  renew(worker: string, runIds: readonly string[]): string[] {
    if (runIds.length === 0) return [];
    const now = Date.now();
    this.#writes.beforeWrite();
    const rows = this.#sql.renew.all(
      new Date(now).toISOString(),
      now,
      worker,
      JSON.stringify(runIds),
    );
    const renewed = new Set(rows.map((row) => String(row.run_id)));
    return runIds.filter((runId) => renewed.has(runId));
  }

  finish(runId: string, worker: string): boolean {
    this.#writes.beforeWrite();
    return Number(this.#sql.finish.run(runId, worker).changes) > 0;
  }

  giveBack(runId: string, worker: string, availableAt: string): boolean {
    const readyAt = Date.parse(availableAt);
    if (Number.isNaN(readyAt)) {
      throw new InvalidInputError(`giveBack needs an ISO 8601 time, got '${availableAt}'`);
    }
    this.#writes.beforeWrite();
    const changed = Number(this.#sql.giveBack.run(availableAt, readyAt, runId, worker).changes) > 0;
    if (changed) this.notify();
    return changed;
  }

  dropWaiting(runId: string): boolean {
    this.#writes.beforeWrite();
    return Number(this.#sql.drop.run(runId).changes) > 0;
  }

  entry(runId: string): QueueEntry | null {
    this.#writes.flushOthers();
    const row = this.#sql.entry.get(runId);
    return row ? toEntry(row) : null;
  }

  list(limit: number): QueueEntry[] {
    this.#writes.flushOthers();
    return this.#sql.list.all(Math.max(0, Math.floor(limit))).map(toEntry);
  }

  takeToken(bucket: string, rate: RateLimit): TokenResult {
    return this.#writes.transaction(() => {
      const now = Date.now();
      const tokens = this.#tokens(bucket, rate, now);
      if (tokens < 1) return { ok: false, retryAfterMs: msUntilToken(tokens, rate) };
      this.#sql.setBucket.run(bucket, tokens - 1, now);
      return { ok: true };
    });
  }

  watch(onEnqueued: () => void): () => void {
    const watchers = watchersByFile.get(this.#file) ?? new Set();
    watchersByFile.set(this.#file, watchers.add(onEnqueued));
    this.#mine.add(onEnqueued);
    return () => this.#unwatch(onEnqueued);
  }

  /** Wake the watchers of every store of this process on the file. */
  notify(): void {
    for (const watcher of watchersByFile.get(this.#file) ?? []) queueMicrotask(watcher);
  }

  /** Drop this store's watchers (it closes). */
  close(): void {
    for (const watcher of this.#mine) this.#unwatch(watcher);
  }

  #unwatch(watcher: () => void): void {
    this.#mine.delete(watcher);
    const watchers = watchersByFile.get(this.#file);
    watchers?.delete(watcher);
    if (watchers?.size === 0) watchersByFile.delete(this.#file);
  }

  /** The first candidate whose origin and key have a free slot and a token; `null`: none. */
  #next(origins: string, now: number): Row | null {
    const live = new Map<string, number>();
    for (const row of this.#sql.candidates.iterate(origins, now)) {
      const { origin, key, limits } = toEntry(row);
      if (limits.concurrency !== null) {
        const slot = `${origin}\u0000${key}`;
        let playing = live.get(slot);
        if (playing === undefined) {
          playing = Number((this.#sql.liveHolds.get(origin, key, now) as Row).n);
          live.set(slot, playing);
        }
        if (playing >= limits.concurrency) continue;
      }
      if (limits.rate && this.#tokens(rateBucket(origin, key), limits.rate, now) < 1) continue;
      return row;
    }
    return null;
  }

  #tokens(bucket: string, rate: RateLimit, now: number): number {
    const row = this.#sql.bucket.get(bucket);
    if (!row) return rate.limit;
    return refilled(Number(row.tokens), now - Number(row.updated_at), rate);
  }

  #spend(bucket: string, rate: RateLimit, now: number): void {
    this.#sql.setBucket.run(bucket, this.#tokens(bucket, rate, now) - 1, now);
  }
}

function rateOf(row: Row): RateLimit | null {
  if (row.rate_limit === null) return null;
  return { limit: Number(row.rate_limit), periodMs: Number(row.rate_period_ms) };
}

function toEntry(row: Row): QueueEntry {
  const text = (value?: SQLOutputValue) => (value == null ? null : String(value));
  return {
    runId: String(row.run_id),
    origin: String(row.origin),
    sessionId: text(row.session_id),
    namespace: text(row.namespace),
    key: String(row.key),
    priority: Number(row.priority),
    limits: {
      concurrency: row.concurrency === null ? null : Number(row.concurrency),
      rate: rateOf(row),
    },
    enqueuedAt: String(row.enqueued_at),
    availableAt: String(row.available_at),
    attempts: Number(row.attempts),
    takenBy: text(row.taken_by),
    takenAt: text(row.taken_at),
  };
}
