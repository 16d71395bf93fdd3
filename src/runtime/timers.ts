/**
 * Timers (SPEC.md: due_resumes, tick): the threads whose `sleepUntil()` time has come, and
 * waking them. A thread whose latest logged run sleeps on it is continued through the Runtime
 * (that run is closed in the log); a thread with no open logged run is woken from the
 * checkpointer alone, under its thread claim (`resumeUnlogged`). `TimerWaker` calls `tickDue`
 * on its own; `deck.tick()` and `POST /timers/tick` call it on demand.
 * Tested in timers.test.ts (on the scripted engine), and through the deck in
 * src/deck/timers.test.ts and src/deck/wake-timers.test.ts.
 */
import { randomUUID } from 'node:crypto';
import type { WorkflowDefinition } from '../authoring/workflow-definition.js';
import { errorMessage, NotFoundError } from '../core/errors.js';
import { parseInstant } from '../core/instants.js';
import type { WorkflowResult } from '../core/interrupt-result.js';
import { TERMINAL_STATUSES } from '../core/status.js';
import type { EventStore } from '../core/store.js';
import { acquireClaim } from './claims.js';
import type { RunPlayer } from './run-player.js';
import { createRunScope } from './run-scope.js';
import type { DueThread, WorkflowEngine } from './workflow-engine.js';
import { addressResume, segmentResult, settle, threadClaimKey } from './workflow-run.js';

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

export interface TimerParts {
  store: EventStore;
  runtime: Pick<RunPlayer, 'resumeWorkflow'>;
  engine: WorkflowEngine;
  workflows: ReadonlyMap<string, WorkflowDefinition>;
  staleRunAfterSeconds: number;
}

/** Threads of durable workflows whose `sleepUntil()` time is at or before `now` (default: now). */
export async function dueThreads(ops: TimerParts, now: unknown): Promise<DueThread[]> {
  return ops.engine.dueThreads(now === undefined ? new Date() : parseInstant(now, 'now'));
}

/**
 * Resume every due thread, one after another: through the Runtime when the thread's latest
 * logged run sleeps on it (that run is continued and closed), straight from the
 * checkpointer when the thread has no open logged run. Each thread is checked again under
 * its lock, so overlapping ticks (two processes, a slow loop) never wake a timer twice or
 * early. No context: a node that declares one sees `null`. One thread's failure does not
 * stop the rest; it is reported in its outcome.
 */
export async function tickDue(ops: TimerParts, now: unknown): Promise<TickOutcome[]> {
  const at = now === undefined ? new Date() : parseInstant(now, 'now');
  const outcomes: TickOutcome[] = [];
  const due = [...(await ops.engine.dueThreads(at))];
  // A few at once: each waits on its own store writes; their claims keep them apart.
  const worker = async () => {
    for (let next = due.shift(); next; next = due.shift()) await wakeOne(ops, next, at, outcomes);
  };
  await Promise.all(Array.from({ length: TICK_CONCURRENCY }, worker));
  return outcomes;
}

/** How many due threads one tick wakes at once. */
const TICK_CONCURRENCY = 8;

async function wakeOne(
  ops: TimerParts,
  due: DueThread,
  at: Date,
  outcomes: TickOutcome[],
): Promise<void> {
  const workflow = ops.workflows.get(due.workflow);
  if (!workflow) return;
  const [latest] = await ops.store.listRuns({
    origin: due.workflow,
    sessionId: due.threadId,
    limit: 1,
  });
  const open = latest && !TERMINAL_STATUSES.includes(latest.status) ? latest : null;
  const base = { workflow: due.workflow, threadId: due.threadId, runId: open?.runId ?? null };
  try {
    const result = open
      ? await settle(ops.runtime.resumeWorkflow(workflow, open.runId, { wake: at }))
      : await resumeUnlogged(ops, workflow, due.threadId, at);
    outcomes.push({ ...base, result, error: null });
  } catch (error) {
    outcomes.push({ ...base, result: null, error: errorMessage(error) });
  }
}

/** Wake a thread no open logged run matches: the engine alone, under the thread's claim. */
async function resumeUnlogged(
  ops: TimerParts,
  workflow: WorkflowDefinition,
  threadId: string,
  at: Date,
): Promise<WorkflowResult> {
  const key = threadClaimKey(workflow.name, threadId);
  const holder = `tick-${randomUUID()}`;
  await acquireClaim(ops.store, {
    key,
    runId: holder,
    staleAfterMs: ops.staleRunAfterSeconds * 1000,
  });
  const controller = new AbortController();
  try {
    // Checked under the claim: another tick may have woken it since the list was read.
    const values = addressResume(await ops.engine.openPauses(workflow, threadId), { wake: at });
    if (!values) {
      throw new NotFoundError(
        `thread '${threadId}' of workflow '${workflow.name}' is not due at ${at.toISOString()} any more; another tick woke it`,
      );
    }
    const scope = createRunScope({
      data: null,
      invocable: workflow.name,
      runId: holder,
      sessionId: threadId,
      signal: controller.signal,
    });
    const segment = ops.engine.playSegment({
      workflow,
      threadId,
      start: { resume: values },
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
