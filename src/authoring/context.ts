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
