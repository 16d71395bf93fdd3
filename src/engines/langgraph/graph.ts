/**
 * Turns a Workflow definition into a compiled LangGraph graph. The definition's `graph()`
 * returns an uncompiled `StateGraph`; anything else, or a graph LangGraph refuses to
 * compile (a node without edges, an edge to an unknown node), is a ConfigError naming the
 * workflow, raised at `build()`.
 */
import type { BaseCheckpointSaver } from '@langchain/langgraph';
import type { WorkflowDefinition } from '../../authoring/workflow.js';
import { ConfigError, errorMessage } from '../../core/errors.js';

/** The parts of a compiled LangGraph graph the engine uses. */
export interface CompiledGraph {
  stream(input: unknown, options: Record<string, unknown>): Promise<AsyncIterable<unknown>>;
  invoke(input: unknown, options: Record<string, unknown>): Promise<unknown>;
  getState(options: Record<string, unknown>): Promise<{ values: unknown; tasks: GraphTask[] }>;
}

export interface GraphTask {
  interrupts: { value: unknown }[];
}

interface Uncompiled {
  compile(options?: { checkpointer?: BaseCheckpointSaver }): unknown;
}

export function compileGraph(
  workflow: WorkflowDefinition,
  checkpointer: BaseCheckpointSaver | undefined,
): CompiledGraph {
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
  try {
    return builder.compile(checkpointer ? { checkpointer } : {}) as CompiledGraph;
  } catch (error) {
    throw new ConfigError(
      `workflow '${workflow.name}': its graph does not compile: ${errorMessage(error)}`,
      { cause: error },
    );
  }
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
