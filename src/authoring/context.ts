/**
 * The per-run application context as a callable sees it. The value is passed by reference
 * on `run`, `stream`, `answer` and `resume`; it is never serialized, never shown to the
 * model and never written to the event log.
 */

/** What a tool, instructions function or hook method receives. */
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

/** A class usable as a context type or requirement. */
// biome-ignore lint/suspicious/noExplicitAny: constructor parameters of an arbitrary class
export type ContextClass<T = unknown> = abstract new (...args: any[]) => T;

/** A runtime context requirement: the class a callable needs, or `'any'`. */
export type ContextRequirement = ContextClass | 'any';

/** The internal per-run state the runtime threads through the engine. Not public. */
export interface RunScope {
  readonly data: unknown;
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
}

const RUN_SCOPE = Symbol('agentdeck.runScope');

/** Create the scope of one recorded run. */
export function createRunScope(
  fields: Pick<RunScope, 'data' | 'runId' | 'sessionId' | 'signal'>,
): RunScope {
  return {
    ...fields,
    toolErrors: new Map(),
    toolOutputs: new Map(),
    toolErrorTexts: new Map(),
    [RUN_SCOPE]: true,
  } as RunScope;
}

/** The run scope the engine carried as its context, or undefined (headless: the engine's own empty context). */
export function asRunScope(value: unknown): RunScope | undefined {
  return typeof value === 'object' && value !== null && RUN_SCOPE in value
    ? (value as unknown as RunScope)
    : undefined;
}

/** Whether a value is a class (a context type) rather than an instance. */
export function isContextClass(value: unknown): value is ContextClass {
  return typeof value === 'function' && value.prototype !== undefined;
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
