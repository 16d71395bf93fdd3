/**
 * What an answer to a held tool call checks under the run's resume lock (runtime.ts
 * `resumeAgent`): that the run still asks about the call the answer names, and which control
 * requests the continued turn treats as handled. Tested in src/deck/tool-approvals.test.ts.
 */
import { ConflictError } from '../core/errors.js';
import type { ControlRequest, EventLog } from '../core/store.js';
import type { ApprovalAnswer } from './agent-engine.js';

/**
 * The requests an answered turn does not act on again: those its log shows observed, and
 * resumes (an answer, not a resume, continues a waiting run). A pause asked while the run
 * waited is not among them: the answered turn pauses at its next safe point. Refuses an
 * answer naming a call the run no longer asks about (answered meanwhile).
 */
export async function answeredHandled(
  store: Pick<EventLog, 'read'>,
  runId: string,
  requests: readonly ControlRequest[],
  answer: ApprovalAnswer,
): Promise<string[]> {
  const events = await store.read(runId);
  const observed = new Set<string>();
  for (const event of events) {
    if (event.kind === 'control.observed') observed.add(event.payload.requestId);
  }
  if (answer.callId) {
    const asked = events.findLast((e) => e.kind === 'run.interrupted');
    const held = asked?.kind === 'run.interrupted' ? asked.payload.payload : null;
    const callId = (held as { call_id?: unknown } | null)?.call_id;
    if (callId !== answer.callId) {
      throw new ConflictError(
        `run '${runId}' no longer asks about call '${answer.callId}' (it asks about '${String(callId)}': the call was answered meanwhile); read pending() and answer what it asks now`,
      );
    }
  }
  return requests
    .filter((r) => r.verb === 'resume' || (r.verb !== 'cancel' && observed.has(r.requestId)))
    .map((r) => r.requestId);
}
