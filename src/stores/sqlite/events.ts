/**
 * The event store on `node:sqlite`: the embedded default (`./.agentdeck/state.db`). Several
 * processes may share the file (a server and `service runs signal`, two servers on one
 * machine), so it runs in WAL mode with a busy timeout, and every write that reads before
 * it writes does so inside `BEGIN IMMEDIATE`, holding the write lock from the read on.
 *
 * Appends are the hot path: a streamed turn stores each token before yielding it. A lone
 * non-lifecycle event of a run this connection wrote last is one INSERT, with `seq` taken
 * from an in-process cache of the run's tail. The cache is validated by the (run_id, seq)
 * primary key rather than trusted: if another connection wrote to the run since, that seq
 * is already taken (seqs are gap-free, so every seq up to the true tail exists), the INSERT
 * fails, and the append is redone on the slow path, which reads the tail inside the write
 * transaction. Lifecycle events (`run.*`), a run's first event and batches take the slow
 * path, which also maintains the run index.
 *
 * Each commit costs a fixed number of lock and write system calls, which bounds one-event
 * appends to roughly 40-60k/s on a small VM. `groupCommit` lifts that bound for token
 * streams: see {@link SqliteEventStoreOptions.groupCommit} for what it trades.
 */
import { mkdirSync, realpathSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import {
  DatabaseSync,
  type SQLInputValue,
  type SQLOutputValue,
  type StatementSync,
} from 'node:sqlite';
import { DeckError, errorMessage, StoreError } from '../../core/errors.js';
import type { ControlVerb } from '../../core/event-kinds.js';
import { EVENT_SCHEMA_VERSION, type Event, isTerminal, type NewEvent } from '../../core/events.js';
import { nextStatus, type RunStatus } from '../../core/status.js';
import type {
  ClaimHolder,
  ClaimRequest,
  ClaimResult,
  ControlRequest,
  EventStore,
  ListRunsFilter,
  ReadOptions,
  RunSummary,
} from '../../core/store.js';
import { DEFAULT_LIST_LIMIT } from '../memory/events.js';
import {
  eventFromStored,
  isStale,
  nextTimestamp,
  type PreparedEvent,
  prepareEvents,
  stampPrepared,
} from '../memory/stored-event.js';
import { EVENT_STORE_MIGRATIONS, migrate } from './migrations.js';

/** Options for {@link SqliteEventStore}. */
export interface SqliteEventStoreOptions {
  /** The database file (`':memory:'` for a private one); its directory is created if missing. */
  path: string;
  /** How long a write waits for another process's lock before failing, in ms. @default 5000 */
  busyTimeoutMs?: number;
  /**
   * Commit `text.delta` and `thought.delta` appends together: the first one opens a write
   * transaction, later ones join it, and it commits at the end of the event-loop turn, after
   * {@link GROUP_COMMIT_MAX_EVENTS} events, or with the next event of any other kind (which
   * is therefore durable when its `append` resolves, as in the default mode). What it trades:
   * another process sees a delta, and can write to the file, up to one turn later; a process
   * crash loses the current turn's deltas; and another connection *in this process* that
   * writes to the same file while a group is open waits out its busy timeout, since the turn
   * cannot end while it waits. Stores in this module flush each other's groups first; other
   * code writing to the same file must call {@link SqliteEventStore.flushGroupCommits}.
   * @default false
   */
  groupCommit?: boolean;
}

const DEFAULTS = { busyTimeoutMs: 5_000, groupCommit: false };

/** Most events one group commit holds before it commits early. */
export const GROUP_COMMIT_MAX_EVENTS = 1_000;

/** Runs whose tail (last seq and ts) a store caches for the one-INSERT append path. */
const TAIL_CACHE_SIZE = 1_024;

/** The kinds a group commit may hold back: a streamed turn's token deltas. */
const GROUPABLE_KINDS = new Set(['text.delta', 'thought.delta']);

/** Stores with an open group commit, by database file, so a store can flush the others. */
const openGroups = new Map<string, Set<SqliteEventStore>>();

/** SQLite's extended result code for a PRIMARY KEY violation. */
const SQLITE_CONSTRAINT_PRIMARYKEY = 1555;

const SQL = {
  begin: 'BEGIN IMMEDIATE',
  commit: 'COMMIT',
  rollback: 'ROLLBACK',
  savepoint: 'SAVEPOINT append',
  releaseSavepoint: 'RELEASE append',
  rollbackSavepoint: 'ROLLBACK TO append',
  insertEvent: `INSERT INTO events (run_id, seq, v, kind, session_id, namespace, origin, ts, payload)
    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  tail: 'SELECT seq, ts FROM events WHERE run_id = ? ORDER BY seq DESC LIMIT 1',
  read: `SELECT seq, v, kind, session_id, namespace, origin, ts, payload FROM events
    WHERE run_id = ? AND seq > ? ORDER BY seq`,
  runStatus: 'SELECT status FROM runs WHERE run_id = ?',
  insertRun: `INSERT INTO runs (run_id, origin, session_id, namespace, status, started_at)
    VALUES (?, ?, ?, ?, ?, ?)`,
  updateStatus: 'UPDATE runs SET status = ? WHERE run_id = ?',
  getRun: `SELECT r.run_id, r.origin, r.session_id, r.namespace, r.status, r.started_at,
      e.seq AS last_seq, e.ts AS updated_at
    FROM runs r JOIN events e ON e.run_id = r.run_id
    WHERE r.run_id = ? ORDER BY e.seq DESC LIMIT 1`,
  claimHolder: 'SELECT run_id, claimed_at FROM claims WHERE key = ?',
  setClaim: `INSERT INTO claims (key, run_id, claimed_at) VALUES (?, ?, ?)
    ON CONFLICT (key) DO UPDATE SET run_id = excluded.run_id, claimed_at = excluded.claimed_at`,
  release: 'DELETE FROM claims WHERE key = ? AND run_id = ?',
  insertControl: `INSERT INTO control_requests (request_id, run_id, verb, reason, requested_at)
    VALUES (?, ?, ?, ?, ?)`,
  readControl: `SELECT request_id, run_id, verb, reason, requested_at FROM control_requests
    WHERE run_id = ? ORDER BY id`,
} as const;

type Statements = { [K in keyof typeof SQL]: StatementSync };

/** A run's last stored event, as far as this connection knows. */
interface Tail {
  seq: number;
  ts: string;
}

type Row = Record<string, SQLOutputValue>;

/** An open group commit: a write transaction holding streamed deltas. */
interface Group {
  events: number;
  timer: NodeJS.Immediate;
}

/**
 * An `EventStore` in an SQLite file, shared safely by several processes.
 *
 * @example
 * ```ts
 * const store = new SqliteEventStore({ path: './.agentdeck/state.db' });
 * await store.append([{ kind: 'run.started', runId: 'r1', sessionId: null, namespace: null,
 *   origin: 'helper', payload: { invocableType: 'agent', input: [new TextBlock('Hi')] } }]);
 * (await store.getRun('r1'))?.status; // 'running'
 * await store.close();
 * ```
 */
export class SqliteEventStore implements EventStore {
  /** The database file. */
  readonly path: string;
  readonly #key: string;
  readonly #db: DatabaseSync;
  readonly #sql: Statements;
  readonly #groupCommit: boolean;
  readonly #listStatements = new Map<string, StatementSync>();
  /** Tails of runs this connection wrote last; validated by the primary key on use. */
  readonly #tails = new Map<string, Tail>();
  #group: Group | null = null;
  /** A group commit that failed after its appends had resolved; the next call reports it. */
  #lost: StoreError | null = null;
  #closed = false;

  /**
   * Commit the open group commits of every store in this process on `path`, so that a write
   * through another connection to that file does not wait on them. Errors are kept and
   * reported by each store's next call.
   */
  static flushGroupCommits(path: string): void {
    for (const store of openGroups.get(fileKey(path)) ?? []) store.#commitGroupLater();
  }

  constructor(options: SqliteEventStoreOptions) {
    const { path, busyTimeoutMs, groupCommit } = { ...DEFAULTS, ...options };
    this.path = path;
    this.#groupCommit = groupCommit;
    let db: DatabaseSync | undefined;
    try {
      const inMemory = path === ':memory:';
      if (!inMemory) mkdirSync(dirname(path), { recursive: true });
      this.#key = inMemory ? `:memory:${crypto.randomUUID()}` : fileKey(path);
      db = new DatabaseSync(path, { timeout: busyTimeoutMs });
      db.exec('PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL;');
      migrate(db, 'events', EVENT_STORE_MIGRATIONS);
      const open = db;
      this.#sql = Object.fromEntries(
        Object.entries(SQL).map(([name, sql]) => [name, open.prepare(sql)]),
      ) as Statements;
      this.#db = db;
    } catch (error) {
      db?.close();
      throw new StoreError(
        `could not open the SQLite event store at '${path}': ${errorMessage(error)}; ` +
          'check that the directory can be created and the file is writable',
        { cause: error },
      );
    }
  }

  async append(events: readonly NewEvent[]): Promise<Event[]> {
    this.#open();
    const prepared = prepareEvents(events);
    if (prepared.length === 0) return [];
    return this.#guard('append events', () => {
      const [only] = prepared;
      if (prepared.length === 1 && only && !only.lifecycle) {
        const fast = this.#appendCached(only);
        if (fast) return [fast];
      }
      return this.#appendInTransaction(prepared);
    });
  }

  async read(runId: string, options: ReadOptions = {}): Promise<Event[]> {
    this.#open();
    return this.#guard(`read run '${runId}'`, () =>
      this.#sql.read.all(runId, options.afterSeq ?? -1).map((row) =>
        eventFromStored({
          runId,
          seq: Number(row.seq),
          v: Number(row.v),
          kind: String(row.kind),
          sessionId: row.session_id as string | null,
          namespace: row.namespace as string | null,
          origin: String(row.origin),
          ts: String(row.ts),
          payload: String(row.payload),
        }),
      ),
    );
  }

  async listRuns(filter: ListRunsFilter = {}): Promise<RunSummary[]> {
    this.#open();
    const where: string[] = [];
    const params: SQLInputValue[] = [];
    const add = (clause: string, value: string | undefined) => {
      if (value === undefined) return;
      where.push(clause);
      params.push(value);
    };
    add('r.status = ?', filter.status);
    add('r.origin = ?', filter.origin);
    add('r.session_id = ?', filter.sessionId);
    add('r.started_at < ?', filter.startedBefore);
    params.push(Math.max(0, filter.limit ?? DEFAULT_LIST_LIMIT));
    // updated_at and last_seq come from each run's last event (one primary-key probe each).
    const sql = `SELECT r.run_id, r.origin, r.session_id, r.namespace, r.status, r.started_at,
        (SELECT seq FROM events e WHERE e.run_id = r.run_id ORDER BY seq DESC LIMIT 1) AS last_seq,
        (SELECT ts FROM events e WHERE e.run_id = r.run_id ORDER BY seq DESC LIMIT 1) AS updated_at
      FROM runs r ${where.length ? `WHERE ${where.join(' AND ')}` : ''}
      ORDER BY r.started_at DESC, r.rowid DESC LIMIT ?`;
    return this.#guard('list runs', () => {
      let statement = this.#listStatements.get(sql);
      if (!statement) {
        statement = this.#db.prepare(sql);
        this.#listStatements.set(sql, statement);
      }
      return statement.all(...params).map(toSummary);
    });
  }

  async getRun(runId: string): Promise<RunSummary | null> {
    this.#open();
    return this.#guard(`read run '${runId}'`, () => {
      const row = this.#sql.getRun.get(runId);
      return row ? toSummary(row) : null;
    });
  }

  async claim(request: ClaimRequest): Promise<ClaimResult> {
    this.#open();
    const { key, runId, staleAfterMs } = request;
    return this.#guard(`claim '${key}'`, () =>
      this.#transaction((): ClaimResult => {
        const row = this.#sql.claimHolder.get(key);
        const holder = row ? toHolder(row) : null;
        const now = Date.now();
        if (holder && holder.runId !== runId && !isStale(holder, staleAfterMs, now)) {
          return { acquired: false, holder };
        }
        // Re-claiming renews: a run that claims again is alive, so its stale clock restarts.
        this.#sql.setClaim.run(key, runId, new Date(now).toISOString());
        const tookOverFrom = holder && holder.runId !== runId ? holder : null;
        return { acquired: true, tookOverFrom };
      }),
    );
  }

  async release(key: string, runId: string): Promise<boolean> {
    this.#open();
    return this.#guard(`release '${key}'`, () => {
      return Number(this.#sql.release.run(key, runId).changes) > 0;
    });
  }

  async claimHolder(key: string): Promise<ClaimHolder | null> {
    this.#open();
    return this.#guard(`read claim '${key}'`, () => {
      const row = this.#sql.claimHolder.get(key);
      return row ? toHolder(row) : null;
    });
  }

  async recordControl(
    runId: string,
    verb: ControlVerb,
    reason: string | null,
  ): Promise<ControlRequest> {
    this.#open();
    const request: ControlRequest = {
      requestId: crypto.randomUUID(),
      runId,
      verb,
      reason,
      requestedAt: new Date().toISOString(),
    };
    return this.#guard(`record a ${verb} request for run '${runId}'`, () => {
      const { requestId, requestedAt } = request;
      this.#sql.insertControl.run(requestId, runId, verb, reason, requestedAt);
      return request;
    });
  }

  async readControl(runId: string): Promise<ControlRequest[]> {
    this.#open();
    return this.#guard(`read control requests of run '${runId}'`, () =>
      this.#sql.readControl.all(runId).map((row) => ({
        requestId: String(row.request_id),
        runId: String(row.run_id),
        verb: row.verb as ControlVerb,
        reason: row.reason as string | null,
        requestedAt: String(row.requested_at),
      })),
    );
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.#tails.clear();
    try {
      this.#db.close();
    } catch (error) {
      throw new StoreError(`could not close the SQLite event store at '${this.path}'`, {
        cause: error,
      });
    }
  }

  /** One autocommit INSERT at the cached tail; `null` when the slow path must decide. */
  #appendCached(item: PreparedEvent): Event | null {
    const tail = this.#tails.get(item.event.runId);
    if (!tail) return null;
    const seq = tail.seq + 1;
    const ts = nextTimestamp(tail.ts);
    try {
      this.#insert(item, seq, ts);
    } catch (error) {
      this.#tails.delete(item.event.runId);
      if (isPrimaryKeyViolation(error)) return null; // another connection wrote to the run
      throw error;
    }
    tail.seq = seq;
    tail.ts = ts;
    return stampPrepared(item, seq, ts);
  }

  #appendInTransaction(prepared: PreparedEvent[]): Event[] {
    const tails = new Map<string, Tail & { status: RunStatus | null }>();
    const stored = this.#transaction(() =>
      prepared.map((item) => {
        const { runId } = item.event;
        let tail = tails.get(runId);
        if (!tail) {
          const last = this.#sql.tail.get(runId);
          const status = this.#sql.runStatus.get(runId)?.status;
          tail = {
            seq: last ? Number(last.seq) : -1,
            ts: last ? String(last.ts) : '',
            status: typeof status === 'string' ? (status as RunStatus) : null,
          };
          tails.set(runId, tail);
        }
        const seq = tail.seq + 1;
        const ts = nextTimestamp(tail.ts);
        const event = stampPrepared(item, seq, ts);
        this.#insert(item, seq, ts);
        if (tail.status === null) {
          tail.status = nextStatus(null, event);
          const { origin, sessionId, namespace } = item.event;
          this.#sql.insertRun.run(runId, origin, sessionId, namespace, tail.status, ts);
        } else if (item.lifecycle) {
          const status = nextStatus(tail.status, event);
          if (status !== tail.status) this.#sql.updateStatus.run(status, runId);
          tail.status = status;
        }
        tail.seq = seq;
        tail.ts = ts;
        return event;
      }),
    );
    // Only after COMMIT: the cache must never hold a tail that was rolled back.
    for (const [runId, { seq, ts }] of tails) this.#cacheTail(runId, { seq, ts });
    for (const event of stored) if (isTerminal(event)) this.#tails.delete(event.runId);
    return stored;
  }

  #insert(item: PreparedEvent, seq: number, ts: string): void {
    const { event, kind, payload } = item;
    const { runId, sessionId, namespace, origin } = event;
    const v = EVENT_SCHEMA_VERSION;
    this.#sql.insertEvent.run(runId, seq, v, kind, sessionId, namespace, origin, ts, payload);
  }

  #cacheTail(runId: string, tail: Tail): void {
    this.#tails.delete(runId);
    this.#tails.set(runId, tail);
    if (this.#tails.size > this.#tailCacheSize) {
      const oldest = this.#tails.keys().next();
      if (!oldest.done) this.#tails.delete(oldest.value);
    }
  }

  #transaction<T>(body: () => T): T {
    this.#sql.begin.run();
    try {
      const result = body();
      this.#sql.commit.run();
      return result;
    } catch (error) {
      if (this.#db.isTransaction) this.#sql.rollback.run();
      throw error;
    }
  }

  /** Run a driver call, turning a driver failure into a `StoreError` that names the file. */
  #guard<T>(what: string, body: () => T): T {
    try {
      return body();
    } catch (error) {
      if (error instanceof DeckError) throw error;
      throw new StoreError(
        `SQLite event store at '${this.path}' could not ${what}: ${errorMessage(error)}`,
        { cause: error },
      );
    }
  }

  #open(): void {
    if (this.#closed) {
      throw new StoreError(`the SQLite event store at '${this.path}' is closed; open a new one`);
    }
  }
}

function isPrimaryKeyViolation(error: unknown): boolean {
  return (error as { errcode?: unknown } | null)?.errcode === SQLITE_CONSTRAINT_PRIMARYKEY;
}

function toSummary(row: Row): RunSummary {
  return {
    runId: String(row.run_id),
    origin: String(row.origin),
    sessionId: row.session_id as string | null,
    namespace: row.namespace as string | null,
    status: row.status as RunStatus,
    startedAt: String(row.started_at),
    updatedAt: String(row.updated_at),
    lastSeq: Number(row.last_seq),
  };
}

function toHolder(row: Row): ClaimHolder {
  return { runId: String(row.run_id), claimedAt: String(row.claimed_at) };
}
