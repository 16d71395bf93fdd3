/**
 * The port a workflow engine implements. The runtime owns the envelope (ids, seq, claims,
 * terminal events); the engine plays one segment of a thread (from an initial state, or
 * from an answer or a wake-up) and reports node updates live and how the segment ended.
 *
 * Tested by the workflow engine contract (src/testing/workflow-engine-contract.ts), which the
 * LangGraph adapter (src/engines/langgraph/engine.test.ts) and the scripted fake
 * (src/testing/scripted-engines.test.ts) pass.
 */

import type { WorkflowDefinition, WorkflowRunSettings } from '../authoring/workflow-definition.js';
import type { EventDraft } from '../core/events.js';
import type { RunScope } from './run-scope.js';

/** A workflow's state mapping (its channels' values). */
export type WorkflowState = Record<string, unknown>;

export type SegmentStart =
  /** A new run on the thread, with this initial state. */
  | { input: WorkflowState }
  /**
   * Continue the paused thread: each listed pause (by its id, see {@link OpenPause}) gets its
   * value; `interrupt()` returns it in the re-run node. Pauses not listed stay paused.
   */
  | { resume: Record<string, unknown>; update?: WorkflowState }
  /** Continue a thread stopped between nodes (a pause request): its pending nodes run. */
  | { continue: true; update?: WorkflowState };

/** A thread's graph changed since its last checkpoint (#42): from which version to which. */
export interface GraphChange {
  /** The graph that wrote the thread's checkpoint (its version, else `#hash`); `null` if unknown. */
  from: string | null;
  /** The graph that resumes it. */
  to: string;
}

/**
 * Where a paused thread stands before a resume: what it waits on, whether its graph changed
 * since, and if it cannot go on under the current graph, why (graph-change.ts in the engine).
 */
export interface ResumePoint {
  open: readonly OpenPause[];
  change: GraphChange | null;
  /** The fields the workflow's `migrate()` changed, written with the resume. */
  update?: WorkflowState;
  /** Why the thread cannot resume (a missing node, a failing field); `null` when it can. */
  blocked: string | null;
}

/** A pause the thread waits on: a person's question, or a timer. */
export interface OpenPause {
  /** The engine's id of the pause, to address a resume to it. */
  id: string;
  /** The value passed to `interrupt()` (a timer's SleepRequest). */
  payload: unknown;
  /** When a timer may wake (ISO 8601 UTC); `null` for a question. */
  wakeAt: string | null;
  /** The JSON Schema a question's answer must match (`interrupt(payload, { answer })`, #41). */
  answerSchema?: Record<string, unknown>;
}

export interface SegmentRequest {
  workflow: WorkflowDefinition;
  /** The thread id the caller knows (the session id, or the run id). */
  threadId: string;
  start: SegmentStart;
  /** What nodes receive as their context; its signal stops the segment. */
  scope: RunScope;
  /** This run's overrides of the workflow's LangGraph run settings (`recursionLimit`...). */
  settings?: WorkflowRunSettings;
}

/** How a segment ended, when it did not throw. */
export type SegmentEnd =
  | { type: 'completed'; state: WorkflowState }
  /** A node called `interrupt(payload)`: waiting for a person's answer. */
  | ({
      type: 'interrupted';
      payload: unknown;
      answerSchema?: Record<string, unknown>;
    } & KnownPauses)
  /** A node called `sleepUntil(when)`: waiting for `tick()` at or after `wakeAt`. */
  | ({ type: 'sleeping'; wakeAt: string } & KnownPauses);

interface KnownPauses {
  /**
   * Every pause the thread waits on now, as `openPauses` would read them from the
   * checkpointer, when the engine knows them without a read: the runtime then addresses the
   * next resume from them (runtime/open-pauses-memo.ts).
   */
  open?: readonly OpenPause[];
}

/** One checkpoint of a durable thread (#41): where a fork or a re-run may start from. */
export interface ThreadCheckpoint {
  /** The engine's id of the checkpoint. */
  id: string;
  /** Its step: 0 before the thread's first node ran, one more per step after. */
  step: number;
  /** The nodes whose step wrote it (the previous checkpoint's next ones); `[]` for the first. */
  writtenBy: string[];
  /** The nodes that run when the thread goes on from it; `[]` where the graph ended. */
  next: string[];
  /** When it was written (ISO 8601 UTC). */
  createdAt: string;
  /** The state's values at this checkpoint. */
  values: WorkflowState;
}

