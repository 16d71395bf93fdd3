/**
 * Appending to the SQLite event store, the hot path: a streamed turn stores each token
 * before yielding it. A lone non-lifecycle event of a run this connection wrote last is one
 * INSERT, with `seq` taken from an in-process cache of the run's tail. The cache is
 * validated by the (run_id, seq) primary key rather than trusted: if another connection
 * wrote to the run since, that seq is already taken (seqs are gap-free, so every seq up to
 * the true tail exists), the INSERT fails, and the append is redone on the slow path, which
 * reads the tail inside the write transaction. Lifecycle events (`run.*`), a run's first
 * event, batches and any event of a run that has ended take the slow path, which also
 * maintains the run index (an ended run's `ended_at` is its last event's `ts`).
 */
import { EVENT_SCHEMA_VERSION, type Event } from '../../core/events.js';
import { nextStatus, type RunStatus, TERMINAL_STATUSES } from '../../core/status.js';
import { compactEnvelope, compactTs, type RunEnvelope, tsText } from '../shared/rows.js';
import { nextTimestamp, type PreparedEvent, stampPrepared } from '../shared/stored-event.js';
import type { GroupCommit, HeldRow } from './group-commit.js';
import type { Statements } from './migrations.js';

/** Runs whose tail (last seq and ts) a connection caches for the one-INSERT append path. */
const TAIL_CACHE_SIZE = 1_024;

/** SQLite's extended result code for a PRIMARY KEY violation. */
const SQLITE_CONSTRAINT_PRIMARYKEY = 1555;

/** A write's result, and when it is durable (`null`: held by a group commit, see `append`). */
export interface Written<T> {
  result: T;
  durable: Promise<void> | null;
}

/** A run's last stored event, as far as this connection knows, and its run's envelope. */
interface Tail {
  seq: number;
  ts: string;
  /** What its `runs` row keeps (`null`: no row yet); an event's row stores only a difference. */
  run: RunEnvelope | null;
  /** Its status in the run index (`null`: no such run). */
  status: RunStatus | null;
  /**
   * The group (`GroupCommit.openGroup`) in which this connection last wrote at or read this
   * tail: within that group it is the run's tail. `null`: outside any group.
   */
  verifiedIn: number | null;
}

/** Kinds that begin a run: their run is taken to be new until its `runs` row says otherwise. */
const FIRST_KINDS: ReadonlySet<string> = new Set(['run.started', 'run.queued']);

/** The tail of a run with no events and no `runs` row. */
const NEW_RUN = (): Tail => ({ seq: -1, ts: '', run: null, status: null, verifiedIn: null });

/** One connection's appends, with its cache of run tails. */
export class Appender {
  readonly #sql: Statements;
  readonly #writes: GroupCommit;
  /** Tails of runs this connection wrote last; validated by the primary key on use. */
  readonly #tails = new Map<string, Tail>();

  constructor(sql: Statements, writes: GroupCommit) {
    this.#sql = sql;
    this.#writes = writes;
  }

  /**
   * Store `prepared` (not empty), assigning each event its `seq` and `ts`. `durable` settles
   * when the write is committed; `null` when the append is held in a group commit (its
   * caller goes on at once: see `GROUPABLE_KINDS`).
   */
  append(prepared: PreparedEvent[]): Written<Event[]> {
    const [only] = prepared;
    if (prepared.length === 1 && only && !only.lifecycle) {
      const fast = this.#appendCached(only);
      if (fast) return { result: [fast], durable: null };
    }
    return this.inTransaction((insert) => insert(prepared));
  }

  /** Forget the cached tails of `runIds` (pruned), or all (after a lost group commit, on close). */
  forget(runIds?: Iterable<string>): void {
    if (!runIds) this.#tails.clear();
    else for (const runId of runIds) this.#tails.delete(runId);
  }

