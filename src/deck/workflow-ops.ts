/**
 * The Deck's human-in-the-loop and timer operations (SPEC.md: pending, answer,
 * due_resumes, tick), kept apart from the lifecycle in deck.ts. They read the event log
 * for runs and the checkpointers for timers, and continue runs through the Runtime.
 */
import { randomUUID } from 'node:crypto';
import { createRunScope } from '../authoring/context.js';
import type { Workflow } from '../authoring/workflow.js';
import { errorMessage } from '../core/errors.js';
import type { Event } from '../core/events.js';
import { parseInstant } from '../core/instants.js';
import type { WorkflowResult } from '../core/interrupt-result.js';
import type { EventStore } from '../core/store.js';
import type { Runtime } from '../runtime/runtime.js';
import type { DueThread, WorkflowEngine } from '../runtime/workflow-engine.js';
import { segmentResult, threadClaimKey, type WorkflowOutcome } from '../runtime/workflow-run.js';

/** A run waiting for a person's answer (an element of `deck.pending()`). */
export interface PendingItem {
  runId: string;
  threadId: string;
  /** The value the node passed to `interrupt()`. */
  payload: unknown;
  /** The workflow's name. */
  invocable: string;
}

/** What `tick()` did with one due thread. */
export interface TickOutcome {
  workflow: string;
  threadId: string;
  /** The logged run that was continued and closed, or `null` when the thread had none. */
  runId: string | null;
  /** The final state, or the next InterruptResult; `null` when the resume failed. */
  result: WorkflowResult | null;
  /** Why the resume failed (the error's message), or `null`. */
  error: string | null;
}

/** What `sleepUntil()` returns into the woken node. */
const WAKE_VALUE = null;

export interface WorkflowOps {
  store: EventStore;
  runtime: Runtime;
  engine: WorkflowEngine;
  workflows: ReadonlyMap<string, Workflow>;
  staleRunAfterSeconds: number;
}

/** Every run of this catalog's workflows waiting for an answer, oldest first. */
export async function pendingRuns(ops: WorkflowOps): Promise<PendingItem[]> {
  const runs = await ops.store.listRuns({
    status: 'waiting_human',
    limit: Number.MAX_SAFE_INTEGER,
  });
  const items: PendingItem[] = [];
  for (const run of runs.reverse()) {
    if (!ops.workflows.has(run.origin)) continue;
    const [last] = await ops.store.read(run.runId, { afterSeq: run.lastSeq - 1 });
    if (last?.kind !== 'run.interrupted') continue;
    items.push({
      runId: run.runId,
      threadId: last.payload.threadId,
      payload: last.payload.payload,
      invocable: run.origin,
    });
  }
  return items;
}

/** Drain a workflow segment; the result, or the segment's original error. */
export async function settle(
  generator: AsyncGenerator<Event, WorkflowOutcome, undefined>,
): Promise<WorkflowResult> {
  let step = await generator.next();
  while (!step.done) step = await generator.next();
  const outcome = step.value;
  if (outcome.error !== undefined) throw outcome.error;
  if (outcome.result === undefined) {
    throw new Error('the workflow run was cancelled before it finished');
  }
  return outcome.result;
}

export async function dueThreads(ops: WorkflowOps, now: unknown): Promise<DueThread[]> {
  return ops.engine.dueThreads(now === undefined ? new Date() : parseInstant(now, 'now'));
}

/**
 * Resume every due thread, one after another: through the Runtime when a logged run sleeps
 * on it (that run is continued and closed), straight from the checkpointer otherwise. No
 * context: a node that declares one sees `null`. One thread's failure does not stop the rest.
 */
export async function tickDue(ops: WorkflowOps, now: unknown): Promise<TickOutcome[]> {
  const outcomes: TickOutcome[] = [];
  for (const due of await dueThreads(ops, now)) {
    const workflow = ops.workflows.get(due.workflow);
    if (!workflow) continue;
    const [run] = await ops.store.listRuns({
      origin: due.workflow,
      sessionId: due.threadId,
      status: 'paused',
      limit: 1,
    });
    const base = { workflow: due.workflow, threadId: due.threadId, runId: run?.runId ?? null };
    try {
      const result = run
        ? await settle(
            ops.runtime.resumeWorkflow(workflow, run.runId, WAKE_VALUE, { expected: 'paused' }),
          )
        : await resumeUnlogged(ops, workflow, due.threadId);
      outcomes.push({ ...base, result, error: null });
    } catch (error) {
      outcomes.push({ ...base, result: null, error: errorMessage(error) });
    }
  }
  return outcomes;
}

/** Wake a thread no logged run matches: the engine alone, under the thread's claim. */
async function resumeUnlogged(
  ops: WorkflowOps,
  workflow: Workflow,
  threadId: string,
): Promise<WorkflowResult> {
  const key = threadClaimKey(workflow.name, threadId);
  const holder = `tick-${randomUUID()}`;
  const claim = await ops.store.claim({
    key,
    runId: holder,
    staleAfterMs: ops.staleRunAfterSeconds * 1000,
  });
  if (!claim.acquired) {
    throw new Error(`thread '${threadId}' is busy: run '${claim.holder.runId}' holds it`);
  }
  const controller = new AbortController();
  try {
    const scope = createRunScope({
      data: null,
      runId: holder,
      sessionId: threadId,
      signal: controller.signal,
    });
    const segment = ops.engine.playSegment({
      workflow,
      threadId,
      start: { resume: WAKE_VALUE },
      scope,
    });
    let step = await segment.next();
    while (!step.done) step = await segment.next();
    return segmentResult(step.value, threadId, null);
  } finally {
    controller.abort();
    // A thread paused again keeps no claim: nothing in the log would ever free it.
    await ops.store.release(key, holder);
  }
}
