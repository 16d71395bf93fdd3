/**
 * How a run's events become the bodies of WIRE.md: a turn's answer and usage, a workflow's
 * final state or interrupt object. Read from the recorded events (never from an engine
 * object), as `deck.run` builds its results.
 */

import type { Usage } from '../../core/event-kinds.js';
import type { Event, EventOf } from '../../core/events.js';
import { timerPayload, wakeAtOfReason } from '../../core/wakeups.js';
import { outputValue } from '../../runtime/turn-result.js';

type Step = IteratorResult<Event, void>;

/** Events that end a segment of a run (the last one a reader gets). */
export type EndEvent =
  | EventOf<'run.completed'>
  | EventOf<'run.failed'>
  | EventOf<'run.cancelled'>
  | EventOf<'run.interrupted'>
  | EventOf<'run.paused'>;

const END_KINDS: ReadonlySet<string> = new Set([
  'run.completed',
  'run.failed',
  'run.cancelled',
  'run.interrupted',
  'run.paused',
]);

export function isEnd(event: Event): event is EndEvent {
  return END_KINDS.has(event.kind);
}

/** Read the rest of a started run; its last ending event (or `null` if it had none). */
export async function drainToEnd(
  first: Step,
  events: AsyncGenerator<Event, void, undefined>,
): Promise<EndEvent | null> {
  let end: EndEvent | null = null;
  for (let step = first; !step.done; step = await events.next()) {
    if (isEnd(step.value)) end = step.value;
  }
  return end;
}

/** The chat `done` frame's usage (WIRE.md: requests and the three token counts). */
export function chatUsage(usage: Usage | null) {
  return {
    requests: usage?.requests ?? 0,
    input_tokens: usage?.inputTokens ?? 0,
    output_tokens: usage?.outputTokens ?? 0,
    total_tokens: usage?.totalTokens ?? 0,
  };
}

/** The answer a `run.completed` carries (structured output, else the joined text). */
export function answerOf(event: EventOf<'run.completed'>): unknown {
  return outputValue(event.payload.output);
}

/** The interrupt object of WIRE.md for a run that paused: `{type, payload, thread_id}`. */
export function interruptBody(event: EventOf<'run.interrupted'> | EventOf<'run.paused'>) {
  if (event.kind === 'run.interrupted') {
    return { type: 'interrupt', payload: event.payload.payload, thread_id: event.payload.threadId };
  }
  const wakeAt = wakeAtOfReason(event.payload.reason);
  return {
    type: 'interrupt',
    payload: wakeAt === null ? null : timerPayload(wakeAt),
    thread_id: event.sessionId ?? event.runId,
  };
}

/**
 * A run's failure, for the server log (the client sees only its type, or `internal error`):
 * the node or tool that failed, then the recorded stack on the lines after it (#41).
 */
export function failureLine(event: EventOf<'run.failed'>): string {
  const { errorType, message, node, tool, stack } = event.payload;
  const where =
    node !== undefined ? ` in node '${node}'` : tool !== undefined ? ` in tool '${tool}'` : '';
  const line = `[agentdeck] run '${event.runId}' of '${event.origin}' failed${where} with ${errorType}: ${message}`;
  return stack ? `${line}\n${stack}` : line;
}