  /**
   * One event at the cached tail; `null` when the slow path must decide. A held event of a
   * run whose tail was verified in the open group is buffered (`GroupCommit.holdRow`);
   * otherwise it is one INSERT, the (run_id, seq) key catching a tail another connection
   * moved, and the tail counts as verified for the rest of the group.
   */
  #appendCached(item: PreparedEvent): Event | null {
    const tail = this.#tails.get(item.event.runId);
    if (!tail) return null;
    const held = this.#writes.beforeAppend(item.kind);
    const group = this.#writes.openGroup;
    const seq = tail.seq + 1;
    const ts = nextTimestamp(tail.ts);
    if (held && group !== null && tail.verifiedIn === group) {
      this.#writes.holdRow(this.#row(item, seq, ts, tail.run));
    } else {
      try {
        this.#insert(item, seq, ts, tail.run);
      } catch (error) {
        this.#tails.delete(item.event.runId);
        if (isPrimaryKeyViolation(error)) return null; // another connection wrote to the run
        throw error;
      }
      tail.verifiedIn = group;
    }
    tail.seq = seq;
    tail.ts = ts;
    this.#writes.afterAppend(held);
    return stampPrepared(item, seq, ts);
  }

  /**
   * Run `body` in one write transaction (the claim a run starts or ends with, next to its
   * events); it inserts events, maintaining the run index, with the function it is given,
   * which also tells the status a run has there (`null`: no such run). It joins the open
   * group commit (see `GroupCommit.grouped`): the caller awaits `durable` before it goes on;
   * `held`: it resolves before the group commits (`GroupCommit.held`), `durable` is `null`.
   * The tails it wrote are cached at once; a group that fails to commit forgets them all.
   */
  inTransaction<T>(
    body: (
      insert: (prepared: PreparedEvent[]) => Event[],
      status: (runId: string) => RunStatus | null,
    ) => T,
    held = false,
  ): Written<T> {
    const tails = new Map<string, Tail>();
    // The body runs in the group (opened by `grouped`/`held` before it runs). A tail verified
    // in this group is the run's tail; a run begun by this write is taken to be new (its
    // `runs` row's key catches one that is not); any other tail is read.
    const tailOf = (runId: string, first?: PreparedEvent): Tail => {
      let tail = tails.get(runId);
      if (!tail) {
        const group = this.#writes.openGroup;
        const cached = this.#tails.get(runId);
        if (cached && group !== null && cached.verifiedIn === group) tail = { ...cached };
        else if (first && FIRST_KINDS.has(first.kind)) tail = NEW_RUN();
        else tail = this.#readTail(runId);
        tails.set(runId, tail);
      }
      return tail;
    };
    const insert = (prepared: PreparedEvent[]): Event[] => {
      // Runs whose row must be written after the batch: a new status, or a later end.
      const changed = new Set<string>();
      const events = prepared.map((item) => {
        const { runId } = item.event;
        let tail = tailOf(runId, item);
        if (tail.status === null) {
          const started = this.#startRun(item, tail);
          if (started) return started;
          // Taken for new, the run has a row after all: append after its stored tail.
          tail = this.#readTail(runId);
          tails.set(runId, tail);
        }
        const seq = tail.seq + 1;
        const ts = nextTimestamp(tail.ts);
        const event = stampPrepared(item, seq, ts);
        this.#insert(item, seq, ts, tail.run);
        const status = item.lifecycle ? nextStatus(tail.status, event) : tail.status;
        if (status !== tail.status || hasEnded(status)) changed.add(runId);
        tail.status = status;
        tail.seq = seq;
        tail.ts = ts;
        return event;
      });
      for (const runId of changed) {
        const { status, ts } = tailOf(runId);
        this.#sql.updateStatus.run(status, hasEnded(status) ? ts : null, runId);
      }
      return events;
    };
    const run = () => body(insert, (runId) => tailOf(runId).status);
    const written: Written<T> = held
      ? { result: this.#writes.held(run), durable: null }
      : this.#writes.grouped(run);
    // Only once the body's savepoint is released: a tail it rolled back must not be cached.
    // Nor the tail of a run that has ended: an event after its end moves `ended_at`, which
    // the one-INSERT path does not write, so such an event takes this path.
    const group = this.#writes.openGroup; // the group the body wrote in, if still open
    for (const [runId, tail] of tails) {
      if (tail.seq < 0) continue;
      if (hasEnded(tail.status)) this.#tails.delete(runId);
      else this.#cacheTail(runId, { ...tail, verifiedIn: group });
    }
    return written;
  }

  /**
   * A run's first event, with its `runs` row, at `tail` (no row yet as far as this write
   * knows). `null` when the row exists after all (a run taken for new, or another writer's
   * first event): nothing was written, and the caller reads the stored tail.
   */
  #startRun(item: PreparedEvent, tail: Tail): Event | null {
    const { runId, origin, sessionId, namespace } = item.event;
    const seq = tail.seq + 1;
    const ts = nextTimestamp(tail.ts);
    const event = stampPrepared(item, seq, ts);
    const status = nextStatus(null, event);
    const v = EVENT_SCHEMA_VERSION;
    const run = { v, sessionId, namespace, origin };
    const endedAt = hasEnded(status) ? ts : null;
    try {
      this.#sql.insertRun.run(runId, origin, sessionId, namespace, status, ts, endedAt, v);
    } catch (error) {
      if (isPrimaryKeyViolation(error)) return null;
      throw error;
    }
    this.#insert(item, seq, ts, run);
    Object.assign(tail, { seq, ts, run, status });
    return event;
  }

  /** A run's tail and index row as stored. */
  #readTail(runId: string): Tail {
    const last = this.#sql.tail.get(runId);
    const row = this.#sql.runRow.get(runId);
    return {
      seq: last ? Number(last.seq) : -1,
      ts: last ? tsText(last.ts) : '',
      status: row ? (row.status as RunStatus) : null,
      run: row
        ? {
            v: row.v === null ? null : Number(row.v),
            sessionId: row.session_id as string | null,
            namespace: row.namespace as string | null,
            origin: String(row.origin),
          }
        : null,
      verifiedIn: null,
    };
  }

  /** Insert the event's row. */
  #insert(item: PreparedEvent, seq: number, ts: string, run: RunEnvelope | null): void {
    this.#sql.insertEvent.run(...this.#row(item, seq, ts, run));
  }

  /** The event's row: its envelope only where it differs from its run's (`run`). */
  #row(item: PreparedEvent, seq: number, ts: string, run: RunEnvelope | null): HeldRow {
    const { event, kind, payload } = item;
    const env = compactEnvelope(EVENT_SCHEMA_VERSION, event, run);
    return [event.runId, seq, kind, compactTs(ts), payload, env];
  }

  #cacheTail(runId: string, tail: Tail): void {
    this.#tails.delete(runId);
    this.#tails.set(runId, tail);
    if (this.#tails.size > TAIL_CACHE_SIZE) {
      const oldest = this.#tails.keys().next();
      if (!oldest.done) this.#tails.delete(oldest.value);
    }
  }
}

/** Whether a run with this status has ended (`runs.ended_at` is then set). */
function hasEnded(status: RunStatus | null): boolean {
  return status !== null && TERMINAL_STATUSES.includes(status);
}

function isPrimaryKeyViolation(error: unknown): boolean {
  return (error as { errcode?: unknown } | null)?.errcode === SQLITE_CONSTRAINT_PRIMARYKEY;
}
