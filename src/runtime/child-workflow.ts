/**
 * A workflow an agent turn called as a tool: its own recorded run, linked to the turn
 * (`parentRunId`); cancelled when the tool call is (the turn was cancelled or stopped).
 * Tested through the deck: src/deck/workflow-tools.test.ts.
 */
import type { Event } from '../core/events.js';
import type { WorkflowResult } from '../core/interrupt-result.js';
import { settle, type WorkflowOutcome } from './workflow-run.js';

/**
 * Play the child run to its end: its final state, or its InterruptResult. `cancel` stops the
 * child run by id, once its first event names it.
 */
export async function playChildWorkflow(
  generator: AsyncGenerator<Event, WorkflowOutcome, undefined>,
  cancel: (childRunId: string) => void,
  signal: AbortSignal | undefined,
): Promise<WorkflowResult> {
  let childRunId: string | null = null;
  const onAbort = () => {
    if (childRunId) cancel(childRunId);
  };
  signal?.addEventListener('abort', onAbort, { once: true });
  try {
    const first = await generator.next();
    if (!first.done) {
      childRunId = first.value.runId;
      if (signal?.aborted) onAbort();
    }
    return await settle(generator, first);
  } finally {
    signal?.removeEventListener('abort', onAbort);
  }
}
