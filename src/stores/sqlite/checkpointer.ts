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
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { DatabaseSync, type SQLInputValue, type StatementSync } from 'node:sqlite';
import { isDeepStrictEqual } from 'node:util';
import type { RunnableConfig } from '@langchain/core/runnables';
import {
  BaseCheckpointSaver,
  type ChannelVersions,
  type Checkpoint,
  type CheckpointListOptions,
  type CheckpointMetadata,
  type CheckpointPendingWrite,
  type CheckpointTuple,
  compareWritesSortKeys,
  getCheckpointId,
  maxChannelVersion,
  type PendingWrite,
  type SerializerProtocol,
  TASKS,
  WRITES_IDX_MAP,
  writesSortKey,
} from '@langchain/langgraph-checkpoint';
import { DeckError, errorMessage, InvalidInputError, StoreError } from '../../core/errors.js';
import type { DueWakeup, DueWakeupsOptions, WakeupIndex } from '../../core/wakeups.js';
import {
  CHECKPOINT_COMPONENT,
  CHECKPOINT_MIGRATIONS,
  CHECKPOINT_SQL,
  type CheckpointStatements,
  listSql,
  type Row,
  wakeupChange,
} from './checkpointer-schema.js';
import { flushGroupCommits } from './group-commit.js';
import { migrate } from './migrations.js';

/** Options for {@link SqliteCheckpointer}. */
export interface SqliteCheckpointerOptions {
  /** How values are stored. @default LangGraph's `JsonPlusSerializer` */
  serde?: SerializerProtocol;
  /** How long a write waits for another process's lock before failing, in ms. @default 5000 */
  busyTimeoutMs?: number;
}

/** A checkpoint row with the blobs and writes that complete it, read in one synchronous go. */
interface RawTuple {
  row: Row;
  blobs: Row[];
  writes: Row[];
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
  #closed = false;

  constructor(path: string, options: SqliteCheckpointerOptions = {}) {
    super(options.serde);
    this.path = path;
    let db: DatabaseSync | undefined;
    try {
      const inMemory = path === ':memory:';
      if (!inMemory && !path.startsWith('file:')) mkdirSync(dirname(path), { recursive: true });
      db = new DatabaseSync(path, { timeout: options.busyTimeoutMs ?? 5_000 });
      if (!inMemory) db.exec('PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL;');
      this.#flush();
      migrate(db, CHECKPOINT_COMPONENT, CHECKPOINT_MIGRATIONS);
      const open = db;
      this.#sql = Object.fromEntries(
        Object.entries(CHECKPOINT_SQL).map(([name, sql]) => [name, open.prepare(sql)]),
      ) as CheckpointStatements;
      this.#db = db;
    } catch (error) {
      db?.close();
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
    const where: string[] = [];
    const params: SQLInputValue[] = [];
    const add = (clause: string, value: string | undefined) => {
      if (value === undefined || value === '') return;
      where.push(clause);
      params.push(value);
    };
    add('thread_id = ?', threadIdOf(config));
    if (config.configurable?.checkpoint_ns != null) {
      where.push('checkpoint_ns = ?');
      params.push(String(config.configurable.checkpoint_ns));
    }
    add('checkpoint_id = ?', getCheckpointId(config));
    if (options.before) add('checkpoint_id < ?', getCheckpointId(options.before));
    // Metadata is serialized by the serde, so filters are applied here, and the limit after them.
    const filters = Object.entries(options.filter ?? {});
    let left = options.limit === undefined ? Infinity : Math.max(0, Math.floor(options.limit));
    const limitInSql = Number.isFinite(left) && filters.length === 0;
    if (limitInSql) params.push(left);
    const sql = listSql(where, limitInSql);
    const rows = this.#read('list checkpoints', () => this.#listStatement(sql).all(...params));
    for (const row of rows) {
      if (left <= 0) return;
      const metadata = await this.#load<CheckpointMetadata>(row.metadata_type, row.metadata);
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
    const { channel_values: values, ...rest } = checkpoint;
    const [type, serialized] = await this.serde.dumpsTyped(rest);
    const [metadataType, serializedMetadata] = await this.serde.dumpsTyped(metadata);
    // Only the channels written since the parent get a blob; the others keep their version's.
    const blobs = await Promise.all(
      Object.entries(newVersions).map(async ([channel, version]) => {
        const [blobType, blob] =
          channel in values
            ? await this.serde.dumpsTyped(values[channel as keyof typeof values])
            : ['empty', null];
        return [threadId, ns, channel, String(version), blobType, blob] as const;
      }),
    );
    const versions = JSON.stringify(
      Object.fromEntries(Object.entries(checkpoint.channel_versions).map(([k, v]) => [k, `${v}`])),
    );
    this.#write(`put a checkpoint of thread '${threadId}'`, () => {
      for (const blob of blobs) this.#sql.insertBlob.run(...blob);
      this.#sql.upsertCheckpoint.run(
        ...[threadId, ns, checkpoint.id, parentId, type, serialized],
        ...[metadataType, serializedMetadata, versions],
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
    const rows = await Promise.all(
      writes.map(async ([channel, value], index) => {
        const [type, blob] = await this.serde.dumpsTyped(value);
        const idx = Object.hasOwn(WRITES_IDX_MAP, channel)
          ? (WRITES_IDX_MAP[channel] ?? index)
          : index;
        return [threadId, ns, checkpointId, taskId, idx, channel, type, blob, taskPath] as const;
      }),
    );
    this.#write(`put writes for thread '${threadId}'`, () => {
      for (const row of rows)
        (row[4] < 0 ? this.#sql.upsertWrite : this.#sql.insertWrite).run(...row);
      if (wakeup.kind === 'set') {
        this.#sql.setWakeup.run(threadId, ns, taskId, checkpointId, wakeup.wakeAtMs, wakeup.wakeAt);
      } else if (wakeup.kind === 'clear') {
        this.#sql.clearTaskWakeup.run(threadId, ns, taskId);
      }
    });
  }

