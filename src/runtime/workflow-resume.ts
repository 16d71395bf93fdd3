/**
 * Continuing a paused workflow run, under its resume lock (Runtime.resumeWorkflow): the
 * answer or wake-up goes to the thread's open pauses, and the segment plays from there.
 *
 * One case needs the thread's word over the log's. An answer whose segment was refused for
 * an outage put the run back to wait (workflow-run.ts), but the refusal can be wrong: when
 * Postgres stops after committing the graph's last checkpoint and before acknowledging it, the
 * thread has ended while the log says the run waits. The answer's retry then finds no open
 * question. Rather than "not paused" (and a run waiting forever on a question nobody can
 * answer), the log is brought level with the thread: the answer that took effect (the id on
 * the run's last `run.resumed`) is recorded again with the run's completion, and its retry
 * gets the final state, as for any answer retried once it took effect (answer-replay.ts).
 * Another answer is refused, as it would be once the run completed. Tested in
 * src/runtime/workflow-run.test.ts.
 */
import type { WorkflowDefinition } from '../authoring/workflow-definition.js';
import { NotFoundError } from '../core/errors.js';
import type { Event } from '../core/events.js';
import type { RunSummary } from '../core/store.js';
import { refuseBlocked, resumePointOf } from './graph-resume.js';
import { notResumableMessage } from './not-resumable.js';
import { identityOf } from './paused-run.js';
import type { ResumeWorkflowOptions } from './run-player.js';
import type { ResumePoint, WorkflowState } from './workflow-engine.js';
import {
  addressResume,
  playWorkflowSegment,
  reopenedPause,
  type WorkflowOutcome,
  type WorkflowResume,
  type WorkflowRunDeps,
} from './workflow-run.js';

export async function* resumeWorkflowRun(
  deps: WorkflowRunDeps,
  workflow: WorkflowDefinition,
  /** The paused run, as checked under its resume lock. */
  summary: RunSummary,
  resume: WorkflowResume,
  options: ResumeWorkflowOptions,
): AsyncGenerator<Event, WorkflowOutcome, undefined> {
  const { runId } = summary;
  const threadId = summary.sessionId ?? runId;
  // Pauses this process remembers were written by its own graph: no check is needed.
  const remembered = deps.openPauses?.take(runId, summary.lastSeq);
  const point: ResumePoint = remembered
    ? { open: remembered, change: null, blocked: null }
    : await resumePointOf(deps.engine, workflow, threadId);
  const { open } = point;
  const segment = { workflow, threadId, context: options.context, identity: identityOf(summary) };
  // A thread waiting at a node the graph no longer has shows no pause: refused, not "ended".
  refuseBlocked(point, workflow, runId);
  const values = addressResume(open, resume);
  if (values) {
    return yield* playWorkflowSegment(deps, {
      ...segment,
      start: { resume: values, ...(point.update ? { update: point.update } : {}) },
      reopen: reopenedPause(open, resume, threadId),
      answerId: options.answerId,
      graphChange: point.change,
    });
  }
  const ended =
    'answer' in resume && open.length === 0
      ? await endedMeanwhile(deps, workflow, summary, threadId)
      : null;
  if (!ended) throw new NotFoundError(notResumableMessage(workflow, runId, threadId, open, resume));
  const outcome = yield* playWorkflowSegment(deps, {
    ...segment,
    start: { resume: {} },
    ended: ended.state,
    answerId: ended.answerId,
  });
  if (ended.answerId !== options.answerId) {
    throw new NotFoundError(
      `run '${runId}' of '${workflow.name}' no longer waits: an earlier answer took effect and its thread has ended; read the run for its result`,
    );
  }
  return outcome;
}

/** The thread's final state and the answer that ended it, when it ended while the run waited. */
async function endedMeanwhile(
  deps: WorkflowRunDeps,
  workflow: WorkflowDefinition,
  summary: RunSummary,
  threadId: string,
): Promise<{ state: WorkflowState; answerId: string | undefined } | null> {
  const state = await deps.engine.endedState?.(workflow, threadId, summary.startedAt);
  if (!state) return null;
  const resumed = (await deps.store.read(summary.runId)).findLast((e) => e.kind === 'run.resumed');
  const answerId = resumed?.kind === 'run.resumed' ? resumed.payload.answerId : undefined;
  return { state, answerId };
}