/** A thread whose timer is due. */
export interface DueThread {
  workflow: string;
  threadId: string;
  /** When it asked to wake (ISO 8601 UTC). */
  wakeAt: string;
}

export interface WorkflowEngine {
  /** Check and compile a definition at `build()`; throws ConfigError. Idempotent. */
  compile(workflow: WorkflowDefinition): void;
  /**
   * Play one segment. Yields `node.updated` and `custom` drafts live; returns how it ended;
   * throws a node's error. Stops promptly when `scope.signal` aborts.
   */
  playSegment(request: SegmentRequest): AsyncGenerator<EventDraft, SegmentEnd, undefined>;
  /**
   * {@link openPauses} with the check of the thread's graph (#42), from one read. Absent: the
   * engine does not know graph changes (`change` null, never blocked).
   */
  resumePoint?(workflow: WorkflowDefinition, threadId: string): Promise<ResumePoint>;
  /** Why a paused thread cannot resume under the current graph, or `null`: for the inbox. */
  blockedReason?(workflow: WorkflowDefinition, threadId: string): Promise<string | null>;
  /** The pauses the thread waits on in its checkpointer, questions first; `[]` when not paused. */
  openPauses(workflow: WorkflowDefinition, threadId: string): Promise<OpenPause[]>;
  /**
   * The thread's final state when its graph has ended (nothing next, nothing open) in a
   * checkpoint written at or after `since` (ISO 8601); `null` otherwise, and always for an
   * engine without it. For the stale sweep: a run whose process died after its graph ended.
   */
  endedState?(
    workflow: WorkflowDefinition,
    threadId: string,
    since: string,
  ): Promise<WorkflowState | null>;
  /**
   * Whether the thread has a checkpoint with nodes still to run, so `{ continue: true }` goes
   * on from it: for a queued run taken again after its worker died. Absent: never (the run
   * plays again from its initial state).
   */
  canContinue?(workflow: WorkflowDefinition, threadId: string): Promise<boolean>;
  /**
   * A durable workflow's thread's checkpoints (#41), newest first; `[]` for an unknown thread.
   * Absent: the engine keeps no history (a fork is refused).
   */
  checkpoints?(workflow: WorkflowDefinition, threadId: string): Promise<ThreadCheckpoint[]>;
  /**
   * Copy checkpoint `checkpointId` of a durable workflow's thread `threadId` to the new thread
   * `toThreadId` (#41), as its only checkpoint: a `{ continue: true }` segment on that thread
   * then runs the checkpoint's next nodes. The source thread is not changed. NotFoundError for
   * an unknown checkpoint; ConflictError when `toThreadId` has a checkpoint already.
   */
  copyCheckpoint?(
    workflow: WorkflowDefinition,
    threadId: string,
    checkpointId: string,
    toThreadId: string,
  ): Promise<ThreadCheckpoint>;
  /** Threads of durable workflows whose `sleepUntil()` time is at or before `now`. */
  dueThreads(now: Date): Promise<DueThread[]>;
  /** The earliest wake-up time of a durable workflow's sleeping thread (ISO 8601 UTC), or `null`. */
  nextWakeup(): Promise<string | null>;
  /**
   * Forget a thread: its checkpoints (and its timers) are removed from its checkpointer, and a
   * later run on the same thread id starts afresh. Retention calls it once every run of the
   * thread has ended and been removed from the log. Nothing happens for an unknown thread.
   */
  deleteThread(workflow: WorkflowDefinition, threadId: string): Promise<void>;
  close(): Promise<void>;
}

/** Errors an engine threw before its segment changed anything (see {@link markUntouched}). */
const untouched = new WeakSet<object>();

/**
 * Mark `error` as thrown before the segment changed anything: the graph had not produced a
 * step (its checkpoint read failed), or it writes its checkpoint only when it ends (LangGraph's
 * `exit` durability) and failed before it ended, so the thread's checkpoint is as it was. A
 * resumed run that fails so, for an outage, waits again rather than failing. Returns `error`.
 */
export function markUntouched(error: unknown): unknown {
  if (typeof error === 'object' && error !== null) untouched.add(error);
  return error;
}

/** Whether an engine marked `error` with {@link markUntouched}. */
export function leftUntouched(error: unknown): boolean {
  return typeof error === 'object' && error !== null && untouched.has(error);
}
