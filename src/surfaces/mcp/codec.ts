/**
 * Canonical events as MCP sees them: a progress message for each event worth telling a
 * client that asked for progress (`notifications/progress`; `null` for the rest: text chunks,
 * usage, control bookkeeping), and the tool result for the event that ends a run's segment.
 * Every result carries `structuredContent` and, for models that read only text, the same
 * facts as text. A run that failed says only its error type: its message may hold secrets
 * and goes to the server log, as on the HTTP routes. Pure functions of the events, tested on
 * the frozen corpus against golden files (`codec.test.ts`).
 */
import type { Event } from '../../core/events.js';
import { wakeAtOfReason } from '../../core/wakeups.js';
import { answerOf, type EndEvent } from '../http/run-results.js';

/** A tool result as MCP's `CallToolResult` carries it. */
export interface ToolResult {
  [key: string]: unknown;
  content: { type: 'text'; text: string }[];
  structuredContent: Record<string, unknown>;
  isError?: boolean;
}

/** What a client that asked for progress is told of `event`, or `null` for nothing. */
export function progressMessage(event: Event): string | null {
  switch (event.kind) {
    case 'run.queued':
      return `run ${event.runId} of '${event.origin}' queued (key '${event.payload.key}')`;
    case 'run.started':
      return `run ${event.runId} of '${event.origin}' started`;
    case 'run.resumed':
      if (event.payload.retry) return `run retried (attempt ${event.payload.retry.attempt})`;
      return event.payload.answer
        ? `answer received (${event.payload.answer.approved ? 'approved' : 'rejected'}); run goes on`
        : 'run resumed';
    case 'tool.call.started':
      return `calling tool '${event.payload.name}'`;
    case 'tool.call.completed':
      return event.payload.error === null
        ? `tool '${event.payload.name}' done`
        : `tool '${event.payload.name}' failed`;
    case 'node.updated':
      return `node '${event.payload.node}' done`;
    case 'message.completed':
      return 'reply written';
    case 'status.reported':
      return `${event.payload.level}: ${event.payload.message}`;
    case 'progress.reported': {
      const { progress, total, message } = event.payload;
      const count = total === null ? `${progress}` : `${progress}/${total}`;
      return message === null ? count : `${message} (${count})`;
    }
    case 'artifact.created':
      return `artifact '${event.payload.name}' created`;
    case 'run.interrupted':
      return event.payload.reason === 'approval'
        ? 'waiting for a person to approve a tool call'
        : 'waiting for a person to answer';
    case 'run.paused':
      return wakeAtOfReason(event.payload.reason) === null
        ? 'run paused'
        : `sleeping until ${wakeAtOfReason(event.payload.reason)}`;
    case 'run.completed':
      return 'run completed';
    case 'run.failed':
      return `run failed with ${event.payload.errorType}`;
    case 'run.cancelled':
      return 'run cancelled';
    default:
      return null; // text and thought chunks, usage, control bookkeeping, custom, unknown kinds
  }
}

/** The result of an agent's tool for the event that ended its turn. */
export function agentResult(end: EndEvent): ToolResult {
  const base = { run_id: end.runId, session_id: end.sessionId };
  if (end.kind === 'run.completed') {
    const output = answerOf(end);
    return result(typeof output === 'string' ? output : JSON.stringify(output), {
      output,
      ...base,
      status: 'completed',
    });
  }
  if (end.kind === 'run.interrupted') {
    return result(
      `Run ${end.runId} waits for a person to approve a tool call: ${JSON.stringify(end.payload.payload)}. ` +
        `Answer it with answer_run {"run_id": "${end.runId}", "value": {"approved": true}} ` +
        '(or {"approved": false, "reason": "..."}).',
      { output: null, ...base, status: 'waiting_human', payload: end.payload.payload },
    );
  }
  return ending(end, { output: null, ...base });
}

/** The result of a workflow's tool for the event that ended its run's segment. */
export function workflowResult(end: EndEvent): ToolResult {
  const thread = { thread_id: end.sessionId ?? end.runId };
  if (end.kind === 'run.completed') {
    const state = answerOf(end);
    const fields = typeof state === 'object' && state !== null ? state : { state };
    return result(JSON.stringify(state), {
      ...fields,
      run_id: end.runId,
      status: 'completed',
      ...thread,
    });
  }
  if (end.kind === 'run.interrupted') {
    return result(
      `Run ${end.runId} waits for a person to answer: ${JSON.stringify(end.payload.payload)}. ` +
        `Answer it with answer_run {"run_id": "${end.runId}", "value": <the answer>}.`,
      {
        status: 'waiting_human',
        run_id: end.runId,
        payload: end.payload.payload,
        thread_id: end.payload.threadId,
      },
    );
  }
  return ending(end, thread);
}

/** A call whose run had not ended within the wait: it goes on, and `get_run` follows it. */
export function runningResult(runId: string, extra: Record<string, unknown> = {}): ToolResult {
  return result(`Run ${runId} is still running; follow it with get_run {"run_id": "${runId}"}.`, {
    status: 'running',
    run_id: runId,
    ...extra,
  });
}

/** A tool error: `isError`, the message as text and in `structuredContent.error`. */
export function errorResult(message: string, extra: Record<string, unknown> = {}): ToolResult {
  return { ...result(message, { error: message, ...extra }), isError: true };
}

/** The error types of a run that failed because a backend was down or full (a retry may work). */
export const OUTAGE_ERROR_TYPES: ReadonlySet<string> = new Set([
  'StoreUnavailableError',
  'StorageFullError',
]);

/** A run paused, cancelled or failed: what the client can do about it. */
function ending(
  end: Exclude<EndEvent, { kind: 'run.completed' | 'run.interrupted' }>,
  extra: Record<string, unknown>,
): ToolResult {
  const base = { ...extra, run_id: end.runId };
  if (end.kind === 'run.paused') {
    const wakeAt = wakeAtOfReason(end.payload.reason);
    if (wakeAt !== null) {
      return result(`Run ${end.runId} sleeps until ${wakeAt}; get_run follows it.`, {
        ...base,
        status: 'paused',
        wake_at: wakeAt,
      });
    }
    return result(
      `Run ${end.runId} was paused${end.payload.reason ? ` (${end.payload.reason})` : ''}; it goes on once resumed.`,
      { ...base, status: 'paused', reason: end.payload.reason },
    );
  }
  if (end.kind === 'run.cancelled') {
    return result(
      `Run ${end.runId} was cancelled${end.payload.reason ? ` (${end.payload.reason})` : ''}.`,
      { ...base, status: 'cancelled', reason: end.payload.reason },
    );
  }
  const message = `Run ${end.runId} failed with ${end.payload.errorType} (details in the server log).`;
  return {
    ...result(message, { ...base, status: 'failed', error: end.payload.errorType }),
    isError: true,
  };
}

function result(text: string, structuredContent: Record<string, unknown>): ToolResult {
  return { content: [{ type: 'text', text }], structuredContent };
}