  async deleteThread(threadId: string): Promise<void> {
    this.#ready();
    this.#write(`delete thread '${threadId}'`, () => {
      this.#sql.deleteCheckpoints.run(threadId);
      this.#sql.deleteBlobs.run(threadId);
      this.#sql.deleteWrites.run(threadId);
      this.#sql.deleteWakeups.run(threadId);
    });
  }

  async dueWakeups(now: Date, options: DueWakeupsOptions = {}): Promise<DueWakeup[]> {
    this.#ready();
    const rows = this.#read('find due wake-ups', () =>
      this.#sql.dueWakeups.all(now.getTime(), options.threadIdPrefix ?? ''),
    );
    return rows.map((row) => ({ threadId: String(row.thread_id), wakeAt: String(row.wake_at) }));
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

  async #decode({ row, blobs, writes }: RawTuple, metadata?: CheckpointMetadata) {
    const threadId = String(row.thread_id);
    const ns = String(row.checkpoint_ns);
    const parentId = row.parent_checkpoint_id === null ? null : String(row.parent_checkpoint_id);
    const stored = await this.#load<Omit<Checkpoint, 'channel_values'>>(row.type, row.checkpoint);
    const values = await Promise.all(
      blobs
        .filter((blob) => blob.type !== 'empty')
        .map(async (blob) => [String(blob.channel), await this.#load(blob.type, blob.blob)]),
    );
    const checkpoint: Checkpoint = { ...stored, channel_values: Object.fromEntries(values) };
    if (checkpoint.v < 4 && parentId !== null) {
      await this.#migratePendingSends(checkpoint, threadId, ns, parentId);
    }
    const tuple: CheckpointTuple = {
      config: {
        configurable: { thread_id: threadId, checkpoint_ns: ns, checkpoint_id: row.checkpoint_id },
      },
      checkpoint,
      metadata: metadata ?? (await this.#load<CheckpointMetadata>(row.metadata_type, row.metadata)),
      pendingWrites: await this.#decodeWrites(writes),
    };
    if (parentId !== null) {
      tuple.parentConfig = {
        configurable: { thread_id: threadId, checkpoint_ns: ns, checkpoint_id: parentId },
      };
    }
    return tuple;
  }

  /** Writes in `writesSortKey` order, the order in which LangGraph applies them. */
  async #decodeWrites(rows: Row[]): Promise<CheckpointPendingWrite[]> {
    const keyed = rows.map((row) => ({
      row,
      key: writesSortKey(String(row.task_path), String(row.task_id), Number(row.idx)),
    }));
    keyed.sort((a, b) => compareWritesSortKeys(a.key, b.key));
    return Promise.all(
      keyed.map(
        async ({ row }): Promise<CheckpointPendingWrite> => [
          String(row.task_id),
          String(row.channel),
          await this.#load(row.type, row.blob),
        ],
      ),
    );
  }

  /**
   * Checkpoints before format 4 kept the sends of a step in the parent's writes, not in a
   * channel; LangGraph expects savers to move them into the `TASKS` channel on read.
   */
  async #migratePendingSends(
    checkpoint: Checkpoint,
    threadId: string,
    ns: string,
    parentId: string,
  ): Promise<void> {
    const sends = this.#read(`read pending sends of thread '${threadId}'`, () =>
      this.#sql.channelWrites.all(threadId, ns, parentId, TASKS),
    );
    const values: Record<string, unknown> = checkpoint.channel_values;
    values[TASKS] = (await this.#decodeWrites(sends)).map(([, , value]) => value);
    const versions = Object.values(checkpoint.channel_versions);
    checkpoint.channel_versions[TASKS] = versions.length > 0 ? maxChannelVersion(...versions) : 1;
  }

  async #load<T = unknown>(type: unknown, data: unknown): Promise<T> {
    return this.serde.loadsTyped(String(type), data as Uint8Array);
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

  /** An open group commit holds the file's write lock; commit it rather than wait it out. */
  #flush(): void {
    if (this.path !== ':memory:') flushGroupCommits(this.path);
  }

  /** Run a driver call, turning a driver failure into a `StoreError` that names the file. */
  #guard<T>(what: string, body: () => T): T {
    try {
      return body();
    } catch (error) {
      if (error instanceof DeckError) throw error;
      throw new StoreError(
        `SQLite checkpointer at '${this.path}' could not ${what}: ${errorMessage(error)}; ` +
          'if the database is locked, another process holds it longer than the busy timeout',
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

function threadIdOf(config: RunnableConfig): string | undefined {
  const threadId: unknown = config.configurable?.thread_id;
  return threadId === undefined || threadId === null ? undefined : String(threadId);
}

function requireThreadId(config: RunnableConfig, what: string): string {
  const threadId = threadIdOf(config);
  if (threadId === undefined) {
    throw new InvalidInputError(
      `cannot ${what}: config.configurable.thread_id is missing; ` +
        'pass { configurable: { thread_id } } to say which thread to persist',
    );
  }
  return threadId;
}

function namespaceOf(config: RunnableConfig): string {
  const ns: unknown = config.configurable?.checkpoint_ns;
  return ns === undefined || ns === null ? '' : String(ns);
}
