/**
 * The per-run application context as a callable sees it. The value is passed by reference
 * on `run`, `stream`, `answer` and `resume`; it is never serialized, never shown to the
 * model and never written to the event log. A callable states what it needs twice: as a
 * type (`Context<Calendar>`) for the compiler, and as a runtime requirement for `build()`:
 * `tool({ context })`, `needsContext()` for instructions and hook methods, `withContext()`
 * for graph nodes.
 */

import {
  ANY_CONTEXT,
  type ContextRequirement,
  isContextRequirement,
  type RequirementSpec,
} from '../core/context-requirements.js';
import type { WorkflowResult } from '../core/interrupt-result.js';
import type { WorkflowDefinition } from './workflow.js';

export {
  type ContextClass,
  type ContextRequirement,
  isContextClass,
  isContextRequirement,
  oneOf,
  protocol,
  type RequiredType,
  typeParameter,
} from '../core/context-requirements.js';

/** What a tool, instructions function, hook method or graph node receives. */
export interface Context<T = unknown> {
  /** The value passed as `context` (by reference); `null` when the caller passed none. */
  readonly data: T;
  /** The run this call belongs to; `null` in a headless run. */
  readonly runId: string | null;
  /** The conversation or thread, when one was given. */
  readonly sessionId: string | null;
  /** Aborted when the run is cancelled or its consumer stops reading. */
  readonly signal: AbortSignal;
}

/** Requirement values that go with the `Context` type. */
export const Context: {
  /** Compatible with any declared context (`ctx.data` is `unknown`). */
  readonly any: RequirementSpec<unknown>;
} = Object.freeze({ any: ANY_CONTEXT });

const DECLARED = Symbol.for('agentdeck.contextDeclared');

/** A function tagged with the context requirement it declared. */
export type ContextDeclared = { readonly [DECLARED]: ContextRequirement };

/**
 * Declare the context an instructions function or a hook method needs; returns the same
 * function, tagged so `build()` can rule on it and the call can check the value.
 * @example
 * new Agent({
 *   name: 'Booker',
 *   instructions: needsContext(Calendar, (ctx) => `Today is ${ctx.data.today()}.`),
 *   hooks: { onToolEnd: needsContext(AuditLog, (ctx, tool, result) => ctx.data.write(tool, result)) },
 * });
 */
export function needsContext<T, A extends unknown[], R>(
  requirement: ContextRequirement<T>,
  fn: (ctx: Context<T>, ...rest: A) => R,
): ((ctx: Context<T>, ...rest: A) => R) & ContextDeclared {
  if (!isContextRequirement(requirement)) {
    throw new TypeError(
      'needsContext(requirement, fn): requirement must be a class, Context.any, oneOf(), protocol() or typeParameter()',
    );
  }
  if (typeof fn !== 'function')
    throw new TypeError('needsContext(requirement, fn): fn must be a function');
  return declareContext(fn, requirement);
}

/** Tag a function with its requirement (also used by `withContext` for nodes). */
export function declareContext<F extends object>(
  fn: F,
  requirement: ContextRequirement,
): F & ContextDeclared {
  Object.defineProperty(fn, DECLARED, { value: requirement, enumerable: false });
  return fn as F & ContextDeclared;
}

/** The requirement a function declared, or undefined. */
export function declaredRequirement(fn: unknown): ContextRequirement | undefined {
  if (typeof fn !== 'function') return undefined;
  return (fn as Partial<ContextDeclared>)[DECLARED];
}

/** Plays a workflow to its end for a tool call: its final state, or its InterruptResult. */
export type WorkflowInvoker = (
  workflow: WorkflowDefinition,
  state: Record<string, unknown>,
  /** The tool call's signal: aborting it cancels the workflow run. */
  signal: AbortSignal | undefined,
) => Promise<WorkflowResult>;

/** The internal per-run state the runtime threads through the engine. Not public. */
export interface RunScope {
  readonly data: unknown;
  /** The agent or workflow the run plays, to name a site in an error. */
  readonly invocable: string;
  /** Runs a workflow of the deck as a recorded child run (a workflow listed as a tool); null outside a deck's agent turn. */
  readonly runWorkflow: WorkflowInvoker | null;
  readonly runId: string;
  readonly sessionId: string | null;
  readonly signal: AbortSignal;
  /** Errors thrown by our tools, by call id, for `tool.call.completed`. */
  readonly toolErrors: Map<string, string>;
  /** The value each of our tools returned, by call id (before JSON encoding for the model). */
  readonly toolOutputs: Map<string, unknown>;
  /**
   * Errors the engine reported without a call id (it redacts the call of invalid
   * arguments): the exact text sent to the model -> the error message.
   */
  readonly toolErrorTexts: Map<string, string>;
  /** Whether the run should pause at its next safe point (tools ask it before they run). */
  readonly pauseRequested: () => boolean;
}

/** Every scope the runtime made (a marker property would be serialized with a paused turn's state). */
const RUN_SCOPES = new WeakSet<object>();

/** Create the scope of one recorded run. */
export function createRunScope(
  fields: Pick<RunScope, 'data' | 'invocable' | 'runId' | 'sessionId' | 'signal'> &
    Partial<Pick<RunScope, 'runWorkflow' | 'pauseRequested'>>,
): RunScope {
  const scope = {
    runWorkflow: null,
    pauseRequested: () => false,
    ...fields,
    toolErrors: new Map(),
    toolOutputs: new Map(),
    toolErrorTexts: new Map(),
    // The engine serializes its context with a paused turn's state: the scope (and the
    // application's context in it) must never be written anywhere.
    toJSON: () => ({}),
  } as RunScope;
  RUN_SCOPES.add(scope);
  return scope;
}

/** The run scope the engine carried as its context, or undefined (headless: the engine's own empty context). */
export function asRunScope(value: unknown): RunScope | undefined {
  return typeof value === 'object' && value !== null && RUN_SCOPES.has(value)
    ? (value as unknown as RunScope)
    : undefined;
}

/** The Context a callable receives for a run scope, or a headless one with `data: null`. */
export function contextFor<T>(engineContext: unknown, signal?: AbortSignal): Context<T> {
  const scope = asRunScope(engineContext);
  if (!scope) {
    return {
      data: null as T,
      runId: null,
      sessionId: null,
      signal: signal ?? new AbortController().signal,
    };
  }
  return {
    data: scope.data as T,
    runId: scope.runId,
    sessionId: scope.sessionId,
    signal: scope.signal,
  };
}
