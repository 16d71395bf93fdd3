/**
 * The event store on `node:sqlite`: the embedded default (`./.agentdeck/state.db`). Several
 * processes may share the file (a server and `service runs signal`, two servers on one
 * machine), so it runs in WAL mode with a busy timeout, and every write that reads before
 * it writes does so inside `BEGIN IMMEDIATE`, holding the write lock from the read on.
 *
 * This class opens the file and guards each call; appends (the hot path, with its cache of
 * run tails) are in `append.ts`, a run's start, pause and end in `boundaries.ts`, claims and
 * control requests in `claims.ts`, pruning in `prune.ts`, the run queue in `queue.ts`, giving
 * space back in `vacuum.ts`, and group commit, on by default, in `group-commit.ts` (see
 * {@link SqliteEventStoreOptions.groupCommit} for what it trades).
 */
import type { DatabaseSync, StatementSync } from 'node:sqlite';
import { ConfigError, errorMessage, StoreError } from '../../core/errors.js';
import type { ControlVerb } from '../../core/event-kinds.js';
import type { Event, NewEvent } from '../../core/events.js';
import type * as Q from '../../core/queue.js';
import type {
  AppendNotifier,
  ClaimHolder,
  ClaimRequest,
  ClaimResult,
  ControlRequest,
  EventStore,
  LayoutReporting,
  ListRunsFilter,
  NamespaceListing,
  Pingable,
  PrunedRun,
  PruneRequest,
  ReadOptions,
  RunBoundaries,
  RunIdSearch,
  RunPauses,
  RunPruning,
  RunSummary,
  StoreLayout,
} from '../../core/store.js';
import { storeFailure } from '../shared/driver-errors.js';
import { resolvePruneRequest } from '../shared/prune.js';
import { fromCompact, toSummary } from '../shared/rows.js';
import {
  eventFromStored,
  type PreparedEvent,
  prepareEvents,
  requirePause,
  requireTerminal,
} from '../shared/stored-event.js';
import { Appender, type Written } from './append.js';
import { AppendWatch } from './append-watch.js';
import type { ClaimedStart } from './boundaries.js';
import * as boundaries from './boundaries.js';
import { claim, claimHolder, readControl, recordControl, release } from './claims.js';
import { openDatabaseFile, prepareAll } from './database.js';
import { SqliteEvals } from './evals.js';
import { fileKey, flushGroupCommits as flushGroups, GroupCommit } from './group-commit.js';
import {
  EVENT_STORE_MIGRATIONS,
  listRunsQuery,
  migrate,
  readLayout,
  SQL,
  type Statements,
} from './migrations.js';
import { DEFAULTS, requireFreeSpace, type SqliteEventStoreOptions } from './options.js';
import { Pruner } from './prune.js';
import { SqliteQueue } from './queue.js';
import { databaseBytes, vacuumFile } from './vacuum.js';
import { WalCheckpoints } from './wal-checkpoints.js';

