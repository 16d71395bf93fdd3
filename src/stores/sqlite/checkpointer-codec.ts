/**
 * How the SQLite checkpointer turns LangGraph's values into rows and back, through the
 * saver's serializer. It is kept apart from the saver, which only runs statements, because
 * (de)serialization is asynchronous and must stay outside the synchronous transactions;
 * here are also the `RunnableConfig` readings that every method shares.
 */
import type { SQLInputValue } from 'node:sqlite';
import type { RunnableConfig } from '@langchain/core/runnables';
import {
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
import { InvalidInputError } from '../../core/errors.js';
import { listSql, type Row } from './checkpointer-schema.js';

/** A checkpoint row with the blobs and writes that complete it, read in one synchronous go. */
export interface RawTuple {
  row: Row;
  blobs: Row[];
  writes: Row[];
}

/** A serialized value: its serde type and bytes. */
type Encoded = readonly [string, Uint8Array];

/** The rows of one `put`, ready for its transaction. */
export interface EncodedCheckpoint {
  checkpoint: Encoded;
  metadata: Encoded;
  /** `[channel, version, type, blob]` for each channel written since the parent. */
  blobs: (readonly [string, string, string, Uint8Array | null])[];
  /** The channel versions as JSON, `{channel: "version"}`, for SQLite to join blobs on. */
  versions: string;
}

export async function encodeCheckpoint(
  serde: SerializerProtocol,
  checkpoint: Checkpoint,
  metadata: CheckpointMetadata,
  newVersions: ChannelVersions,
): Promise<EncodedCheckpoint> {
  const { channel_values: values, ...rest } = checkpoint;
  const channels: Record<string, unknown> = values;
  // Only the channels written since the parent get a blob; the others keep their version's.
  // A written channel left without a value is stored as 'empty' and read back as absent.
  const blobs = await Promise.all(
    Object.entries(newVersions).map(async ([channel, version]) => {
      const [type, blob] =
        channel in channels ? await serde.dumpsTyped(channels[channel]) : ['empty', null];
      return [channel, String(version), type, blob] as const;
    }),
  );
  const versions = Object.entries(checkpoint.channel_versions).map(([k, v]) => [k, String(v)]);
  return {
    checkpoint: await serde.dumpsTyped(rest),
    metadata: await serde.dumpsTyped(metadata),
    blobs,
    versions: JSON.stringify(Object.fromEntries(versions)),
  };
}

/**
 * `[idx, channel, type, blob]` for each write. The special channels (error, interrupt, resume...)
 * take their fixed negative index, so that the latest of each replaces the previous one.
 */
export async function encodeWrites(serde: SerializerProtocol, writes: PendingWrite[]) {
  return Promise.all(
    writes.map(async ([channel, value], index) => {
      const [type, blob] = await serde.dumpsTyped(value);
      const idx = Object.hasOwn(WRITES_IDX_MAP, channel)
        ? (WRITES_IDX_MAP[channel] ?? index)
        : index;
      return [idx, channel, type, blob] as const;
    }),
  );
}

/**
 * The tuple of a checkpoint row. Checkpoints before format 4 kept the sends of a step in
 * their parent's writes; LangGraph expects savers to move them into the `TASKS` channel on
 * read, so `parentSends` reads those writes when needed.
 */
export async function decodeTuple(
  serde: SerializerProtocol,
  { row, blobs, writes }: RawTuple,
  parentSends: (threadId: string, ns: string, parentId: string) => Row[],
  metadata?: CheckpointMetadata,
): Promise<CheckpointTuple> {
  const threadId = String(row.thread_id);
  const ns = String(row.checkpoint_ns);
  const checkpointId = String(row.checkpoint_id);
  const parentId = row.parent_checkpoint_id == null ? null : String(row.parent_checkpoint_id);
  const stored = await load<Omit<Checkpoint, 'channel_values'>>(serde, row.type, row.checkpoint);
  const values = await Promise.all(
    blobs
      .filter((blob) => blob.type !== 'empty')
      .map(async (blob) => [String(blob.channel), await load(serde, blob.type, blob.blob)]),
  );
  const checkpoint: Checkpoint = { ...stored, channel_values: Object.fromEntries(values) };
  if (checkpoint.v < 4 && parentId !== null) {
    const sends = await decodeWrites(serde, parentSends(threadId, ns, parentId));
    const channels: Record<string, unknown> = checkpoint.channel_values;
    channels[TASKS] = sends.map(([, , value]) => value);
    const versions = Object.values(checkpoint.channel_versions);
    checkpoint.channel_versions[TASKS] = versions.length ? maxChannelVersion(...versions) : 1;
  }
  const tuple: CheckpointTuple = {
    config: {
      configurable: { thread_id: threadId, checkpoint_ns: ns, checkpoint_id: checkpointId },
    },
    checkpoint,
    metadata: metadata ?? (await load<CheckpointMetadata>(serde, row.metadata_type, row.metadata)),
    pendingWrites: await decodeWrites(serde, writes),
  };
  if (parentId !== null) {
    tuple.parentConfig = {
      configurable: { thread_id: threadId, checkpoint_ns: ns, checkpoint_id: parentId },
    };
  }
  return tuple;
}

/** Writes in `writesSortKey` order, the order in which LangGraph applies them. */
async function decodeWrites(
  serde: SerializerProtocol,
  rows: Row[],
): Promise<CheckpointPendingWrite[]> {
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
        await load(serde, row.type, row.blob),
      ],
    ),
  );
}

/** One stored value, from its type and bytes columns. */
export async function load<T = unknown>(
  serde: SerializerProtocol,
  type: unknown,
  data: unknown,
): Promise<T> {
  return serde.loadsTyped(String(type), data as Uint8Array);
}

/**
 * `list()`'s statement and parameters. Metadata is serialized by the serde, so `filters` are
 * applied to the decoded rows, and then the `limit` too; without filters SQL applies it.
 */
export function listQuery(config: RunnableConfig, options: CheckpointListOptions) {
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
  const filters = Object.entries(options.filter ?? {});
  const limit = options.limit === undefined ? Infinity : Math.max(0, Math.floor(options.limit));
  const limitInSql = Number.isFinite(limit) && filters.length === 0;
  if (limitInSql) params.push(limit);
  return { sql: listSql(where, limitInSql), params, filters, limit };
}

/** The thread id of a config, as stored (LangGraph allows numbers too). */
export function threadIdOf(config: RunnableConfig): string | undefined {
  const threadId: unknown = config.configurable?.thread_id;
  return threadId === undefined || threadId === null ? undefined : String(threadId);
}

export function requireThreadId(config: RunnableConfig, what: string): string {
  const threadId = threadIdOf(config);
  if (threadId === undefined) {
    throw new InvalidInputError(
      `cannot ${what}: config.configurable.thread_id is missing; ` +
        'pass { configurable: { thread_id } } to say which thread to persist',
    );
  }
  return threadId;
}

/** The checkpoint namespace of a config; `''` is the root graph. */
export function namespaceOf(config: RunnableConfig): string {
  const ns: unknown = config.configurable?.checkpoint_ns;
  return ns === undefined || ns === null ? '' : String(ns);
}
