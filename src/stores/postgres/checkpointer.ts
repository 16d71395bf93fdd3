/**
 * LangGraph's official `PostgresSaver` (`SERVICE_CHECKPOINT=postgres://...`), on a pool of
 * ours (pool.ts: a broken connection fails its query, never the process) and with its
 * driver's failures told the way every store tells them (driver-errors.ts): a workflow step
 * that could not read or write its checkpoint because Postgres is down fails with a
 * `StoreUnavailableError` naming the checkpointer, so the run's `run.failed` records that
 * type and its HTTP caller gets 503, not 500.
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
import { storeFailure } from '../shared/driver-errors.js';

type SaverClass = typeof PostgresSaver;

/** A PostgresSaver on `pool` whose failures are StoreErrors naming `where`. */
export function guardedPostgresSaver(
  Saver: SaverClass,
  pool: pg.Pool,
  where: string,
): PostgresSaver {
  const fail = (what: string, error: unknown) =>
    storeFailure('postgres', `${where} could not ${what}`, error);

  class GuardedPostgresSaver extends Saver {
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
        return await super.put(config, checkpoint, metadata, newVersions);
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
      } catch (error) {
        throw fail("save a step's writes", error);
      }
    }

    override async deleteThread(threadId: string): Promise<void> {
      try {
        await super.deleteThread(threadId);
      } catch (error) {
        throw fail(`delete thread '${threadId}'`, error);
      }
    }
  }
  return new GuardedPostgresSaver(pool);
}
