/**
 * Why a workflow run the log says is waiting cannot be continued here (its thread has no open
 * pause in this deck's checkpointer, or its timer is not due): the message names the cause and
 * what to do, and says nothing was changed.
 *
 * Tested in src/deck/workflow-runs.test.ts (the messages); the refusals themselves in
 * workflow-run.test.ts.
 */
import type { WorkflowDefinition } from '../authoring/workflow-definition.js';
import type { OpenPause } from './workflow-engine.js';
import type { WorkflowResume } from './workflow-run.js';

export function notResumableMessage(
  workflow: WorkflowDefinition,
  runId: string,
  threadId: string,
  open: readonly OpenPause[],
  resume: WorkflowResume,
): string {
  if ('wake' in resume && open.length > 0) {
    const next = open.map((p) => p.wakeAt).find((at) => at !== null);
    return (
      `run '${runId}' is not due at ${resume.wake.toISOString()}` +
      (next ? ` (it sleeps until ${next})` : ' (it waits for an answer)') +
      '; another tick may have woken it already. Nothing was changed'
    );
  }
  const where = workflow.durable
    ? "its checkpoints are not in this deck's checkpointer (SERVICE_CHECKPOINT differs from the process that ran it, or is memory://)"
    : `workflow '${workflow.name}' is not durable, so its threads live in the memory of the process that ran it`;
  return (
    `run '${runId}' waits in the event log, but thread '${threadId}' has no open pause for it in this deck's ` +
    `checkpointer: ${where}; answer it from that process, or declare the workflow durable. Nothing was changed`
  );
}
