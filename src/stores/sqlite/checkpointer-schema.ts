/**
 * The schema of the SQLite LangGraph checkpointer, and the statements that read and write it,
 * kept apart from the saver so that a schema change and its queries are made in one place.
 * The tables live in the event store's file (`./.agentdeck/state.db` by default) under the
 * `checkpoints` component of `schema_migrations`, so their names carry an `lg_` prefix.
 * Channel values are stored once per (thread, namespace, channel, version) in `lg_blobs`,
 * not in every checkpoint: a checkpoint lists its channel versions, and a step that writes
 * one channel adds one blob. `lg_wakeups` indexes the timers of interrupted tasks
 * (see `core/wakeups.ts`), one row per task, so finding due threads reads only due rows.
 */
import type { SQLOutputValue, StatementSync } from 'node:sqlite';
import type { Migration } from './migrations.js';

/** The checkpointer's component name in `schema_migrations`. */
export const CHECKPOINT_COMPONENT = 'checkpoints';

/** Never edit a released migration; add the next version instead. */
export const CHECKPOINT_MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    name: 'LangGraph checkpoints, channel blobs, pending writes, wake-ups',
    compatibility: 'breaking',
    release: '0.1.0',
    sql: `
      CREATE TABLE lg_checkpoints (
        thread_id TEXT NOT NULL,
        checkpoint_ns TEXT NOT NULL,
        checkpoint_id TEXT NOT NULL,
        parent_checkpoint_id TEXT,
        type TEXT NOT NULL,
        checkpoint BLOB NOT NULL,
        metadata_type TEXT NOT NULL,
        metadata BLOB NOT NULL,
        channel_versions TEXT NOT NULL,
        PRIMARY KEY (thread_id, checkpoint_ns, checkpoint_id)
      );
      CREATE TABLE lg_blobs (
        thread_id TEXT NOT NULL,
        checkpoint_ns TEXT NOT NULL,
        channel TEXT NOT NULL,
        version TEXT NOT NULL,
        type TEXT NOT NULL,
        blob BLOB,
        PRIMARY KEY (thread_id, checkpoint_ns, channel, version)
      );
      CREATE TABLE lg_writes (
        thread_id TEXT NOT NULL,
        checkpoint_ns TEXT NOT NULL,
        checkpoint_id TEXT NOT NULL,
        task_id TEXT NOT NULL,
        idx INTEGER NOT NULL,
        channel TEXT NOT NULL,
        type TEXT NOT NULL,
        blob BLOB NOT NULL,
        task_path TEXT NOT NULL,
        PRIMARY KEY (thread_id, checkpoint_ns, checkpoint_id, task_id, idx)
      );
      CREATE TABLE lg_wakeups (
        thread_id TEXT NOT NULL,
        checkpoint_ns TEXT NOT NULL,
        task_id TEXT NOT NULL,
        checkpoint_id TEXT NOT NULL,
        wake_at_ms INTEGER NOT NULL,
        wake_at TEXT NOT NULL,
        PRIMARY KEY (thread_id, checkpoint_ns, task_id)
      );
      CREATE INDEX lg_wakeups_due ON lg_wakeups (checkpoint_ns, wake_at_ms);
    `,
  },
];

// `channel_versions` repeats the checkpoint's versions as JSON ({channel: "version"}) whatever
// the serializer, so SQLite can join a checkpoint to its blobs.
const CHECKPOINT_COLUMNS = `thread_id, checkpoint_ns, checkpoint_id, parent_checkpoint_id, type,
  checkpoint, metadata_type, metadata, channel_versions`;

