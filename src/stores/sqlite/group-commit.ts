/**
 * Group commit for the SQLite event store, and the write transactions that must respect it.
 * Each SQLite commit costs a fixed number of lock and write system calls, which bounds
 * one-event appends to roughly 40-60k/s on a small VM; a streamed turn appends one token
 * at a time, and every turn appends a handful of events between its `run.*` events. So the
 * events a run records while it plays ({@link GROUPABLE_KINDS}: deltas, usage reports, tool
 * calls, completed messages, node updates) that arrive in one event-loop turn share one
 * write transaction, with those of every other run this connection writes in that turn,
 * committed at the end of the turn, or after {@link GROUP_COMMIT_MAX_EVENTS} events; their
 * appends resolve at once. A run's start and end (a `run.*` event, with the claim taken or
 * released with it) and batches join the group too, but resolve only once it has committed
 * ({@link GroupCommit.grouped}), so they are durable when they resolve, with everything
 * before them, and the runs of one turn share that commit. Other writes (a claim renewal, a
 * control request) commit the group with themselves at once. An open group holds the file's write lock, so every
 * connection in this process flushes the others' groups (found in a registry by database
 * file) before it writes or reads; code outside this module calls {@link flushGroupCommits}.
 * A connection with grouping disabled still flushes the others.
 */
import { realpathSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import type { DatabaseSync, StatementSync } from 'node:sqlite';
import type { StoreError } from '../../core/errors.js';
import { storeFailure } from '../shared/driver-errors.js';
import type { Statements } from './migrations.js';

/** Most events one group commit holds before it commits early. */
export const GROUP_COMMIT_MAX_EVENTS = 1_000;

/**
 * The kinds a group commit may hold back: what a run records while it plays. Its `run.*`
 * events (start, end, pause, interrupt), control events and anything else commit at once.
 */
export const GROUPABLE_KINDS: ReadonlySet<string> = new Set([
  'text.delta',
  'thought.delta',
  'usage.reported',
  'tool.call.started',
  'tool.call.completed',
  'message.completed',
  'node.updated',
]);

/**
 * Each connection's GroupCommit, so another writer sharing the connection (the workflow
 * checkpointer, checkpointer.ts) can write inside its groups rather than commit them.
 */
const byConnection = new WeakMap<DatabaseSync, GroupCommit>();

/** The group commit of a store's connection, if a store made one for it. */
export function groupCommitOf(db: DatabaseSync): GroupCommit | undefined {
  return byConnection.get(db);
}

/** Connections with an open group commit, by database file, so one can flush the others. */
const openGroups = new Map<string, Set<GroupCommit>>();

/**
 * Commit the open group commits of every connection in this process on `path`, so that a
 * write through another connection to that file does not wait on them. Errors are kept and
 * reported by each store's next call.
 */
export function flushGroupCommits(path: string): void {
  for (const group of openGroups.get(fileKey(path)) ?? []) group.commitLater();
}

/** What a group commit needs of its connection. */
export interface GroupCommitConnection {
  /** The database file, as the store was given it (`':memory:'` for a private one). */
  path: string;
  db: DatabaseSync;
  sql: Statements;
}

/** An `events` row held in memory: `run_id, seq, kind, ts, payload, env`. */
export type HeldRow = [string, number, string, number | string, string, string | null];

/** Most rows one multi-row INSERT writes (6 parameters each, far below SQLite's limit). */
const ROWS_PER_INSERT = 64;

/** An open group: a write transaction holding streamed deltas and waiting lifecycle writes. */
interface OpenGroup {
  /** Held events whose appends have resolved: lost if the group fails to commit. */
  events: number;
  /** Writes that resolve when the group commits (a run's start, its end, a batch). */
  waiters: Array<{ resolve: () => void; reject: (error: unknown) => void }>;
  timer: NodeJS.Immediate;
}

const DURABLE: Promise<void> = Promise.resolve();

/**
 * One connection's writes: its group commit, if enabled, and the write transactions and
 * single-statement writes that must commit it (and flush other connections' groups) first.
 */
export class GroupCommit {
  readonly #connection: GroupCommitConnection;
  readonly #key: string;
  readonly #enabled: boolean;
  /** Called when a group fails to commit: the connection's cached run tails are now wrong. */
  readonly #onTailsWrong: () => void;
  #group: OpenGroup | null = null;
  /**
   * Rows of held events not yet inserted: a held append costs a push here, and they go to
   * the table in multi-row INSERTs before anything else runs on the connection (a commit, a
   * read, another write). Only while a group is open, for runs whose tail it verified.
   */
  #rows: HeldRow[] = [];
  /** Multi-row INSERT statements, by row count. */
  readonly #inserts = new Map<number, StatementSync>();
  /** Counts the groups this connection opened: the open one's number names it. */
  #generation = 0;
  /** A group commit that failed after its appends had resolved; the next call reports it. */
  #lost: StoreError | null = null;

  /** Called after each commit this connection makes (the checkpoint worker counts them). */
  readonly #onCommitted: () => void;

  constructor(
    connection: GroupCommitConnection,
    enabled: boolean,
    onTailsWrong: () => void,
    onCommitted: () => void = () => {},
  ) {
    const { path } = connection;
    this.#connection = connection;
    this.#key = path === ':memory:' ? `:memory:${crypto.randomUUID()}` : fileKey(path);
    this.#enabled = enabled;
    this.#onTailsWrong = onTailsWrong;
    this.#onCommitted = onCommitted;
    byConnection.set(connection.db, this);
  }

  /**
   * The number of the open group, or `null` when none is open. While a group is open this
   * connection holds the file's write lock, so nobody else can write until it commits: a run
   * tail this connection verified (wrote at, or read) in the open group is the run's tail, so
   * held events of that run may be buffered rather than inserted, and its tail need not be
   * read back.
   */
  get openGroup(): number | null {
    return this.#group ? this.#generation : null;
  }

  /**
   * Hold an `events` row in memory until the next statement on the connection (call only
   * for a run whose tail was verified in the {@link openGroup}): the per-event cost of a held
   * append is this push.
   */
  holdRow(row: HeldRow): void {
    this.#rows.push(row);
  }

  /** Insert the held rows, in multi-row INSERTs. Called before any other statement runs. */
  insertHeldRows(): void {
    const rows = this.#rows;
    const group = this.#group;
    if (rows.length === 0 || !group) return;
    this.#rows = [];
    try {
      for (let start = 0; start < rows.length; start += ROWS_PER_INSERT) {
        const chunk = rows.slice(start, start + ROWS_PER_INSERT);
        this.#insertStatement(chunk.length).run(...chunk.flat());
      }
    } catch (error) {
      // A full disk, say: the group cannot hold its events, so it ends as a failed commit would.
      throw this.#fail(group, error);
    }
  }

  #insertStatement(rows: number): StatementSync {
    let statement = this.#inserts.get(rows);
    if (!statement) {
      const values = Array.from({ length: rows }, () => '(?, ?, ?, ?, ?, ?)').join(', ');
      statement = this.#connection.db.prepare(
        `INSERT INTO events (run_id, seq, kind, ts, payload, env) VALUES ${values}`,
      );
      this.#inserts.set(rows, statement);
    }
    return statement;
  }

  /**
   * Before a one-event append of `kind`: whether the event joins a group (opening one when
   * it is the second delta of the turn). When it does not, other connections' groups are
   * flushed, since the insert would wait on them.
   */
  beforeAppend(kind: string): boolean {
    const held = this.#enabled && GROUPABLE_KINDS.has(kind) && this.#holdDelta();
    if (!held) this.flushOthers();
    return held;
  }

  /** After that append's insert: an event that was not held commits the group with it. */
  afterAppend(held: boolean): void {
    const group = this.#group;
    if (group && (!held || ++group.events >= GROUP_COMMIT_MAX_EVENTS)) this.commit();
    else if (!group) this.#onCommitted(); // an INSERT on its own commits itself
  }

  /**
   * Run `body` in a write transaction. With a group open, it runs inside the group (under a
   * savepoint, so a failure undoes only its own writes) and commits the group with it.
   */
  transaction<T>(body: () => T): T {
    const { db, sql } = this.#connection;
    this.insertHeldRows();
    if (this.#group) {
      const result = this.#underSavepoint(body);
      this.commit();
      return result;
    }
    this.flushOthers();
    sql.begin.run();
    try {
      const result = body();
      sql.commit.run();
      this.#onCommitted();
      return result;
    } catch (error) {
      if (db.isTransaction) sql.rollback.run();
      throw error;
    }
  }

  /**
   * Run `body` as part of the group (opening one), under a savepoint, and return its result
   * with a promise that settles when the group commits: a write that must be durable before
   * its caller goes on (a run's first or last event, with its claim) then shares the commit
   * of everything else written in this event-loop turn, rather than paying for one of its
   * own. Without grouping it is a {@link transaction}, durable at once.
   */
  grouped<T>(body: () => T): { result: T; durable: Promise<void> } {
    if (!this.#enabled) return { result: this.transaction(body), durable: DURABLE };
    if (!this.#group) this.#open();
    const group = this.#group as OpenGroup;
    this.insertHeldRows();
    const result = this.#underSavepoint(body);
    const durable = new Promise<void>((resolve, reject) => {
      group.waiters.push({ resolve, reject });
    });
    // No early commit for a long queue of waiting writes, unlike held events: the caller caches
    // the tails it wrote after this returns, and a commit failing in between would leave them.
    return { result, durable };
  }

  /**
   * Run `body` as part of the group (opening one) and return its result at once, before the
   * group commits: for a write nobody has been told of yet (a claim, a run's first event). While the group is open this connection holds the file's write lock, so no
   * other writer can read past it or take what it took; a crash loses it together with
   * everything written after it, never alone. Like a held event, a group that fails to
   * commit reports it on the store's next call. Without grouping it is a {@link transaction}.
   */
  held<T>(body: () => T): T {
    if (!this.#enabled) return this.transaction(body);
    if (!this.#group) this.#open();
    const group = this.#group as OpenGroup;
    this.insertHeldRows();
    const result = this.#underSavepoint(body);
    group.events += 1;
    return result;
  }

  #underSavepoint<T>(body: () => T): T {
    const { sql } = this.#connection;
    sql.savepoint.run();
    try {
      const result = body();
      sql.releaseSavepoint.run();
      return result;
    } catch (error) {
      sql.rollbackSavepoint.run();
      sql.releaseSavepoint.run();
      throw error;
    }
  }

  /** A single-statement write must not join an open group: commit it, and the others'. */
  beforeWrite(): void {
    this.commit();
    this.flushOthers();
  }

  /**
   * Commit the open group, if any, settling the writes waiting on it. On failure the group
   * is rolled back, the tails forgotten, the waiting writes rejected, and the error thrown.
   */
  commit(): void {
    const group = this.#group;
    if (!group) return;
    this.insertHeldRows(); // a failure there has ended the group (#fail) and throws
    this.#group = null;
    clearImmediate(group.timer);
    openGroups.get(this.#key)?.delete(this);
    try {
      this.#connection.sql.commit.run();
    } catch (error) {
      throw this.#fail(group, error);
    }
    this.#onCommitted();
    for (const waiter of group.waiters) waiter.resolve();
  }

  /**
   * End `group` as failed: roll it back, forget the cached tails, reject the writes waiting on
   * it, and return the error to throw.
   */
  #fail(group: OpenGroup, error: unknown): StoreError {
    if (this.#group === group) this.#group = null;
    clearImmediate(group.timer);
    openGroups.get(this.#key)?.delete(this);
    this.#rows = [];
    const { db, sql, path } = this.#connection;
    // The held events are gone: a cached tail past them would let the next append leave a gap.
    this.#onTailsWrong();
    if (db.isTransaction) sql.rollback.run();
    const what =
      group.events > 0
        ? `could not commit ${group.events} streamed event(s) whose appends had already ` +
          `resolved (they are lost), nor ${group.waiters.length} waiting write(s)`
        : `could not commit ${group.waiters.length} write(s)`;
    const failure = storeFailure('sqlite', `SQLite event store at '${path}' ${what}`, error);
    for (const waiter of group.waiters) waiter.reject(failure);
    return failure as StoreError;
  }

  /**
   * Commit the group outside any caller (end of turn, another connection's flush). A failure
   * that lost events whose appends had resolved is kept for the store's next call; the
   * waiting writes have their own rejection.
   */
  commitLater(): void {
    const resolvedEvents = this.#group?.events ?? 0;
    try {
      this.commit();
    } catch (error) {
      if (resolvedEvents > 0) this.#lost ??= error as StoreError;
    }
  }

  /** Commit other connections' groups on this file, which would otherwise block this one. */
  flushOthers(): void {
    this.insertHeldRows();
    const groups = openGroups.get(this.#key);
    if (!groups) return;
    for (const group of groups) if (group !== this) group.commitLater();
  }

  /** The error of a group that failed to commit after its appends resolved, once. */
  takeLost(): StoreError | null {
    const lost = this.#lost;
    this.#lost = null;
    return lost;
  }

  /**
   * Whether to hold this event in a group: always, opening one if none is open. A run's
   * events come in small bursts (what one model response or tool call brings), one per
   * event-loop turn: a group makes each burst, and those of other runs in the same turn, one
   * commit, and a run's last burst shares the commit of its terminal event. An event alone
   * in its turn costs a BEGIN more than an autocommit INSERT would.
   */
  #holdDelta(): boolean {
    if (!this.#group) this.#open();
    return true;
  }

  #open(): void {
    this.flushOthers();
    this.#connection.sql.begin.run();
    this.#generation += 1;
    this.#group = { events: 0, waiters: [], timer: setImmediate(() => this.commitLater()) };
    const groups = openGroups.get(this.#key) ?? new Set<GroupCommit>();
    openGroups.set(this.#key, groups.add(this));
  }
}

/** One key per database file, whatever the spelling of its path. */
/** Keys by absolute path: `realpath` is a system call, and flushing runs before every checkpointer call. */
const fileKeys = new Map<string, string>();

/** The canonical name of a database file (its directory's real path), to tell two paths to one file apart. */
export function fileKey(path: string): string {
  const absolute = resolve(path);
  const cached = fileKeys.get(absolute);
  if (cached !== undefined) return cached;
  let key: string;
  try {
    key = join(realpathSync(dirname(absolute)), basename(absolute));
  } catch {
    // The directory does not exist yet: do not cache, it may be created later.
    return absolute;
  }
  fileKeys.set(absolute, key);
  return key;
}
