/**
 * A LangGraph checkpointer on `node:sqlite`, so durable workflows need no native build and
 * no server: by default its tables sit in the event store's file. It passes LangGraph's
 * checkpointer conformance suite, and adds {@link WakeupIndex}: the timers of paused threads
 * are indexed as their interrupts are written, so the engine finds due threads without
 * reading every thread. `DatabaseSync` is synchronous and every write transaction runs
 * between two awaits, so calls on one instance never interleave inside a transaction;
 * values are (de)serialized outside them. Other processes on the file wait on its lock for
 * the busy timeout, and this process's event store's open group commit is flushed first.
 */
import type { DatabaseSync, StatementSync } from 'node:sqlite';
import { isDeepStrictEqual } from 'node:util';
import type { RunnableConfig } from '@langchain/core/runnables';
import {
  BaseCheckpointSaver,
  type ChannelVersions,
  type Checkpoint,
  type CheckpointListOptions,
  type CheckpointMetadata,
  type CheckpointTuple,
  getCheckpointId,
  type PendingWrite,
  type SerializerProtocol,
  TASKS,
} from '@langchain/langgraph-checkpoint';
import {
  ConfigError,
  errorMessage,
  InvalidInputError,
  StoreError,
  StoreUnavailableError,
} from '../../core/errors.js';
import type { DueWakeup, DueWakeupsOptions, WakeupIndex } from '../../core/wakeups.js';
import { storeFailure } from '../shared/driver-errors.js';
import {
  decodeTuple,
  encodeCheckpoint,
  encodeWrites,
  listQuery,
  load,
  namespaceOf,
  type RawTuple,
  requireThreadId,
  threadIdOf,
} from './checkpointer-codec.js';
import {
  CHECKPOINT_COMPONENT,
  CHECKPOINT_MIGRATIONS,
  CHECKPOINT_SQL,
  type CheckpointStatements,
  type Row,
  wakeupChange,
} from './checkpointer-schema.js';
import { openDatabaseFile, prepareAll } from './database.js';
import { flushGroupCommits, type GroupCommit, groupCommitOf } from './group-commit.js';
import { migrate } from './migrations.js';
import { RECLAIM_PAGES_PER_STEP, reclaimFreePages } from './vacuum.js';

/** Options for {@link SqliteCheckpointer}. */
export interface SqliteCheckpointerOptions {
  /** How values are stored. @default LangGraph's `JsonPlusSerializer` */
  serde?: SerializerProtocol;
  /** How long a write waits for another process's lock before failing, in ms. @default 5000 */
  busyTimeoutMs?: number;
  /**
   * An open connection to `path` to share, typically the SQLite event store's (see
   * `connectionOf`): one connection per file keeps SQLite's page cache warm, where two
   * connections writing in turn make each drop it. The checkpointer never closes it.
   * @default a connection of its own
   */
  database?: DatabaseSync;
  /**
   * Most free pages a `deleteThread` gives back to the file system after it commits (one
   * bounded `PRAGMA incremental_vacuum` step, see vacuum.ts); `0` gives none back.
   * @default 2048 (8 MiB at 4 KiB pages)
   */
  reclaimPagesPerDelete?: number;
}

/**
 * LangGraph checkpointer in an SQLite file (or `':memory:'`).
 *
 * @example
 * ```ts
 * const checkpointer = new SqliteCheckpointer('./.agentdeck/state.db');
 * const graph = builder.compile({ checkpointer });
 * await checkpointer.dueWakeups(new Date(), { threadIdPrefix: 'wf:' });
 * await checkpointer.close();
 * ```
 */
export class SqliteCheckpointer extends BaseCheckpointSaver implements WakeupIndex {
  /** The database file, or `':memory:'`. */
  readonly path: string;
  readonly #db: DatabaseSync;
  readonly #sql: CheckpointStatements;
  readonly #listStatements = new Map<string, StatementSync>();
  readonly #ownsDatabase: boolean;
  /** The event store's group commit on the shared connection, whose groups writes join. */
  readonly #group: GroupCommit | null;
  readonly #reclaimPages: number;
  #closed = false;

