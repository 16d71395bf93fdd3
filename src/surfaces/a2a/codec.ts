/**
 * The A2A codec: canonical events to A2A task updates (status and artifact update events, the
 * `@a2a-js/sdk` types of A2A v1.0). A pure fold, no I/O: the JSON-RPC routes publish what it
 * gives for a live run, and the task store folds a run's stored events through it
 * (task-fold.ts), so a task read later and a task followed live say the same thing. A run is
 * one task: its id is the run id, its context the session. The answer's text streams as the
 * `answer` artifact (appended chunk by chunk), replaced by the run's whole output when it
 * completes; the agent's messages, tool calls and results, progress and notes are `working`
 * status messages; a run waiting for a person is `input-required`, its question a data part.
 */
import {
  type Message,
  type Part,
  Role,
  type TaskArtifactUpdateEvent,
  TaskState,
  type TaskStatusUpdateEvent,
} from '@a2a-js/sdk';
import type { ContentBlock } from '../../core/blocks.js';
import type { Event } from '../../core/events.js';

const STATE = {
  submitted: TaskState.TASK_STATE_SUBMITTED,
  working: TaskState.TASK_STATE_WORKING,
  completed: TaskState.TASK_STATE_COMPLETED,
  failed: TaskState.TASK_STATE_FAILED,
  canceled: TaskState.TASK_STATE_CANCELED,
  inputRequired: TaskState.TASK_STATE_INPUT_REQUIRED,
} as const;

/** The artifact the answer's text streams into, then the run's output. */
export const ANSWER_ARTIFACT = 'answer';

/** One update for a task, in the shape `ExecutionEventBus.publish` takes. */
export type TaskUpdate =
  | { kind: 'statusUpdate'; data: TaskStatusUpdateEvent }
  | { kind: 'artifactUpdate'; data: TaskArtifactUpdateEvent };

/** What the codec keeps between events: whether the answer artifact has begun. */
export interface TaskCodecState {
  readonly answerBegun: boolean;
}

export const INITIAL_TASK_CODEC_STATE: TaskCodecState = { answerBegun: false };

/** The task a run is, and its context (the session; the run id for a run without one). */
export function taskIdsOf(event: Event): { taskId: string; contextId: string } {
  return { taskId: event.runId, contextId: event.sessionId ?? event.runId };
}

/** The updates `event` stands for, and the state for the next event. */
export function encodeEvent(
  state: TaskCodecState,
  event: Event,
): { state: TaskCodecState; updates: TaskUpdate[] } {
  const status = (state_: TaskState, parts: Part[] | null = null) =>
    statusUpdate(event, state_, parts);
  switch (event.kind) {
    case 'run.queued':
      return { state, updates: [status(STATE.submitted)] };
    case 'run.started':
    case 'run.resumed':
      return { state, updates: [status(STATE.working)] };
    case 'text.delta': {
      const chunk = artifactUpdate(event, ANSWER_ARTIFACT, [textPart(event.payload.text)], {
        append: state.answerBegun,
        lastChunk: false,
      });
      return { state: { answerBegun: true }, updates: [chunk] };
    }
    case 'message.completed':
      return { state, updates: [status(STATE.working, blocksToParts(event.payload.content))] };
    case 'tool.call.started': {
      const { callId, name, arguments: args } = event.payload;
      const call = { tool_call: { call_id: callId, name, arguments: args } };
      return { state, updates: [status(STATE.working, [dataPart(call)])] };
    }
    case 'tool.call.completed': {
      const { callId, name, output, error } = event.payload;
      const result = { tool_result: { call_id: callId, name, output, error } };
      return { state, updates: [status(STATE.working, [dataPart(result)])] };
    }
    case 'status.reported':
      return { state, updates: [status(STATE.working, [textPart(event.payload.message)])] };
    case 'progress.reported':
      return { state, updates: [status(STATE.working, [dataPart({ progress: event.payload })])] };
    case 'artifact.created': {
      const id = `artifact-${event.seq}`;
      const parts = blocksToParts([event.payload.block]);
      const artifact = artifactUpdate(event, id, parts, { append: false, lastChunk: true });
      artifact.data.artifact = {
        ...(artifact.data.artifact ?? emptyArtifact(id)),
        name: event.payload.name,
      };
      return { state, updates: [artifact] };
    }
    case 'run.interrupted':
      return { state, updates: [status(STATE.inputRequired, questionParts(event))] };
    case 'run.paused': {
      const reason = event.payload.reason ? ` (${event.payload.reason})` : '';
      const note = `The run is paused${reason}; POST /runs/${event.runId}/resume continues it.`;
      return { state, updates: [status(STATE.working, [textPart(note)])] };
    }
    case 'run.completed': {
      const parts = blocksToParts(event.payload.output);
      const output = artifactUpdate(event, ANSWER_ARTIFACT, parts, {
        append: false,
        lastChunk: true,
      });
      const updates: TaskUpdate[] = parts.length > 0 ? [output] : [];
      updates.push(status(STATE.completed));
      return { state: { answerBegun: true }, updates };
    }
    case 'run.failed': {
      // As on the other surfaces, a caller sees the error's type only (the message may hold secrets).
      const note = `The run failed with ${event.payload.errorType}; the server log has the details.`;
      return { state, updates: [status(STATE.failed, [textPart(note)])] };
    }
    case 'run.cancelled': {
      const note = event.payload.reason ? `Cancelled: ${event.payload.reason}` : 'Cancelled.';
      return { state, updates: [status(STATE.canceled, [textPart(note)])] };
    }
    default:
      // Reasoning, usage, control bookkeeping, workflow nodes, custom and unknown events: no A2A form.
      return { state, updates: [] };
  }
}

