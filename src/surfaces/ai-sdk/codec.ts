/**
 * Canonical events to AI SDK UI message chunks: a pure fold, no I/O. A run is one assistant
 * message whose id is the run id (an answered approval goes on in the same run, so the client
 * keeps one message). The UI stream has parts that open and close (text, reasoning, steps)
 * where the event log has only deltas, so the fold keeps what is open in {@link UiStreamState}
 * and closes it when the next kind of content, a tool call, a model request or the end comes.
 * Steps follow the model requests: the engine records `usage.reported` when a response ends,
 * before the tool calls it asked for, so content after a reported usage is a new request.
 * Replaying a run from its first event gives the same chunks as the live stream did, and
 * feeding earlier events first (their chunks dropped) gives a continuation's state.
 */
import { blockToWire, type Event } from '../../core/events.js';
import type { UiMessageChunk } from './chunks.js';

/** What is open in the stream after the events folded so far. */
export interface UiStreamState {
  /** The `start` chunk was written (a continuation writes it before its first chunk). */
  readonly announced: boolean;
  /** The current step: none, open, or open with its model response ended (usage reported). */
  readonly step: 'none' | 'open' | 'answered';
  /** The open text part's id (the canonical message id), or `null`. */
  readonly text: string | null;
  /** The open reasoning part's id, or `null`. */
  readonly reasoning: string | null;
  /** The tool call held for a person's approval, or `null`. */
  readonly held: string | null;
  /** Calls a person rejected: their completion is `tool-output-denied`, not an error. */
  readonly denied: readonly string[];
}

export const INITIAL_UI_STREAM_STATE: UiStreamState = {
  announced: false,
  step: 'none',
  text: null,
  reasoning: null,
  held: null,
  denied: [],
};

/** The state of a stream that starts after the events already folded: its `start` comes first. */
export function continuation(state: UiStreamState): UiStreamState {
  return { ...state, announced: false };
}

/** Whether a live stream ends at this event: the run ended, or waits (an answer, a resume). */
export function endsStream(event: Event): boolean {
  return (
    event.kind === 'run.completed' ||
    event.kind === 'run.failed' ||
    event.kind === 'run.cancelled' ||
    event.kind === 'run.paused' ||
    event.kind === 'run.interrupted'
  );
}

