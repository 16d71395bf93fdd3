/**
 * The graph check before a workflow thread resumes (#42): where the thread stands, and a
 * refusal, before anything is claimed or recorded, when its graph changed so that it cannot
 * go on (engines/langgraph/graph-change.ts says why). The thread and the run stay as they were.
 */
import type { WorkflowDefinition } from '../authoring/workflow-definition.js';
import { ConflictError, NotFoundError } from '../core/errors.js';
import { notResumableMessage } from './not-resumable.js';
import type { GraphChange, ResumePoint, SegmentStart, WorkflowEngine } from './workflow-engine.js';
import { addressResume, type WorkflowResume } from './workflow-run.js';

/** The thread's open pauses and graph check, from one read when the engine can. */
export async function resumePointOf(
  engine: WorkflowEngine,
  workflow: WorkflowDefinition,
  threadId: string,
): Promise<ResumePoint> {
  if (engine.resumePoint) return engine.resumePoint(workflow, threadId);
  return { open: await engine.openPauses(workflow, threadId), change: null, blocked: null };
}

/** Throw ConflictError (409) when the thread cannot resume under the current graph. */
export function refuseBlocked(point: ResumePoint, workflow: WorkflowDefinition, runId: string) {
  if (point.blocked === null) return;
  const from = point.change?.from ?? 'an unknown graph';
  throw new ConflictError(
    `run '${runId}' of workflow '${workflow.name}' cannot resume: its graph changed ` +
      `(${from} -> ${point.change?.to}) and ${point.blocked}; the run and its thread stay as they were ` +
      '(deploy a graph it can go on under, or declare migrate(); docs/workflow-versions.md)',
  );
}

/**
 * How a `paused` run goes on (Runtime.continueWorkflow): a thread stopped between nodes
 * continues, one sleeping is woken if a timer is due (else NotFoundError); refused when its
 * graph changed so that it cannot.
 */
export async function continuationOf(
  engine: WorkflowEngine,
  workflow: WorkflowDefinition,
  runId: string,
  threadId: string,
): Promise<{ start: SegmentStart; graphChange: GraphChange | null }> {
  const point = await resumePointOf(engine, workflow, threadId);
  refuseBlocked(point, workflow, runId);
  const { open } = point;
  const update = point.update ? { update: point.update } : {};
  let start: SegmentStart = { continue: true, ...update };
  if (open.length > 0) {
    const wake: WorkflowResume = { wake: new Date() };
    const values = addressResume(open, wake);
    if (!values)
      throw new NotFoundError(notResumableMessage(workflow, runId, threadId, open, wake));
    start = { resume: values, ...update };
  }
  return { start, graphChange: point.change };
}
