/**
 * `deck.pending()`: the runs of this catalog waiting for a person's answer (a workflow's
 * `interrupt()`, an agent's tool call held for approval), read from the event log. (Timers, `tick()` and `dueResumes()`, are the Runtime's: runtime/timers.ts.)
 */
import type { Event } from '../core/events.js';
import type { EventLog, RunIndex } from '../core/store.js';

/** What reading the inbox needs of a store: events and the run index. */
type InboxReader = Pick<EventLog, 'read'> & RunIndex;

/** A run waiting for a person's answer (an element of `deck.pending()`). */
export interface PendingItem {
  runId: string;
  /** The workflow's thread; for an agent run, its session (or its run id without one). */
  threadId: string;
  /**
   * The value the node passed to `interrupt()`; for a tool approval, the held call:
   * `{ tool, call_id, arguments }`.
   */
  payload: unknown;
  /** The workflow's or the agent's name. */
  invocable: string;
  /** Whether a workflow or an agent waits. */
  kind: 'workflow' | 'agent';
  /** `interrupt`: a workflow's question; `approval`: an agent's tool call to approve. */
  reason: 'interrupt' | 'approval';
  /** The run's session (an agent's conversation, a workflow's thread id), or `null`. */
  sessionId: string | null;
  /**
   * Why a workflow's thread cannot resume (its graph changed since it paused: a node it waits
   * at is gone, or its state does not parse); absent when it can (docs/workflow-versions.md).
   */
  blocked?: string;
  /**
   * The JSON Schema the answer must match (#41): a workflow's `interrupt(payload, { answer })`,
   * or for an approval, its reason's (`tool({ approvalReason })`). Absent when any is accepted.
   */
  answerSchema?: Record<string, unknown>;
}

/** Why a workflow's thread cannot resume under its current graph, or `null`. */
export type BlockedReason = (workflow: string, threadId: string) => Promise<string | null>;

/**
 * Every run of this catalog's workflows waiting for an answer, oldest first: one range of the
 * run index's status index, then each run's last event (its `run.interrupted`, one key read).
 */
export async function pendingRuns(
  store: InboxReader,
  workflows: ReadonlyMap<string, unknown>,
  agents: ReadonlyMap<string, unknown> = new Map(),
  blockedReason?: BlockedReason,
): Promise<PendingItem[]> {
  const runs = await store.listRuns({
    status: 'waiting_human',
    limit: Number.MAX_SAFE_INTEGER,
  });
  const items: PendingItem[] = [];
  for (const run of runs.reverse()) {
    const kind = workflows.has(run.origin) ? 'workflow' : agents.has(run.origin) ? 'agent' : null;
    if (kind === null) continue;
    const last = await lastLifecycleEvent(store, run.runId, run.lastSeq);
    if (last?.kind !== 'run.interrupted') continue;
    const item = pendingItem(last, kind);
    const blocked =
      kind === 'workflow' ? await blockedReason?.(item.invocable, item.threadId) : null;
    items.push(blocked ? { ...item, blocked } : item);
  }
  return items;
}

/**
 * The run of workflow `workflow` waiting for an answer on thread `threadId`, or `null`: a
 * lookup by the thread (the run's session, indexed), never a listing of every waiting run.
 * A run started without a thread id waits on a thread named by its run id.
 */
export async function pendingOnThread(
  store: InboxReader,
  workflow: string,
  threadId: string,
): Promise<PendingItem | null> {
  const [bySession] = await store.listRuns({
    origin: workflow,
    sessionId: threadId,
    status: 'waiting_human',
    limit: 1,
  });
  const byId = bySession ? null : await store.getRun(threadId);
  const run =
    bySession ??
    (byId?.origin === workflow && byId.status === 'waiting_human' && byId.sessionId === null
      ? byId
      : undefined);
  if (!run) return null;
  const last = await lastLifecycleEvent(store, run.runId, run.lastSeq);
  if (last?.kind !== 'run.interrupted' || last.payload.threadId !== threadId) return null;
  return pendingItem(last, 'workflow');
}

/** The inbox item of a run whose latest lifecycle event is its `run.interrupted`. */
export function pendingItem(
  interrupted: Extract<Event, { kind: 'run.interrupted' }>,
  kind: PendingItem['kind'],
): PendingItem {
  return {
    runId: interrupted.runId,
    threadId: interrupted.payload.threadId,
    payload: interrupted.payload.payload,
    invocable: interrupted.origin,
    kind,
    reason: interrupted.payload.reason ?? 'interrupt',
    sessionId: interrupted.sessionId,
    ...(interrupted.payload.answerSchema ? { answerSchema: interrupted.payload.answerSchema } : {}),
  };
}

/**
 * A run's latest `run.*` event: usually its last event, but a control request may have been
 * recorded after it (then the whole run is read).
 */
export async function lastLifecycleEvent(
  store: InboxReader,
  runId: string,
  lastSeq: number,
): Promise<Event | undefined> {
  const [last] = await store.read(runId, { afterSeq: lastSeq - 1 });
  if (!last || last.kind.startsWith('run.')) return last;
  return (await store.read(runId)).findLast((e) => e.kind.startsWith('run.'));
}