/** Fold one event: the chunks it becomes and the state after it. */
export function encodeEvent(
  state: UiStreamState,
  event: Event,
): { state: UiStreamState; chunks: UiMessageChunk[] } {
  const s = { ...state, denied: [...state.denied] };
  const chunks: UiMessageChunk[] = [];
  if (!s.announced && event.kind !== 'unknown') {
    s.announced = true;
    chunks.push({
      type: 'start',
      messageId: event.runId,
      messageMetadata: { run_id: event.runId },
    });
    if (event.kind === 'run.started') return { state: s, chunks };
  }
  const closeParts = () => {
    if (s.reasoning !== null) chunks.push({ type: 'reasoning-end', id: s.reasoning });
    if (s.text !== null) chunks.push({ type: 'text-end', id: s.text });
    s.reasoning = null;
    s.text = null;
  };
  const closeStep = () => {
    closeParts();
    if (s.step !== 'none') chunks.push({ type: 'finish-step' });
    s.step = 'none';
  };
  /** A step for content: a new one once the current request's response has ended. */
  const contentStep = () => {
    if (s.step === 'answered') closeStep();
    if (s.step === 'none') chunks.push({ type: 'start-step' });
    s.step = 'open';
  };
  switch (event.kind) {
    case 'text.delta': {
      const id = event.payload.messageId;
      if (s.reasoning !== null || (s.text !== null && s.text !== id)) closeParts();
      contentStep();
      if (s.text === null) chunks.push({ type: 'text-start', id });
      s.text = id;
      chunks.push({ type: 'text-delta', id, delta: event.payload.text });
      break;
    }
    case 'thought.delta': {
      const id = `${event.payload.messageId}:thought`;
      if (s.text !== null || (s.reasoning !== null && s.reasoning !== id)) closeParts();
      contentStep();
      if (s.reasoning === null) chunks.push({ type: 'reasoning-start', id });
      s.reasoning = id;
      chunks.push({ type: 'reasoning-delta', id, delta: event.payload.text });
      break;
    }
    case 'message.completed':
      closeParts();
      break;
    case 'usage.reported':
      if (s.step === 'answered') closeStep();
      if (s.step === 'none') chunks.push({ type: 'start-step' });
      s.step = 'answered';
      break;
    case 'tool.call.started':
      closeParts();
      if (s.step === 'none') {
        chunks.push({ type: 'start-step' });
        s.step = 'open';
      }
      chunks.push({
        type: 'tool-input-available',
        toolCallId: event.payload.callId,
        toolName: event.payload.name,
        input: event.payload.arguments,
      });
      break;
    case 'tool.call.completed': {
      const { callId, error, output } = event.payload;
      closeParts();
      if (s.step === 'none') {
        chunks.push({ type: 'start-step' });
        s.step = 'open';
      }
      if (s.denied.includes(callId)) {
        s.denied = s.denied.filter((id) => id !== callId);
        chunks.push({ type: 'tool-output-denied', toolCallId: callId });
      } else if (error !== null) {
        chunks.push({ type: 'tool-output-error', toolCallId: callId, errorText: error });
      } else {
        chunks.push({ type: 'tool-output-available', toolCallId: callId, output });
      }
      break;
    }
    case 'run.interrupted': {
      closeParts();
      const heldCall = event.payload.reason === 'approval' ? callIdOf(event.payload.payload) : null;
      if (heldCall !== null) {
        s.held = heldCall;
        chunks.push({ type: 'tool-approval-request', approvalId: heldCall, toolCallId: heldCall });
      } else {
        chunks.push({
          type: 'data-interrupt',
          data: { run_id: event.runId, payload: event.payload.payload },
        });
      }
      closeStep();
      chunks.push({ type: 'finish', finishReason: heldCall !== null ? 'tool-calls' : 'other' });
      break;
    }
    case 'run.resumed': {
      const answer = event.payload.answer;
      if (answer && s.held !== null) {
        chunks.push({
          type: 'tool-approval-response',
          approvalId: s.held,
          approved: answer.approved,
          ...(answer.reason !== null ? { reason: answer.reason } : {}),
        });
        if (!answer.approved) s.denied.push(s.held);
        s.held = null;
      }
      break;
    }
    case 'run.completed': {
      closeStep();
      const usage = event.payload.usage;
      const metadata = {
        run_id: event.runId,
        usage: usage && {
          requests: usage.requests,
          input_tokens: usage.inputTokens,
          output_tokens: usage.outputTokens,
          total_tokens: usage.totalTokens,
          usd: usage.usd,
        },
      };
      chunks.push({ type: 'finish', finishReason: 'stop', messageMetadata: metadata });
      break;
    }
    case 'run.failed':
      closeStep();
      chunks.push({
        type: 'error',
        errorText: `${event.payload.errorType}: ${event.payload.message}`,
      });
      break;
    case 'run.cancelled':
    case 'run.paused': {
      closeStep();
      const reason = event.payload.reason;
      chunks.push(reason === null ? { type: 'abort' } : { type: 'abort', reason });
      break;
    }
    case 'node.updated':
      chunks.push({
        type: 'data-node',
        data: { node: event.payload.node, update: event.payload.delta },
      });
      break;
    case 'progress.reported': {
      const { progress, total, message } = event.payload;
      // One part, updated in place: the client shows where the run is, not every report.
      chunks.push({ type: 'data-progress', id: 'progress', data: { progress, total, message } });
      break;
    }
    case 'status.reported':
      chunks.push({ type: 'data-status', data: { ...event.payload } });
      break;
    case 'custom':
      chunks.push({ type: 'data-custom', data: event.payload.data });
      break;
    case 'artifact.created':
      chunks.push({
        type: 'data-artifact',
        data: { name: event.payload.name, block: blockToWire(event.payload.block) },
      });
      break;
    // Control requests, a run's start (written above) and kinds this reader does not know: none.
    default:
      break;
  }
  return { state: s, chunks };
}

/** The call id of an approval's payload (`{tool, call_id, arguments}`), or `null`. */
function callIdOf(payload: unknown): string | null {
  const callId = (payload as { call_id?: unknown } | null)?.call_id;
  return typeof callId === 'string' ? callId : null;
}
