/**
 * Turns a Workflow definition into a compiled LangGraph graph. The definition's `graph()`
 * returns an uncompiled `StateGraph`; anything else, or a graph LangGraph refuses to
 * compile (a node without edges, an edge to an unknown node), is a ConfigError naming the
 * workflow, raised at `build()`.
 */
import { type BaseCheckpointSaver, isGraphBubbleUp } from '@langchain/langgraph';
import type { WorkflowDefinition } from '../../authoring/workflow-definition.js';
import { ConfigError, errorMessage } from '../../core/errors.js';
import { attachFailureDetails } from '../../core/failure-details.js';
import { wakeTimeOf } from '../../core/wakeups.js';
import { asRunScope } from '../../runtime/run-scope.js';
import type { OpenPause } from '../../runtime/workflow-engine.js';
import { unwrapAsked } from './asked.js';

/** The parts of a compiled LangGraph graph the engine uses. */
export interface CompiledGraph {
  stream(input: unknown, options: Record<string, unknown>): Promise<AsyncIterable<unknown>>;
  invoke(input: unknown, options: Record<string, unknown>): Promise<unknown>;
  getState(options: Record<string, unknown>): Promise<{ values: unknown; tasks: GraphTask[] }>;
}

export interface Interrupt {
  id?: string;
  value: unknown;
}

export interface GraphTask {
  interrupts: Interrupt[];
  /** The task's writes, once it completed. */
  result?: unknown;
}

export interface Uncompiled {
  compile(options?: { checkpointer?: BaseCheckpointSaver }): unknown;
}

export function compileGraph(
  workflow: WorkflowDefinition,
  checkpointer: BaseCheckpointSaver | undefined,
  builder: Uncompiled = graphBuilderOf(workflow),
): CompiledGraph {
  if (checkpointer) gateNodes(builder);
  try {
    return builder.compile(checkpointer ? { checkpointer } : {}) as CompiledGraph;
  } catch (error) {
    throw new ConfigError(
      `workflow '${workflow.name}': its graph does not compile: ${errorMessage(error)}`,
      { cause: error },
    );
  }
}

/** Thrown at a node's start, before its function runs, when the run is to pause there. */
export class NodeBoundaryPause extends Error {
  override name = 'NodeBoundaryPause';
}

/**
 * A workflow's safe point (issue 7): each function node first asks the run whether it is to
 * pause, and if so stops before its own code runs. LangGraph has kept the writes of every
 * node that finished, so continuing from the checkpoint runs exactly the nodes that did not.
 * Nodes that are not plain functions (a compiled subgraph) are not gated. The gate also
 * names the node, with its input state, on what the node throws (#41, `nodeFailed`).
 */
function gateNodes(builder: Uncompiled): void {
  const nodes = (builder as { nodes?: Record<string, { runnable?: { func?: unknown } }> }).nodes;
  for (const [node, spec] of Object.entries(nodes ?? {})) {
    const runnable = spec?.runnable;
    const func = runnable?.func;
    if (!runnable || typeof func !== 'function' || GATED.has(func)) continue;
    const gated = function (this: unknown, input: unknown, config?: { context?: unknown }) {
      if (asRunScope(config?.context)?.pauseRequested()) {
        throw new NodeBoundaryPause('the run pauses before this node');
      }
      let result: unknown;
      try {
        result = func.call(this, input, config);
      } catch (error) {
        throw nodeFailed(error, node, input);
      }
      // An async node's rejection is named too; a sync node's value goes back untouched.
      return result instanceof Promise
        ? result.catch((error: unknown) => Promise.reject(nodeFailed(error, node, input)))
        : result;
    };
    GATED.add(gated);
    runnable.func = gated;
  }
}

const GATED = new WeakSet<object>();

/**
 * `error` with the node that threw it and the state it was given (`run.failed`'s `node` and
 * `input`). LangGraph's own control flow through a node (an `interrupt()`, a `Command`) is
 * not a failure and is left unmarked.
 */
function nodeFailed(error: unknown, node: string, input: unknown): unknown {
  if (isGraphBubbleUp(error)) return error;
  return attachFailureDetails(error, { node, input });
}

/** Call the definition's `graph()` and check it returned an uncompiled graph. */
export function graphBuilderOf(workflow: WorkflowDefinition): Uncompiled {
  let builder: unknown;
  try {
    builder = workflow.graph(workflow.state);
  } catch (error) {
    throw new ConfigError(`workflow '${workflow.name}': graph() threw: ${errorMessage(error)}`, {
      cause: error,
    });
  }
  if (!isUncompiled(builder)) {
    throw new ConfigError(
      `workflow '${workflow.name}': graph() must return an uncompiled StateGraph ` +
        `(new StateGraph(state).addNode(...)...), got ${describe(builder)}; do not call .compile(), the deck compiles it with its checkpointer`,
    );
  }
  return builder;
}

function isUncompiled(value: unknown): value is Uncompiled {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as Partial<Uncompiled>).compile === 'function' &&
    // A compiled graph can stream; an uncompiled builder cannot.
    typeof (value as Partial<CompiledGraph>).stream !== 'function'
  );
}

function describe(value: unknown): string {
  if (value === null || value === undefined) return String(value);
  if (typeof value === 'object') return `an instance of ${value.constructor?.name ?? 'Object'}`;
  return typeof value;
}

/** The pauses a stored thread waits on, in {@link orderPauses}' order; `[]` when it is not paused. */
export async function openPausesOf(
  graph: CompiledGraph,
  storedThreadId: string,
): Promise<OpenPause[]> {
  const state = await graph.getState({ configurable: { thread_id: storedThreadId } });
  return pausesOfTasks(state.tasks);
}

/** The open pauses of a state snapshot's tasks, in {@link orderPauses}' order. */
export function pausesOfTasks(tasks: readonly GraphTask[]): OpenPause[] {
  // A task with a result was answered already (in a fan-out); its interrupt is history.
  const open = tasks
    .filter((task) => task.result === undefined)
    .flatMap((task) => task.interrupts.map(toPause));
  return orderPauses(open);
}

/**
 * Questions first, then timers, each by interrupt id: an order the same from the stream that
 * ended a segment and from the checkpointer, so the question a caller is shown (the first) is
 * the one an answer goes to, whichever process answers.
 */
export function orderPauses(pauses: readonly OpenPause[]): OpenPause[] {
  const byId = (a: OpenPause, b: OpenPause) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
  return [
    ...pauses.filter((p) => p.wakeAt === null).sort(byId),
    ...pauses.filter((p) => p.wakeAt !== null).sort(byId),
  ];
}

export function toPause(interrupt: Interrupt): OpenPause {
  const { payload, answerSchema } = unwrapAsked(interrupt.value);
  return {
    id: interrupt.id ?? '',
    payload: payload ?? null,
    wakeAt: wakeTimeOf(interrupt.value),
    ...(answerSchema ? { answerSchema } : {}),
  };
}