/** The statements the checkpointer prepares once. */
export const CHECKPOINT_SQL = {
  begin: 'BEGIN IMMEDIATE',
  commit: 'COMMIT',
  rollback: 'ROLLBACK',
  checkpoint: `SELECT ${CHECKPOINT_COLUMNS} FROM lg_checkpoints
    WHERE thread_id = ? AND checkpoint_ns = ? AND checkpoint_id = ?`,
  latest: `SELECT ${CHECKPOINT_COLUMNS} FROM lg_checkpoints
    WHERE thread_id = ? AND checkpoint_ns = ? ORDER BY checkpoint_id DESC LIMIT 1`,
  blobs: `SELECT b.channel, b.type, b.blob FROM json_each(?) AS v
    JOIN lg_blobs AS b ON b.thread_id = ? AND b.checkpoint_ns = ?
      AND b.channel = v.key AND b.version = v.value`,
  writes: `SELECT task_id, idx, channel, type, blob, task_path FROM lg_writes
    WHERE thread_id = ? AND checkpoint_ns = ? AND checkpoint_id = ?`,
  channelWrites: `SELECT task_id, idx, channel, type, blob, task_path FROM lg_writes
    WHERE thread_id = ? AND checkpoint_ns = ? AND checkpoint_id = ? AND channel = ?`,
  insertBlob: `INSERT INTO lg_blobs (thread_id, checkpoint_ns, channel, version, type, blob)
    VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING`,
  upsertCheckpoint: `INSERT INTO lg_checkpoints (${CHECKPOINT_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
    ON CONFLICT (thread_id, checkpoint_ns, checkpoint_id) DO UPDATE SET
      type = excluded.type, checkpoint = excluded.checkpoint,
      metadata_type = excluded.metadata_type, metadata = excluded.metadata,
      channel_versions = excluded.channel_versions`,
  // A task's writes are final once stored (a retried task keeps the first copy), but the
  // special channels (error, interrupt, resume...) are replaced by the latest one.
  insertWrite: `INSERT INTO lg_writes
    (thread_id, checkpoint_ns, checkpoint_id, task_id, idx, channel, type, blob, task_path)
    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING`,
  upsertWrite: `INSERT INTO lg_writes
    (thread_id, checkpoint_ns, checkpoint_id, task_id, idx, channel, type, blob, task_path)
    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
    ON CONFLICT (thread_id, checkpoint_ns, checkpoint_id, task_id, idx) DO UPDATE SET
      channel = excluded.channel, type = excluded.type, blob = excluded.blob,
      task_path = excluded.task_path`,
  setWakeup: `INSERT INTO lg_wakeups
    (thread_id, checkpoint_ns, task_id, checkpoint_id, wake_at_ms, wake_at) VALUES (?, ?, ?, ?, ?, ?)
    ON CONFLICT (thread_id, checkpoint_ns, task_id) DO UPDATE SET
      checkpoint_id = excluded.checkpoint_id, wake_at_ms = excluded.wake_at_ms,
      wake_at = excluded.wake_at`,
  clearTaskWakeup:
    'DELETE FROM lg_wakeups WHERE thread_id = ? AND checkpoint_ns = ? AND task_id = ?',
  clearStaleWakeups: `DELETE FROM lg_wakeups
    WHERE thread_id = ? AND checkpoint_ns = ? AND checkpoint_id <> ?`,
  // The prefix test is exact (no LIKE wildcards to escape); it runs only on due rows, which
  // the (checkpoint_ns, wake_at_ms) index finds.
  dueWakeups: `SELECT thread_id, min(wake_at_ms) AS wake_at_ms, wake_at FROM lg_wakeups
    WHERE checkpoint_ns = '' AND wake_at_ms <= ?1 AND substr(thread_id, 1, length(?2)) = ?2
    GROUP BY thread_id ORDER BY 2, thread_id`,
  nextWakeup: `SELECT min(wake_at_ms) AS wake_at_ms FROM lg_wakeups
    WHERE checkpoint_ns = '' AND substr(thread_id, 1, length(?1)) = ?1`,
  deleteCheckpoints: 'DELETE FROM lg_checkpoints WHERE thread_id = ?',
  deleteBlobs: 'DELETE FROM lg_blobs WHERE thread_id = ?',
  deleteWrites: 'DELETE FROM lg_writes WHERE thread_id = ?',
  deleteWakeups: 'DELETE FROM lg_wakeups WHERE thread_id = ?',
} as const;

export type CheckpointStatements = { [K in keyof typeof CHECKPOINT_SQL]: StatementSync };

export type Row = Record<string, SQLOutputValue>;

/**
 * `list()`'s query for its filters; newest first. `limit` is applied here only when no
 * metadata filter follows in JavaScript.
 */
export function listSql(where: readonly string[], limited: boolean): string {
  return `SELECT ${CHECKPOINT_COLUMNS} FROM lg_checkpoints
    ${where.length ? `WHERE ${where.join(' AND ')}` : ''}
    ORDER BY checkpoint_id DESC${limited ? ' LIMIT ?' : ''}`;
}

export { type WakeupChange, wakeupChange } from '../shared/wakeup-changes.js';
