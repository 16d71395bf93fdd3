/**
 * LangGraph's official `PostgresSaver` (`SERVICE_CHECKPOINT=postgres://...`), on a pool of
 * ours (pool.ts: a broken connection fails its query, never the process) and with its
 * driver's failures told the way every store tells them (driver-errors.ts): a workflow step
 * that could not read or write its checkpoint because Postgres is down fails with a
 * `StoreUnavailableError` naming the checkpointer, so the run's `run.failed` records that
 * type and its HTTP caller gets 503, not 500.
 *
 * It also keeps a timer index, as our SQLite checkpointer does (`WakeupIndex`): one row per
 * interrupted task waiting on `sleepUntil()` in `agentdeck_wakeups`, written with the task's
 * writes and cleared when the thread moves on, so due threads and the next wake-up are one
 * indexed query rather than a read of every checkpoint.
 */
import type { RunnableConfig } from '@langchain/core/runnables';
import type {
  Checkpoint,
  CheckpointListOptions,
  CheckpointMetadata,
  CheckpointTuple,
  PendingWrite,
} from '@langchain/langgraph-checkpoint';
import type { PostgresSaver } from '@langchain/langgraph-checkpoint-postgres';
import type pg from 'pg';
import { log } from '../../core/log.js';
import type { DueWakeup, DueWakeupsOptions, WakeupIndex } from '../../core/wakeups.js';
import { storeFailure } from '../shared/driver-errors.js';
import { wakeupChange } from '../shared/wakeup-changes.js';

/** The timer index's table, created with the checkpointer's own tables. */
export const WAKEUPS_SCHEMA = `
  CREATE TABLE IF NOT EXISTS agentdeck_wakeups (
    thread_id TEXT NOT NULL,
    checkpoint_ns TEXT NOT NULL,
    task_id TEXT NOT NULL,
    checkpoint_id TEXT NOT NULL,
    wake_at TIMESTAMPTZ NOT NULL,
    PRIMARY KEY (thread_id, checkpoint_ns, task_id)
  );
  CREATE INDEX IF NOT EXISTS agentdeck_wakeups_due ON agentdeck_wakeups (checkpoint_ns, wake_at);`;

/**
 * LangGraph writes a thread's checkpoints and writes in the background, on several pool
 * connections, so they may land out of order: a timer is set only while no newer checkpoint
 * exists, and a new checkpoint clears only the timers of older ones (checkpoint ids are
 * time-ordered), never a newer one's.
 */
const WAKEUP_SQL = {
  set: `INSERT INTO agentdeck_wakeups (thread_id, checkpoint_ns, task_id, checkpoint_id, wake_at)
    SELECT $1, $2, $3, $4, $5
    WHERE NOT EXISTS (SELECT 1 FROM checkpoints
      WHERE thread_id = $1 AND checkpoint_ns = $2 AND checkpoint_id > $4)
    ON CONFLICT (thread_id, checkpoint_ns, task_id)
    DO UPDATE SET checkpoint_id = excluded.checkpoint_id, wake_at = excluded.wake_at
    WHERE agentdeck_wakeups.checkpoint_id <= excluded.checkpoint_id`,
  clearTask:
    'DELETE FROM agentdeck_wakeups WHERE thread_id = $1 AND checkpoint_ns = $2 AND task_id = $3',
  clearStale:
    'DELETE FROM agentdeck_wakeups WHERE thread_id = $1 AND checkpoint_ns = $2 AND checkpoint_id < $3',
  clearThread: 'DELETE FROM agentdeck_wakeups WHERE thread_id = $1',
  due: `SELECT thread_id, min(wake_at) AS wake_at FROM agentdeck_wakeups
    WHERE checkpoint_ns = '' AND wake_at <= $1 AND starts_with(thread_id, $2)
    GROUP BY thread_id ORDER BY 2, thread_id`,
  next: `SELECT min(wake_at) AS wake_at FROM agentdeck_wakeups
    WHERE checkpoint_ns = '' AND starts_with(thread_id, $1)`,
} as const;

type SaverClass = typeof PostgresSaver;

