/**
 * A durable thread's checkpoints, and the copy of one to a new thread (#41): what a fork and
 * "re-run from here" start from. The history is LangGraph's `getStateHistory`; the copy is
 * the checkpointer's own `put` of the checkpoint (its channel values and versions, its
 * metadata with the graph fingerprint that wrote it, `source: 'fork'`) under the new thread,
 * as its only checkpoint, so the source thread is never written to. A step's pending writes
 * are not copied: the checkpoint's next nodes run again in full. The input checkpoints
 * (`source: 'input'`, the raw input before the graph's first step) are not listed: the
 * checkpoint after each holds the same state, applied. Tested by the workflow engine
 * contract (src/testing/workflow-engine-contract.ts).
 */
import type { BaseCheckpointSaver } from '@langchain/langgraph';
import { ConfigError, ConflictError, NotFoundError } from '../../core/errors.js';
import type { ThreadCheckpoint, WorkflowState } from '../../runtime/workflow-engine.js';
import type { CompiledGraph } from './graph.js';

interface Snapshot {
  values: unknown;
  next: readonly string[];
  config: { configurable?: { checkpoint_id?: string } };
  metadata?: { source?: string; step?: number };
  createdAt?: string;
}

interface WithHistory {
  getStateHistory(config: Record<string, unknown>): AsyncIterable<Snapshot>;
}

/** The thread's checkpoints, newest first, without its input checkpoints. */
export async function checkpointsOf(
  graph: CompiledGraph,
  stored: string,
): Promise<ThreadCheckpoint[]> {
  const snapshots: Snapshot[] = [];
  const history = (graph as unknown as WithHistory).getStateHistory({
    configurable: { thread_id: stored },
  });
  for await (const snapshot of history) snapshots.push(snapshot);
  const listed: ThreadCheckpoint[] = [];
  snapshots.forEach((snapshot, index) => {
    if (snapshot.metadata?.source === 'input') return;
    // Newest first: the checkpoint before this one is the next in the list.
    const previous = snapshots[index + 1];
    listed.push({
      id: snapshot.config.configurable?.checkpoint_id ?? '',
      step: snapshot.metadata?.step ?? 0,
      writtenBy: previous ? previous.next.filter((node) => node !== '__start__') : [],
      next: [...snapshot.next],
      createdAt: snapshot.createdAt ?? '',
      values: (snapshot.values ?? {}) as WorkflowState,
    });
  });
  return listed;
}

/** Copy checkpoint `checkpointId` of thread `from` to the new thread `to` (both stored ids). */
export async function copyCheckpoint(
  graph: CompiledGraph,
  saver: BaseCheckpointSaver,
  from: { stored: string; threadId: string },
  checkpointId: string,
  to: string,
): Promise<ThreadCheckpoint> {
  const listed = await checkpointsOf(graph, from.stored);
  const chosen = listed.find((checkpoint) => checkpoint.id === checkpointId);
  const tuple = chosen
    ? await saver.getTuple({
        configurable: { thread_id: from.stored, checkpoint_ns: '', checkpoint_id: checkpointId },
      })
    : undefined;
  if (!chosen || !tuple) {
    throw new NotFoundError(
      `thread '${from.threadId}' has no checkpoint '${checkpointId}'; list its checkpoints for their ids`,
    );
  }
  if ((tuple.metadata as Record<string, unknown> | undefined)?.counters_since_delta_snapshot) {
    throw new ConfigError(
      `thread '${from.threadId}' keeps delta channels (LangGraph beta), whose values live across checkpoints: it cannot be forked`,
    );
  }
  if (await saver.getTuple({ configurable: { thread_id: to, checkpoint_ns: '' } })) {
    throw new ConflictError(`thread '${to}' exists already; fork to a new thread id`);
  }
  const { checkpoint } = tuple;
  const metadata = { ...tuple.metadata, source: 'fork' as const, parents: {} };
  await saver.put(
    { configurable: { thread_id: to, checkpoint_ns: '' } },
    checkpoint,
    metadata as typeof tuple.metadata & object,
    checkpoint.channel_versions,
  );
  return { ...chosen, createdAt: checkpoint.ts };
}
