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
  /** The recorded run this one tries a change on (#41): a replay, a fork or a re-run. */
  derivedFrom?: DerivedFrom;
  /** The experiment this run plays one dataset item for (#41). */
  experiment?: ExperimentItemRef;
}

/**
 * Where a derived run comes from (#41). Nested keys are single words: `events.ts` renames
 * only a payload's top-level keys between camelCase and snake_case.
 */
export interface DerivedFrom {
  /** The source run's id. */
  run: string;
  /** `replay`: an agent turn played again with a variant; `fork`: a workflow thread copied
   *  from one of its checkpoints (its state maybe edited); `rerun`: the same, unedited. */
  how: 'replay' | 'fork' | 'rerun';
  /** The source thread (a fork or a re-run), else absent. */
  thread?: string;
  /** The checkpoint a fork or re-run starts from, else absent. */
  checkpoint?: string;
  /** What the derived run changed: a replay's variant, a fork's state edit. */
  changes?: unknown;
}

/** A run played for one item of an experiment (#41). */
export interface ExperimentItemRef {
  /** The experiment's id. */
  id: string;
  /** The dataset item's id. */
  item: string;
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

/**
 * What a run's `run.started` records beside its input (spread into its payload): a
 * schedule's fire, the recorded run a replay or fork derives from (#41), the experiment item
 * it plays (#41). Runtime start options carry it as `trigger`.
 */
export type RunTrigger = Pick<RunStarted, 'schedule' | 'firedAt' | 'derivedFrom' | 'experiment'>;

export interface RunCompleted {
  /** The final message (text blocks), the structured output, or the final state (one DataBlock). */
  output: ContentBlock[];
  usage: Usage | null;
}
export interface RunFailed {
  /** The exception's type name; HTTP callers see only this. */
  errorType: string;
  message: string;
  /** The error's stack (#41): for the log and the run inspector, never an HTTP error body. */
  stack?: string;
  /** The workflow node that failed (#41), when a node threw. */
  node?: string;
  /** The tool whose call failed the run (#41), when a tool's error ended it. */
  tool?: string;
  /** What the failing node or tool was given (#41): the node's state, the tool's arguments. */
  input?: unknown;
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
  /**
   * The JSON Schema an answer must match (#41): `interrupt(payload, { answer })`, or a tool
   * approval's reason schema. Absent when any answer is accepted.
   */
  answerSchema?: Record<string, unknown>;
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
  /** How long the node ran, in milliseconds (#41's trace view); absent in older events. */
  durationMs?: number;
}

/**
 * One model request as sent (#41): what the model saw. Large values (instructions, tool
 * definitions, messages) are stored once per run: `values` holds those first sent in this
 * run, keyed by digest; `instructions`, `tools` and `messages` list digests, so a reader
 * rebuilds a request from this run's earlier `model.call.started` events.
 */
export interface ModelCallStarted {
  /** Pairs this request with its `model.call.completed`. */
  callId: string;
  model: string | null;
  /** The model settings sent (temperature, max tokens, tool choice...). */
  settings: Record<string, unknown>;
  /** The instructions' digest, `null` without instructions. */
  instructions: string | null;
  /** The tools offered, as digests of their definitions, in order. */
  tools: string[];
  /** The input items sent (after the history policy), as digests, in order. */
  messages: string[];
  /** Values first sent in this run, by digest (empty when `detail` is `metadata`). */
  values: Record<string, unknown>;
  /** `full`: bodies kept; `metadata`: digests, model and settings only. */
  detail: 'full' | 'metadata';
}

/** The model's answer to one request (#41). */
export interface ModelCallCompleted {
  callId: string;
  /** The output items received; `null` when `detail` was `metadata`. */
  output: unknown[] | null;
  finishReason: string | null;
  inputTokens: number | null;
  outputTokens: number | null;
  /** From the request's start to the response's end. */
  latencyMs: number;
  /** The provider's request id (`x-request-id`), when it sent one. */
  providerRequestId: string | null;
  /** The request's error message when it failed; otherwise `null`. */
  error: string | null;
}

/** A score given to a run (#41): by a code scorer, or by a model acting as judge. */
export interface ScoreRecorded {
  /** The scorer's name. */
  name: string;
  value: number;
  /** Whether the value passes the scorer's threshold; `null` without one. */
  passed: boolean | null;
  /** The scorer's reason (a judge's explanation). */
  comment: string | null;
  /** The experiment the score was given in, `null` for a score given outside one. */
  experiment: string | null;
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
  'model.call.started': ModelCallStarted;
  'model.call.completed': ModelCallCompleted;
  'score.recorded': ScoreRecorded;
  custom: Custom;
}

export type EventKind = keyof EventPayloads;

export const TERMINAL_KINDS = ['run.completed', 'run.failed', 'run.cancelled'] as const;
export type TerminalKind = (typeof TERMINAL_KINDS)[number];