/** What a run waiting for a person asks, and how to answer it on this task. */
function questionParts(event: Extract<Event, { kind: 'run.interrupted' }>): Part[] {
  const payload = event.payload.payload;
  if (event.payload.reason === 'approval') {
    const tool = (payload as { tool?: unknown } | null)?.tool;
    const named = typeof tool === 'string' ? `Tool call '${tool}'` : 'A tool call';
    return [
      textPart(
        `${named} waits for approval: send a message on this task with a data part ` +
          '{"approved": true}, or {"approved": false, "reason": "..."}.',
      ),
      dataPart({ approval: payload }),
    ];
  }
  return [textPart('The run waits for an answer.'), dataPart({ interrupt: payload })];
}

function statusUpdate(event: Event, state: TaskState, parts: Part[] | null): TaskUpdate {
  const { taskId, contextId } = taskIdsOf(event);
  const message = parts
    ? {
        messageId: `${event.runId}:${event.seq}`,
        contextId,
        taskId,
        role: Role.ROLE_AGENT,
        parts,
        metadata: undefined,
        extensions: [],
        referenceTaskIds: [],
      }
    : undefined;
  return {
    kind: 'statusUpdate',
    data: {
      taskId,
      contextId,
      status: { state, message, timestamp: event.ts },
      metadata: undefined,
    },
  };
}

function artifactUpdate(
  event: Event,
  artifactId: string,
  parts: Part[],
  chunk: { append: boolean; lastChunk: boolean },
): Extract<TaskUpdate, { kind: 'artifactUpdate' }> {
  const { taskId, contextId } = taskIdsOf(event);
  return {
    kind: 'artifactUpdate',
    data: {
      taskId,
      contextId,
      artifact: { ...emptyArtifact(artifactId), parts },
      ...chunk,
      metadata: undefined,
    },
  };
}

function emptyArtifact(artifactId: string) {
  return {
    artifactId,
    name: artifactId,
    description: '',
    parts: [] as Part[],
    metadata: undefined,
    extensions: [],
  };
}

/** A user's message as A2A shows it (a run's input, an answer). */
export function userMessage(messageId: string, event: Event, parts: Part[]): Message {
  const { taskId, contextId } = taskIdsOf(event);
  return {
    messageId,
    contextId,
    taskId,
    role: Role.ROLE_USER,
    parts,
    metadata: undefined,
    extensions: [],
    referenceTaskIds: [],
  };
}

export function textPart(text: string): Part {
  return {
    content: { $case: 'text', value: text },
    mediaType: 'text/plain',
    filename: '',
    metadata: undefined,
  };
}

export function dataPart(value: unknown): Part {
  return {
    content: { $case: 'data', value },
    mediaType: 'application/json',
    filename: '',
    metadata: undefined,
  };
}

/** Content blocks as A2A parts: text, data, inline bytes (`raw`), a reference (`url`). */
export function blocksToParts(blocks: readonly ContentBlock[]): Part[] {
  return blocks.map((block): Part => {
    switch (block.type) {
      case 'text':
        return textPart(block.text);
      case 'data':
        return dataPart(block.data);
      case 'resource':
        return {
          content: { $case: 'url', value: block.uri },
          mediaType: block.mediaType,
          filename: '',
          metadata: undefined,
        };
      default:
        return {
          content: { $case: 'raw', value: Buffer.from(block.dataB64, 'base64') },
          mediaType: block.mediaType,
          filename: '',
          metadata: undefined,
        };
    }
  });
}