export { MIN_FREE_BYTES, type SqliteEventStoreOptions } from './options.js';

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
export class SqliteEventStore
  implements
    EventStore,
    RunBoundaries,
    RunPauses,
    RunPruning,
    RunIdSearch,
    Pingable,
    LayoutReporting,
    AppendNotifier,
    NamespaceListing,
    Q.RunQueue
{
  /** The database file. */
  readonly path: string;
  readonly #db: DatabaseSync;
  readonly #sql: Statements;
  readonly #writes: GroupCommit;
  readonly #appender: Appender;
  readonly #pruner: Pruner;
  readonly #checkpoints: WalCheckpoints;
  readonly #watch: AppendWatch;
  readonly #queue: SqliteQueue;
  /** Datasets and experiments (the EvalStore ability, core/evals.ts). */
  readonly evals: SqliteEvals;
  readonly #listStatements = new Map<string, StatementSync>();
  #closed = false;

  /**
   * Commit the open group commits of every store in this process on `path`, so that a write
   * through another connection to that file does not wait on them. Errors are kept and
   * reported by each store's next call.
   */
  static flushGroupCommits(path: string): void {
    flushGroups(path);
  }

  /**
   * The open connection, for a same-file checkpointer to share (`connectionOf`); `null`
   * once closed. Not part of the store port.
   */
  get connection(): DatabaseSync | null {
    return this.#closed ? null : this.#db;
  }

  constructor(options: SqliteEventStoreOptions) {
    const { path, busyTimeoutMs, groupCommit, reclaimPagesPerPrune } = {
      ...DEFAULTS,
      ...options,
    };
    this.path = path;
    let db: DatabaseSync | undefined;
    try {
      // Opening writes (WAL mode, the migrations' transaction) synchronously: a group this
      // process holds open on the file would keep the lock until the busy timeout failed it.
      if (path !== ':memory:') flushGroups(path);
      db = openDatabaseFile(path, busyTimeoutMs);
      migrate(db, 'events', EVENT_STORE_MIGRATIONS);
      this.#sql = prepareAll(db, SQL) as Statements;
      this.#db = db;
    } catch (error) {
      db?.close();
      if (error instanceof ConfigError) {
        throw new ConfigError(
          `could not open the SQLite event store at '${path}': ${error.message}`,
          { cause: error },
        );
      }
      throw new StoreError(
        `could not open the SQLite event store at '${path}': ${errorMessage(error)}; ` +
          'check that the directory can be created and the file is writable',
        { cause: error },
      );
    }
    const connection = { path, db: this.#db, sql: this.#sql };
    const onFile = path !== ':memory:' && !path.startsWith('file:');
    this.#checkpoints = new WalCheckpoints(fileKey(path), path, this.#db, onFile);
    this.#writes = new GroupCommit(
      connection,
      groupCommit,
      () => this.#appender.forget(),
      () => this.#checkpoints.committed(),
    );
    this.#appender = new Appender(this.#sql, this.#writes);
    const queueFile = onFile ? fileKey(path) : `${path}:${crypto.randomUUID()}`;
    this.#queue = new SqliteQueue(this.#db, this.#appender, this.#writes, queueFile);
    this.evals = new SqliteEvals(this.#db, this.#writes, this.path, () => this.#ready());
    this.#pruner = new Pruner(this.#db, this.#sql, this.#writes, reclaimPagesPerPrune);
    this.#watch = new AppendWatch(this.#db, (runId) => {
      this.#writes.insertHeldRows();
      const row = this.#sql.getRun.get(runId) as { last_seq: number } | undefined;
      return row ? Number(row.last_seq) : -1;
    });
  }

  async append(events: readonly NewEvent[]): Promise<Event[]> {
    this.#ready();
    const prepared = prepareEvents(events);
    if (prepared.length === 0) return [];
    const stored = await this.#durable(
      this.#guard('append events', () => this.#appender.append(prepared)),
    );
    this.#watch.appended(stored);
    return stored;
  }

  async read(runId: string, options: ReadOptions = {}): Promise<Event[]> {
    this.#ready();
    this.#writes.flushOthers();
    return this.#guard(`read run '${runId}'`, () =>
      this.#sql.read
        .all(runId, options.afterSeq ?? -1, options.limit ?? -1)
        .map((row) => eventFromStored(fromCompact(row))),
    );
  }

  async listRuns(filter: ListRunsFilter = {}): Promise<RunSummary[]> {
    return this.#list(filter, undefined);
  }

  /** One namespace's runs (see {@link NamespaceListing}), from `runs_by_namespace`. */
  async listRunsIn(namespace: string, filter: ListRunsFilter = {}): Promise<RunSummary[]> {
    return this.#list(filter, namespace);
  }

  async #list(filter: ListRunsFilter, namespace: string | undefined): Promise<RunSummary[]> {
    this.#ready();
    this.#writes.flushOthers();
    const { sql, params } = listRunsQuery(filter, namespace);
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
    this.#ready();
    this.#writes.flushOthers();
    return this.#guard(`read run '${runId}'`, () => {
      const row = this.#sql.getRun.get(runId);
      return row ? toSummary(row) : null;
    });
  }

  /** Runs by the start of their id (see {@link RunIdSearch}). */
  async runIdsStartingWith(prefix: string, limit: number): Promise<string[]> {
    this.#ready();
    this.#writes.flushOthers();
    return this.#guard(`find runs starting with '${prefix}'`, () =>
      this.#sql.runIdsStartingWith
        .all(prefix, `${prefix}\u{10FFFF}`, Math.max(0, Math.floor(limit)))
        .map((row) => String(row.run_id)),
    );
  }

  /**
   * Remove ended runs (see {@link RunPruning}) in one write transaction, then give up to
   * {@link SqliteEventStoreOptions.reclaimPagesPerPrune} free pages back to the file system.
   */
  async pruneRuns(request: PruneRequest): Promise<PrunedRun[]> {
    this.#ready();
    const selection = resolvePruneRequest(request);
    return this.#guard('prune runs', () => {
      const pruned = this.#pruner.prune(selection);
      if (!selection.dryRun) this.#appender.forget(pruned.map((run) => run.runId));
      return pruned;
    });
  }

  /**
   * Rewrite the whole file (SQLite `VACUUM`), in incremental-vacuum mode: once, for a file
   * created before this store gave space back (see vacuum.ts; a small one is converted when
   * opened), after which pruning shrinks it. It holds the file's write lock for as long as the
   * rewrite takes (seconds per GiB) and needs free disk for a second copy: run it at a quiet
   * time. Resolves with the file's size in bytes before and after (once checkpointed).
   */
  async vacuum(): Promise<{ bytesBefore: number; bytesAfter: number }> {
    this.#ready();
    return this.#guard('vacuum the file', () => {
      this.#writes.beforeWrite();
      const bytesBefore = databaseBytes(this.#db);
      vacuumFile(this.#db, this.path);
      return { bytesBefore, bytesAfter: databaseBytes(this.#db) };
    });
  }

  async claim(request: ClaimRequest): Promise<ClaimResult> {
    this.#ready();
    return this.#guard(`claim '${request.key}'`, () => claim(this.#sql, this.#writes, request));
  }

  async claimAndAppend(request: ClaimRequest, events: readonly NewEvent[]): Promise<ClaimedStart> {
    this.#ready();
    const prepared = prepareEvents(events);
    const result = await this.#durable(
      this.#guard(`claim '${request.key}' and append`, () =>
        boundaries.claimAndAppend(this.#appender, this.#sql, request, prepared),
      ),
    );
    if (result.events) this.#watch.appended(result.events);
    return result;
  }

  async endRun(event: NewEvent, releaseKey: string | null): Promise<Event | null> {
    this.#ready();
    requireTerminal(event);
    const [item] = prepareEvents([event]) as [PreparedEvent];
    const stored = await this.#durable(
      this.#guard(`end run '${event.runId}'`, () =>
        boundaries.endRun(this.#appender, this.#sql, item, releaseKey),
      ),
    );
    if (stored) this.#watch.appended([stored]);
    return stored;
  }

  async pauseRun(event: NewEvent, keep: string): Promise<Event> {
    this.#ready();
    requirePause(event);
    const [item] = prepareEvents([event]) as [PreparedEvent];
    const stored = await this.#durable(
      this.#guard(`pause run '${event.runId}'`, () =>
        boundaries.pauseRun(this.#appender, this.#sql, item, keep),
      ),
    );
    this.#watch.appended([stored]);
    return stored;
  }

  async release(key: string, runId: string): Promise<boolean> {
    this.#ready();
    return this.#guard(`release '${key}'`, () => release(this.#sql, this.#writes, key, runId));
  }

  async claimHolder(key: string): Promise<ClaimHolder | null> {
    this.#ready();
    this.#writes.flushOthers();
    return this.#guard(`read claim '${key}'`, () => claimHolder(this.#sql, key));
  }

  async recordControl(
    runId: string,
    verb: ControlVerb,
    reason: string | null,
  ): Promise<ControlRequest> {
    this.#ready();
    return this.#guard(`record a ${verb} request for run '${runId}'`, () =>
      recordControl(this.#sql, this.#writes, runId, verb, reason),
    );
  }

  async readControl(runId: string): Promise<ControlRequest[]> {
    this.#ready();
    this.#writes.flushOthers();
    return this.#guard(`read control requests of run '${runId}'`, () =>
      readControl(this.#sql, runId),
    );
  }

  async saveContinuation(runId: string, state: string): Promise<void> {
    this.#ready();
    this.#guard(`save the continuation of run '${runId}'`, () => {
      this.#writes.beforeWrite();
      this.#sql.saveContinuation.run(runId, state, new Date().toISOString());
    });
  }

  async readContinuation(runId: string): Promise<string | null> {
    this.#ready();
    this.#writes.flushOthers();
    return this.#guard(`read the continuation of run '${runId}'`, () => {
      const row = this.#sql.readContinuation.get(runId) as { state: string } | undefined;
      return row ? row.state : null;
    });
  }

  async dropContinuation(runId: string): Promise<boolean> {
    this.#ready();
    return this.#guard(`drop the continuation of run '${runId}'`, () => {
      this.#writes.beforeWrite();
      return Number(this.#sql.dropContinuation.run(runId).changes) > 0;
    });
  }

  /** Append `event` (`run.queued`) and its queue entry in one commit (see queue.ts). */
  async enqueue(event: NewEvent, limits: Q.QueueLimits): Promise<Event> {
    const what = `enqueue run '${event.runId}'`;
    const stored = await this.#durable(await this.#queued(what, (q) => q.enqueue(event, limits)));
    this.#watch.appended([stored]);
    this.#queue.notify();
    return stored;
  }

  take(request: Q.TakeRequest): Promise<Q.QueueEntry[]> {
    return this.#queued('take queued runs', (q) => q.take(request));
  }

  renewTaken(worker: string, runIds: readonly string[]): Promise<string[]> {
    return this.#queued('renew held runs', (q) => q.renew(worker, runIds));
  }

  finishTaken(runId: string, worker: string): Promise<boolean> {
    return this.#queued(`finish queued run '${runId}'`, (q) => q.finish(runId, worker));
  }

  giveBack(runId: string, worker: string, availableAt: string): Promise<boolean> {
    return this.#queued(`give back run '${runId}'`, (q) => q.giveBack(runId, worker, availableAt));
  }

  dropWaiting(runId: string): Promise<boolean> {
    return this.#queued(`drop queued run '${runId}'`, (q) => q.dropWaiting(runId));
  }

  queueEntry(runId: string): Promise<Q.QueueEntry | null> {
    return this.#queued(`read queued run '${runId}'`, (q) => q.entry(runId));
  }

  listQueue(limit: number): Promise<Q.QueueEntry[]> {
    return this.#queued('list the queue', (q) => q.list(limit));
  }

  takeToken(bucket: string, rate: Q.RateLimit): Promise<Q.TokenResult> {
    return this.#queued(`take a token of '${bucket}'`, (q) => q.takeToken(bucket, rate));
  }

  /** Watchers of this process's stores on the file (SQLite cannot wake another process). */
  watchQueue(onEnqueued: () => void): Promise<() => void> {
    return this.#queued('watch the queue', (q) => q.watch(onEnqueued));
  }

  async #queued<T>(what: string, call: (queue: SqliteQueue) => T): Promise<T> {
    this.#ready();
    return this.#guard(what, () => call(this.#queue));
  }

  /**
   * Resolves when the file answers a query and its disk has room for writes (readiness);
   * rejects with a StorageFullError below {@link MIN_FREE_BYTES} free.
   */
  /** The file's `events` schema layout, and this code's (shared/migration.ts). */
  async layout(): Promise<StoreLayout> {
    this.#ready();
    return this.#guard('read its schema layout', () =>
      readLayout(this.#db, 'events', EVENT_STORE_MIGRATIONS),
    );
  }

  async ping(): Promise<void> {
    this.#ready();
    this.#guard('answer a ping', () => this.#db.prepare('SELECT 1').get());
    await requireFreeSpace(this.path);
  }

  /**
   * Call `onAppend` after each append to `runId`: at once for this store's own, within
   * 250 ms for another connection's (another process on the file; see append-watch.ts).
   */
  async watchRun(runId: string, onAppend: () => void): Promise<() => void> {
    this.#ready();
    return this.#guard(`watch run '${runId}'`, () => this.#watch.watch(runId, onAppend));
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.#watch.close();
    this.#queue.close();
    let failure: unknown = this.#writes.takeLost();
    try {
      this.#writes.commit();
    } catch (error) {
      failure = error;
    }
    this.#appender.forget();
    try {
      this.#db.close();
    } catch (error) {
      failure ??= error;
    }
    this.#checkpoints.close();
    if (failure instanceof StoreError) throw failure;
    if (failure) {
      throw new StoreError(`could not close the SQLite event store at '${this.path}'`, {
        cause: failure,
      });
    }
  }

  /** A write's result once it is committed (at once when a group commit holds it). */
  async #durable<T>({ result, durable }: Written<T>): Promise<T> {
    if (durable) await durable;
    return result;
  }

  /** Run a driver call, turning a driver failure into a `StoreError` that names the file. */
  #guard<T>(what: string, body: () => T): T {
    try {
      return body();
    } catch (error) {
      throw storeFailure('sqlite', `SQLite event store at '${this.path}' could not ${what}`, error);
    }
  }

  /** Refuse work once closed, and report a group commit that failed after its appends. */
  #ready(): void {
    if (this.#closed) {
      throw new StoreError(`the SQLite event store at '${this.path}' is closed; open a new one`);
    }
    const lost = this.#writes.takeLost();
    if (lost) throw lost;
  }
}
