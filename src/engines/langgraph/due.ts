/**
 * Finding the threads whose `sleepUntil()` time has come, in the durable checkpointer. A
 * checkpointer with a timer index (our SQLite saver, `lg_wakeups`; our Postgres saver,
 * `agentdeck_wakeups`) answers with one indexed query; for the others (LangGraph's
 * `MemorySaver`) every checkpoint is listed and each thread's latest one is read for a
 * pending timer, which is linear in the number of checkpoints.
 */
import type { BaseCheckpointSaver } from '@langchain/langgraph';
import { isWakeupIndex, wakeTimeOf } from '../../core/wakeups.js';
import type { DueThread } from '../../runtime/workflow-engine.js';
import { parseStoredThreadId } from './threads.js';

const INTERRUPT = '__interrupt__';

export async function dueThreads(
  saver: BaseCheckpointSaver,
  workflows: ReadonlySet<string>,
  now: Date,
): Promise<DueThread[]> {
  const found = isWakeupIndex(saver)
    ? await saver.dueWakeups(now)
    : await scanForWakeups(saver, now);
  const due: DueThread[] = [];
  for (const { threadId: stored, wakeAt } of found) {
    const parsed = parseStoredThreadId(stored);
    if (parsed && workflows.has(parsed.workflow)) due.push({ ...parsed, wakeAt });
  }
  return due;
}

/**
 * The earliest wake-up among the given workflows' sleeping threads: the index's answer when
 * the checkpointer has one (a thread of another deck's workflow may come first: waking early
 * only finds nothing due), else a scan.
 */
export async function nextWakeup(
  saver: BaseCheckpointSaver,
  workflows: ReadonlySet<string>,
): Promise<string | null> {
  if (isWakeupIndex(saver)) return saver.nextWakeup();
  const [first] = (await dueThreads(saver, workflows, new Date(8.64e15))).sort(
    (a, b) => Date.parse(a.wakeAt) - Date.parse(b.wakeAt),
  );
  return first?.wakeAt ?? null;
}

async function scanForWakeups(saver: BaseCheckpointSaver, now: Date) {
  const latest = new Map<string, { checkpointId: string; wakeAt: string | null }>();
  for await (const tuple of saver.list({ configurable: {} })) {
    const {
      thread_id: threadId,
      checkpoint_ns: ns,
      checkpoint_id: checkpointId,
    } = tuple.config.configurable ?? {};
    if (typeof threadId !== 'string' || (ns ?? '') !== '' || typeof checkpointId !== 'string') {
      continue;
    }
    const seen = latest.get(threadId);
    if (seen && seen.checkpointId >= checkpointId) continue;
    latest.set(threadId, { checkpointId, wakeAt: earliestWake(tuple.pendingWrites ?? []) });
  }
  const limit = now.getTime();
  return [...latest]
    .filter(([, t]) => t.wakeAt !== null && Date.parse(t.wakeAt) <= limit)
    .map(([threadId, t]) => ({ threadId, wakeAt: t.wakeAt as string }))
    .sort((a, b) => Date.parse(a.wakeAt) - Date.parse(b.wakeAt));
}

function earliestWake(writes: readonly [string, string, unknown][]): string | null {
  let earliest: string | null = null;
  for (const [, channel, value] of writes) {
    if (channel !== INTERRUPT || !Array.isArray(value)) continue;
    for (const item of value as { value?: unknown }[]) {
      const at = wakeTimeOf(item?.value);
      if (at !== null && (earliest === null || Date.parse(at) < Date.parse(earliest)))
        earliest = at;
    }
  }
  return earliest;
}
