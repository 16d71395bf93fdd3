/**
 * The run scope: the internal per-run value the runtime threads through an engine (run id,
 * signal, pause requests, the application's context, the workflow invoker), and the
 * `Context` a callable sees of it. Not public. An engine adapter keeps its own per-run
 * state beside a scope (a `WeakMap` keyed by it), not in it.
 *
 * Tested through what callables receive: src/deck/context-injection.test.ts,
 * src/deck/workflow-runs.test.ts.
 */
import type { Context } from '../authoring/context.js';
import type { WorkflowDefinition } from '../authoring/workflow-definition.js';
import type { WorkflowResult } from '../core/interrupt-result.js';

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