/** A PostgresSaver on `pool` whose failures are StoreErrors naming `where`. */
export function guardedPostgresSaver(
  Saver: SaverClass,
  pool: pg.Pool,
  where: string,
): PostgresSaver & WakeupIndex {
  const fail = (what: string, error: unknown) =>
    storeFailure('postgres', `${where} could not ${what}`, error);

  /**
   * Old timers cleared after a checkpoint, not awaited by its `put` (issue 43: a round trip
   * in a row at the end of every segment but a thread's first). The index already outlives a
   * crash between the checkpoint's commit and the clear, so a reader must take a stale timer
   * for what it is (a wake-up that finds nothing due); this process's own readers wait for
   * the clears first, so they never see one.
   */
  const clearing = new Set<Promise<unknown>>();
  const cleared = async () => {
    await Promise.allSettled([...clearing]);
  };

  class GuardedPostgresSaver extends Saver implements WakeupIndex {
    override async getTuple(config: RunnableConfig): Promise<CheckpointTuple | undefined> {
      try {
        return await super.getTuple(config);
      } catch (error) {
        throw fail('read a checkpoint', error);
      }
    }

    override async *list(
      config: RunnableConfig,
      options?: CheckpointListOptions,
    ): AsyncGenerator<CheckpointTuple> {
      try {
        yield* super.list(config, options);
      } catch (error) {
        throw fail('list checkpoints', error);
      }
    }

    override async put(
      config: RunnableConfig,
      checkpoint: Checkpoint,
      metadata: CheckpointMetadata,
      newVersions: Parameters<PostgresSaver['put']>[3],
    ): Promise<RunnableConfig> {
      try {
        const saved = await super.put(config, checkpoint, metadata, newVersions);
        // A new checkpoint means the thread moved on: its old interrupts are answered. A
        // thread's first checkpoint (no parent) has none older, so no round trip for it.
        const { thread_id, checkpoint_ns, checkpoint_id } = config.configurable ?? {};
        if (checkpoint_id) {
          const clear = pool
            .query(WAKEUP_SQL.clearStale, [thread_id, checkpoint_ns ?? '', checkpoint.id])
            .catch((error: unknown) => {
              log.error(`[agentdeck] ${fail('clear old timers', error).message}`);
            })
            .finally(() => clearing.delete(clear));
          clearing.add(clear);
        }
        return saved;
      } catch (error) {
        throw fail('save a checkpoint', error);
      }
    }

    override async putWrites(
      config: RunnableConfig,
      writes: PendingWrite[],
      taskId: string,
    ): Promise<void> {
      try {
        await super.putWrites(config, writes, taskId);
        const { thread_id, checkpoint_ns, checkpoint_id } = config.configurable ?? {};
        const wakeup = wakeupChange(writes);
        const task = [thread_id, checkpoint_ns ?? '', taskId];
        if (wakeup.kind === 'set') {
          await pool.query(WAKEUP_SQL.set, [...task, checkpoint_id, wakeup.wakeAt]);
        } else if (wakeup.kind === 'clear') {
          await pool.query(WAKEUP_SQL.clearTask, task);
        }
      } catch (error) {
        throw fail("save a step's writes", error);
      }
    }

    /**
     * The thread's timers first, then its checkpoints (LangGraph's own transaction): should
     * the second step fail, the thread is left without a timer, which the caller deleting it
     * can retry, rather than a timer that keeps finding a thread that is gone due.
     */
    override async deleteThread(threadId: string): Promise<void> {
      try {
        await cleared();
        await pool.query(WAKEUP_SQL.clearThread, [threadId]);
        await super.deleteThread(threadId);
      } catch (error) {
        throw fail(`delete thread '${threadId}'`, error);
      }
    }

    /** Close the pool once the clears in flight are done. */
    override async end(): Promise<void> {
      await cleared();
      await super.end();
    }

    async dueWakeups(now: Date, options: DueWakeupsOptions = {}): Promise<DueWakeup[]> {
      try {
        await cleared();
        const { rows } = await pool.query<{ thread_id: string; wake_at: Date }>(WAKEUP_SQL.due, [
          now.toISOString(),
          options.threadIdPrefix ?? '',
        ]);
        return rows.map((row) => ({ threadId: row.thread_id, wakeAt: row.wake_at.toISOString() }));
      } catch (error) {
        throw fail('find due wake-ups', error);
      }
    }

    async nextWakeup(options: DueWakeupsOptions = {}): Promise<string | null> {
      try {
        await cleared();
        const { rows } = await pool.query<{ wake_at: Date | null }>(WAKEUP_SQL.next, [
          options.threadIdPrefix ?? '',
        ]);
        return rows[0]?.wake_at?.toISOString() ?? null;
      } catch (error) {
        throw fail('find the next wake-up', error);
      }
    }
  }
  return new GuardedPostgresSaver(pool);
}
