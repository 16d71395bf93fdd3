/**
 * The payload of each canonical event kind, in its TypeScript (camelCase) form. The wire
 * form (snake_case, stored and streamed) is defined by the zod schemas in `event-schema.ts`;
 * `events.ts` maps between the two in one place.
 */
import type { ContentBlock } from './blocks.js';

/** Authoritative token and cost totals of a run (or of one model call). */
export interface Usage {
  /** Model calls made. */
  requests: number;
  inputTokens: number;
  outputTokens: number;
  totalTokens: number;
  /** Cost in US dollars; `null` when no price is known for the model. */
  usd: number | null;
}

export type InvocableType = 'agent' | 'workflow';
export type ControlVerb = 'pause' | 'cancel' | 'resume';

export interface RunStarted {
  invocableType: InvocableType;
  /** The turn's input blocks, or the workflow's initial state as one DataBlock. */
  input: ContentBlock[];
  /** The agent run that started this one (a workflow called as a tool); absent otherwise. */
  parentRunId?: string;
  /** The schedule that started this run; absent otherwise. */
  schedule?: string;
  /** The fire time of `schedule` this run was started for (ISO 8601 UTC). */
  firedAt?: string;
}

/**
 * A background run waiting in the queue for a worker (its first event): what to play, and
 * the key and priority it waits under. A worker records `run.started` when it takes it.
 */
export interface RunQueued {
  invocableType: InvocableType;
  /** The turn's input blocks, or the workflow's initial state as one DataBlock. */
  input: ContentBlock[];
  /** The key its limits and fair turns count under (the caller's `key`, else its tenant). */
  key: string;
  /** Higher runs first; 0 by default. */
  priority: number;
}

/** What started a run other than a caller: a schedule's fire. */
export interface RunTrigger {
  schedule: string;
  firedAt: string;
}
export interface RunCompleted {
  /** The final message (text blocks), the structured output, or the final state (one DataBlock). */
  output: ContentBlock[];
  usage: Usage | null;
}
export interface RunFailed {
  /** The exception's type name; HTTP callers see only this. */
  errorType: string;
  message: string;
}
export interface RunCancelled {
  reason: string | null;
}
export interface RunPaused {
  reason: string | null;
}
export interface RunResumed {
  requestId: string | null;
  /** A person's answer to the tool call the agent run waited for (absent otherwise). */
  answer?: { approved: boolean; reason: string | null };
  /** The answer's id (its idempotency key, or its value's digest), so a retry finds its outcome. */
  answerId?: string;
  /**
   * A queued run taken again after its worker died (or its attempt failed and its retry
   * policy allows another): which attempt this is (2 for the first retry) and why.
   */
  retry?: { attempt: number; reason: string };
  /**
   * A workflow thread resumed under another graph than the one that paused it (#42): the
   * version (else `#hash`) that wrote its checkpoint (`null` if unknown) and the current one.
   */
  graph?: { from: string | null; to: string };
}
export interface RunInterrupted {
  /** A workflow's `interrupt()` value, or the tool call held for approval. */
  payload: unknown;
  /** The workflow's thread; for an agent run, its session (or its run id). */
  threadId: string;
  /** `approval`: an agent's tool call waits for a person. Absent for a workflow's interrupt. */
  reason?: 'approval';
}
export interface ControlRequested {
  verb: ControlVerb;
  reason: string | null;
  requestId: string;
}
export interface ControlObserved {
  verb: ControlVerb;
  requestId: string;
}
export interface TextDelta {
  messageId: string;
  text: string;
}
export interface ThoughtDelta {
  messageId: string;
  text: string;
}
export interface MessageCompleted {
  messageId: string;
  role: 'assistant';
  content: ContentBlock[];
}
export interface ToolCallStarted {
  callId: string;
  name: string;
  arguments: unknown;
}
export interface ToolCallCompleted {
  callId: string;
  name: string;
  output: unknown;
  /** The tool's error message when it threw; the model was sent a readable error string. */
  error: string | null;
}
export interface NodeUpdated {
  node: string;
  delta: unknown;
}
export interface UsageReported {
  model: string | null;
  requests: number;
  inputTokens: number;
  outputTokens: number;
  totalTokens: number;
  usd: number | null;
}
export interface StatusReported {
  level: 'info' | 'warning' | 'error';
  message: string;
}
export interface ProgressReported {
  progress: number;
  total: number | null;
  message: string | null;
}
export interface ArtifactCreated {
  name: string;
  block: ContentBlock;
}
export interface Custom {
  data: unknown;
}

/** Every known kind and its payload. */
export interface EventPayloads {
  'run.queued': RunQueued;
  'run.started': RunStarted;
  'run.completed': RunCompleted;
  'run.failed': RunFailed;
  'run.cancelled': RunCancelled;
  'run.paused': RunPaused;
  'run.resumed': RunResumed;
  'run.interrupted': RunInterrupted;
  'control.requested': ControlRequested;
  'control.observed': ControlObserved;
  'text.delta': TextDelta;
  'thought.delta': ThoughtDelta;
  'message.completed': MessageCompleted;
  'tool.call.started': ToolCallStarted;
  'tool.call.completed': ToolCallCompleted;
  'node.updated': NodeUpdated;
  'usage.reported': UsageReported;
  'status.reported': StatusReported;
  'progress.reported': ProgressReported;
  'artifact.created': ArtifactCreated;
  custom: Custom;
}

export type EventKind = keyof EventPayloads;

export const TERMINAL_KINDS = ['run.completed', 'run.failed', 'run.cancelled'] as const;
export type TerminalKind = (typeof TERMINAL_KINDS)[number];
