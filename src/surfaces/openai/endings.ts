/**
 * What the OpenAI surface says when a turn stops without an answer: the OpenAI API has no
 * frame for a tool call that waits for a person, nor for a paused or cancelled run, so the
 * answer ends with a message that says what waits and how to go on (the run id is in the
 * text and in `X-Run-Id`). And the error a failed run answers: only its type reaches the
 * client; its message may hold secrets and stays in the server log.
 */
import type { EventOf } from '../../core/events.js';
import type { OpenAiErrorBody } from './errors.js';

/** An event after which the turn plays no more in this answer. */
export type StopEvent =
  | EventOf<'run.interrupted'>
  | EventOf<'run.paused'>
  | EventOf<'run.cancelled'>;

export function isStop(event: { kind: string }): event is StopEvent {
  return (
    event.kind === 'run.interrupted' ||
    event.kind === 'run.paused' ||
    event.kind === 'run.cancelled'
  );
}

/** The text that ends the answer of a turn that stopped. */
export function stopNote(event: StopEvent): string {
  const run = event.runId;
  if (event.kind === 'run.interrupted') {
    const held = event.payload.payload as { tool?: unknown; arguments?: unknown } | null;
    const tool = typeof held?.tool === 'string' ? `tool '${held.tool}'` : 'a tool call';
    const args = held?.arguments === undefined ? '' : ` with ${JSON.stringify(held.arguments)}`;
    return (
      `[agentdeck] Run ${run} waits for a person to approve ${tool}${args}. ` +
      `Answer it in the inbox (GET /pending): POST /runs/${run}/answer with ` +
      `{"value": {"approved": true}} or {"value": {"approved": false, "reason": "..."}}; ` +
      `the run then plays on, and GET /runs/${run}/events shows the rest.`
    );
  }
  if (event.kind === 'run.paused') {
    return `[agentdeck] Run ${run} was paused before it answered; POST /runs/${run}/resume plays it on.`;
  }
  const why = event.payload.reason ? `: ${event.payload.reason}` : '';
  return `[agentdeck] Run ${run} was cancelled before it answered${why}.`;
}

/** The error body for a run that ended with `run.failed` (a backend down: `service_unavailable`). */
export function failedRunError(event: EventOf<'run.failed'>): OpenAiErrorBody {
  const outage = ['StoreUnavailableError', 'StorageFullError'].includes(event.payload.errorType);
  return {
    error: {
      message: outage
        ? `run ${event.runId} failed because a backend is out (${event.payload.errorType}): ${event.payload.message}; try again shortly`
        : `run ${event.runId} failed with ${event.payload.errorType}; the server log has the details`,
      type: outage ? 'service_unavailable_error' : 'server_error',
      param: null,
      code: outage ? 'service_unavailable' : 'run_failed',
    },
  };
}

/** Token counts, as a run's `usage.reported` events add them up. */
export interface TokenCounts {
  inputTokens: number;
  outputTokens: number;
  totalTokens: number;
}

/** `total` with one `usage.reported` event's counts added. */
export function addUsage(total: TokenCounts | null, reported: TokenCounts): TokenCounts {
  return {
    inputTokens: (total?.inputTokens ?? 0) + reported.inputTokens,
    outputTokens: (total?.outputTokens ?? 0) + reported.outputTokens,
    totalTokens: (total?.totalTokens ?? 0) + reported.totalTokens,
  };
}

/** A usage record in the chat completions' form, from a run's totals. */
export function chatUsageOf(
  usage: { inputTokens: number; outputTokens: number; totalTokens: number } | null,
) {
  return {
    prompt_tokens: usage?.inputTokens ?? 0,
    completion_tokens: usage?.outputTokens ?? 0,
    total_tokens: usage?.totalTokens ?? 0,
  };
}
