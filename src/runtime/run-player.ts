/**
 * What the Runtime's callers inside `runtime/` (control requests, timers, schedules, the
 * background tasks) need of it: the play methods, as an interface, so those files do not
 * import runtime.ts, which imports them. `Runtime` implements it.
 * Tested on `Runtime`, which implements it: runtime.test.ts, workflow-run.test.ts, timers.test.ts.
 */
import type { AgentDefinition } from '../authoring/agent-definition.js';
import type { WorkflowDefinition } from '../authoring/workflow-definition.js';
import type { AgentInput } from '../core/blocks.js';
import type { RunTrigger } from '../core/event-kinds.js';
import type { Event } from '../core/events.js';
import type { RunSummary } from '../core/store.js';
import type { HistoryMessage } from './agent-engine.js';
import type { TurnOutcome } from './agent-turn.js';
import type { WorkflowOutcome, WorkflowResume } from './workflow-run.js';

export interface RunOptions<C = unknown> {
  /** The per-run application value, passed by reference to tools, instructions and hooks. */
  context?: C;
  /** The conversation: the same id keeps the history across calls. */
  sessionId?: string;
  /** A free label recorded on every event (e.g. a tenant). */
  namespace?: string;
  /** Use this run id instead of a generated one; must be new. */
  runId?: string;
  /** A workflow run's `recursionLimit`, over the workflow's own (see `WorkflowOptions`). */
  recursionLimit?: number;
  /** A workflow run's `maxConcurrency`, over the workflow's own. */
  maxConcurrency?: number;
  /**
   * When its session (thread) is busy (deck/multitask.ts, #40): `reject` (ConflictError),
   * `enqueue` (wait for the runs there to end), `interrupt` (cancel them, then wait), or
   * `rollback` (as `interrupt`, and take the stopped agent turn out of the session).
   * @default none: the session's claim refuses a busy session (ConflictError), as `reject`
   */
  multitask?: 'reject' | 'enqueue' | 'interrupt' | 'rollback';
  /** How long `multitask` waits for the session to be free, in ms. @default 60000 */
  multitaskWaitMs?: number;
}

/**
 * Run options the deck itself adds: the schedule fire that started a run; for its HTTP
 * surfaces, a turn's history and instructions given by the caller.
 */
export interface StartOptions<C = unknown> extends RunOptions<C> {
  trigger?: RunTrigger;
  /**
   * An agent turn's earlier conversation, given by the caller rather than kept in a session
   * (the OpenAI API's stateless chat): sent to the model before the message; with a
   * `sessionId`, added to that session too. Agents only.
   */
  history?: readonly HistoryMessage[];
  /** Added after the agent's own instructions for this turn, never replacing them. Agents only. */
  instructions?: string;
  /**
   * The run is a queued one a worker took (`runId` names it, already in the log): its id is
   * not reserved again. With `retry`, an earlier attempt's worker died: the run records
   * `run.resumed` with the retry instead of `run.started`, and with `continueThread` a
   * workflow goes on from its thread's last checkpoint rather than its initial state.
   */
  queued?: { retry?: { attempt: number; reason: string }; continueThread?: boolean };
  /**
   * A workflow run that goes on from its thread's latest checkpoint (a fork's copy, #41),
   * with this state update applied first, rather than from its input (still recorded).
   */
  fromCheckpoint?: { update?: Record<string, unknown> };
}

/** How a paused run is continued: the context is passed again; the resume request it answers. */
export interface ContinueOptions {
  context?: unknown;
  resumeRequestId: string | null;
}

export interface RunPlayer {
  streamAgent(
    agent: AgentDefinition,
    input: AgentInput,
    options?: StartOptions,
    live?: boolean,
  ): AsyncGenerator<Event, TurnOutcome, undefined>;
  resumeAgent(
    agent: AgentDefinition,
    runId: string,
    options: ContinueOptions,
  ): AsyncGenerator<Event, TurnOutcome, undefined>;
  streamWorkflow(
    workflow: WorkflowDefinition,
    input: unknown,
    options?: StartOptions,
  ): AsyncGenerator<Event, WorkflowOutcome, undefined>;
  continueWorkflow(
    workflow: WorkflowDefinition,
    runId: string,
    options: ContinueOptions,
  ): AsyncGenerator<Event, WorkflowOutcome, undefined>;
  resumeWorkflow(
    workflow: WorkflowDefinition,
    runId: string,
    resume: WorkflowResume,
    options?: ResumeWorkflowOptions,
  ): AsyncGenerator<Event, WorkflowOutcome, undefined>;
  /** A control request for `runId` was just recorded: a run playing here looks at it now. */
  controlRecorded(runId: string): Promise<void>;
}

export interface ResumeWorkflowOptions {
  context?: unknown;
  /** The run as the caller just read it (its status is the check before the resume lock). */
  checked?: RunSummary;
  /** The answer's id, recorded on `run.resumed` so a retry can find its outcome (answer-replay.ts). */
  answerId?: string;
}