  constructor(path: string, options: SqliteCheckpointerOptions = {}) {
    super(options.serde);
    this.path = path;
    this.#ownsDatabase = options.database === undefined;
    this.#reclaimPages = options.reclaimPagesPerDelete ?? RECLAIM_PAGES_PER_STEP;
    let db: DatabaseSync | undefined = options.database;
    try {
      db ??= openDatabaseFile(path, options.busyTimeoutMs ?? 5_000);
      this.#flush();
      migrate(db, CHECKPOINT_COMPONENT, CHECKPOINT_MIGRATIONS);
      this.#sql = prepareAll(db, CHECKPOINT_SQL) as CheckpointStatements;
      this.#db = db;
      this.#group = options.database ? (groupCommitOf(options.database) ?? null) : null;
    } catch (error) {
      if (this.#ownsDatabase) db?.close();
      if (error instanceof ConfigError) {
        throw new ConfigError(
          `could not open the SQLite checkpointer at '${path}': ${error.message}`,
          {
            cause: error,
          },
        );
      }
      throw new StoreError(
        `could not open the SQLite checkpointer at '${path}': ${errorMessage(error)}; ` +
          'check that the directory can be created and the file is writable',
        { cause: error },
      );
    }
  }

  async getTuple(config: RunnableConfig): Promise<CheckpointTuple | undefined> {
    this.#ready();
    const threadId = threadIdOf(config);
    if (threadId === undefined) return undefined;
    const ns = namespaceOf(config);
    const checkpointId = getCheckpointId(config);
    const raw = this.#read(`read a checkpoint of thread '${threadId}'`, () => {
      const row = checkpointId
        ? this.#sql.checkpoint.get(threadId, ns, checkpointId)
        : this.#sql.latest.get(threadId, ns);
      return row && this.#fetch(row);
    });
    return raw && this.#decode(raw);
  }

  async *list(
    config: RunnableConfig,
    options: CheckpointListOptions = {},
  ): AsyncGenerator<CheckpointTuple> {
    this.#ready();
    const { sql, params, filters, limit } = listQuery(config, options);
    let left = limit;
    const rows = this.#read('list checkpoints', () => this.#listStatement(sql).all(...params));
    for (const row of rows) {
      if (left <= 0) return;
      const metadata = await load<CheckpointMetadata>(this.serde, row.metadata_type, row.metadata);
      const fields = metadata as Record<string, unknown>;
      if (!filters.every(([key, value]) => isDeepStrictEqual(fields[key], value))) continue;
      left -= 1;
      const raw = this.#read('list checkpoints', () => this.#fetch(row));
      yield await this.#decode(raw, metadata);
    }
  }

  async put(
    config: RunnableConfig,
    checkpoint: Checkpoint,
    metadata: CheckpointMetadata,
    newVersions: ChannelVersions,
  ): Promise<RunnableConfig> {
    this.#ready();
    const threadId = requireThreadId(config, 'put a checkpoint');
    const ns = namespaceOf(config);
    const parentId = getCheckpointId(config) || null;
    const encoded = await encodeCheckpoint(this.serde, checkpoint, metadata, newVersions);
    this.#writeInGroup(`put a checkpoint of thread '${threadId}'`, () => {
      for (const blob of encoded.blobs) this.#sql.insertBlob.run(threadId, ns, ...blob);
      this.#sql.upsertCheckpoint.run(
        ...[threadId, ns, checkpoint.id, parentId, ...encoded.checkpoint],
        ...[...encoded.metadata, encoded.versions],
      );
      // A new checkpoint means the thread moved on: its old interrupts are answered.
      this.#sql.clearStaleWakeups.run(threadId, ns, checkpoint.id);
    });
    return {
      configurable: { thread_id: threadId, checkpoint_ns: ns, checkpoint_id: checkpoint.id },
    };
  }

  async putWrites(
    config: RunnableConfig,
    writes: PendingWrite[],
    taskId: string,
    taskPath = '',
  ): Promise<void> {
    this.#ready();
    const threadId = requireThreadId(config, 'put writes');
    const checkpointId = getCheckpointId(config);
    if (!checkpointId) {
      throw new InvalidInputError(
        `cannot put writes for thread '${threadId}': config.configurable.checkpoint_id is ` +
          'missing; pass the config that put() returned',
      );
    }
    const ns = namespaceOf(config);
    const wakeup = wakeupChange(writes); // from the values as the task raised them
    const rows = await encodeWrites(this.serde, writes);
    this.#writeInGroup(`put writes for thread '${threadId}'`, () => {
      for (const [idx, ...row] of rows) {
        const statement = idx < 0 ? this.#sql.upsertWrite : this.#sql.insertWrite;
        statement.run(threadId, ns, checkpointId, taskId, idx, ...row, taskPath);
      }
      if (wakeup.kind === 'set') {
        this.#sql.setWakeup.run(threadId, ns, taskId, checkpointId, wakeup.wakeAtMs, wakeup.wakeAt);
      } else if (wakeup.kind === 'clear') {
        this.#sql.clearTaskWakeup.run(threadId, ns, taskId);
      }
    });
  }

  /**
   * Delete a thread's checkpoints, values, writes and timers in one transaction, then give up
   * to `reclaimPagesPerDelete` free pages back to the file system (see vacuum.ts).
   */
  async deleteThread(threadId: string): Promise<void> {
    this.#ready();
    this.#write(`delete thread '${threadId}'`, () => {
      this.#sql.deleteCheckpoints.run(threadId);
      this.#sql.deleteBlobs.run(threadId);
      this.#sql.deleteWrites.run(threadId);
      this.#sql.deleteWakeups.run(threadId);
    });
    reclaimFreePages(this.#db, this.#reclaimPages);
  }

  async dueWakeups(now: Date, options: DueWakeupsOptions = {}): Promise<DueWakeup[]> {
    this.#ready();
    const rows = this.#read('find due wake-ups', () =>
      this.#sql.dueWakeups.all(now.getTime(), options.threadIdPrefix ?? ''),
    );
    return rows.map((row) => ({ threadId: String(row.thread_id), wakeAt: String(row.wake_at) }));
  }

  async nextWakeup(options: DueWakeupsOptions = {}): Promise<string | null> {
    this.#ready();
    const [row] = this.#read('find the next wake-up', () =>
      this.#sql.nextWakeup.all(options.threadIdPrefix ?? ''),
    );
    const at = row?.wake_at_ms;
    return typeof at === 'number' ? new Date(at).toISOString() : null;
  }

  /**
   * The next version of a channel: the next integer plus a random fraction. A fork (a run from
   * an older checkpoint) must not produce the version another branch already stored a blob
   * under, or it would read that branch's value; the fraction makes versions unique per step
   * while they still compare as numbers, as LangGraph expects of the default saver.
   */
  override getNextVersion(current: number | undefined): number {
    const whole = current === undefined ? 0 : Math.floor(Number(current));
    return whole + 1 + Math.random();
  }

  /** Closes the database; later calls reject. Safe to call twice. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    if (!this.#ownsDatabase) return;
    try {
      this.#db.close();
    } catch (error) {
      throw new StoreError(`could not close the SQLite checkpointer at '${this.path}'`, {
        cause: error,
      });
    }
  }

  /** The row's blobs and writes, read right after it so that they match. */
  #fetch(row: Row): RawTuple {
    const key = [String(row.thread_id), String(row.checkpoint_ns)] as const;
    return {
      row,
      blobs: this.#sql.blobs.all(String(row.channel_versions), ...key),
      writes: this.#sql.writes.all(...key, String(row.checkpoint_id)),
    };
  }

  #decode(raw: RawTuple, metadata?: CheckpointMetadata): Promise<CheckpointTuple> {
    const parentSends = (threadId: string, ns: string, parentId: string) =>
      this.#read(`read pending sends of thread '${threadId}'`, () =>
        this.#sql.channelWrites.all(threadId, ns, parentId, TASKS),
      );
    return decodeTuple(this.serde, raw, parentSends, metadata);
  }

  #listStatement(sql: string): StatementSync {
    let statement = this.#listStatements.get(sql);
    if (!statement) {
      statement = this.#db.prepare(sql);
      this.#listStatements.set(sql, statement);
    }
    return statement;
  }

  /** Run a read, after committing this process's open event-store group on the file. */
  #read<T>(what: string, body: () => T): T {
    this.#ready();
    return this.#guard(what, () => {
      this.#flush();
      return body();
    });
  }

  /** Run `body` in one write transaction (see {@link #read} for the flush). */
  #write(what: string, body: () => void): void {
    this.#ready();
    const group = this.#group;
    if (group) {
      this.#guard(what, () => group.transaction(body));
      return;
    }
    this.#guard(what, () => {
      this.#flush();
      this.#sql.begin.run();
      try {
        body();
        this.#sql.commit.run();
      } catch (error) {
        if (this.#db.isTransaction) this.#sql.rollback.run();
        throw error;
      }
    });
  }

  /**
   * Write a checkpoint or a task's writes. On the event store's connection, inside its open
   * group (opening one), under a savepoint: committed with the events of this event-loop
   * turn, at its end or with the next `run.*` event, whichever comes first, rather than in
   * a commit of its own. The deck records a segment's end only after LangGraph awaited
   * these writes, and that `run.*` event resolves only once its group has committed, so
   * the checkpoint a run ends on is durable when its end is. What it trades: this resolves
   * before the commit, so a process crash in the same turn loses it, as it loses the turn's
   * held events (docs/internals/workflow-durability.md). A failed group commit is
   * reported to the events waiting on it, not here.
   */
  #writeInGroup(what: string, body: () => void): void {
    const group = this.#group;
    if (!group) {
      this.#write(what, body);
      return;
    }
    this.#ready();
    this.#guard(what, () => {
      group.grouped(body).durable.catch(() => {});
    });
  }

  /**
   * An open group commit holds the file's write lock; commit it rather than wait it out.
   * The group of the shared connection is this connection's own transaction: its writes
   * are visible here already, and a write that is not grouped commits it (`transaction`).
   */
  #flush(): void {
    if (this.#group) this.#group.flushOthers();
    else if (this.path !== ':memory:') flushGroupCommits(this.path);
  }

  /** Run a driver call, turning a driver failure into a `StoreError` that names the file. */
  #guard<T>(what: string, body: () => T): T {
    try {
      return body();
    } catch (error) {
      const failure = storeFailure(
        'sqlite',
        `SQLite checkpointer at '${this.path}' could not ${what}`,
        error,
      );
      if (failure.code !== 'unavailable') throw failure;
      throw new StoreUnavailableError(
        'sqlite',
        `${failure.message}; if the database is locked, another process holds it longer than the busy timeout`,
        { cause: error },
      );
    }
  }

  #ready(): void {
    if (this.#closed) {
      throw new StoreError(
        `the SQLite checkpointer at '${this.path}' is closed; create a new SqliteCheckpointer`,
      );
    }
  }
}
