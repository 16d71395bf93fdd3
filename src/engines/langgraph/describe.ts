/**
 * What the studio shows of a workflow (#21): its graph as LangGraph itself describes it
 * (`getGraph()`: nodes, and edges with the conditional ones marked), and a thread's current
 * state read from the checkpointer. Read-only: nothing here runs a node.
 */
import type { WorkflowDefinition } from '../../authoring/workflow-definition.js';
import { compileGraph, graphBuilderOf } from './graph.js';

/** A workflow's graph: LangGraph's own nodes and edges (`__start__` and `__end__` included). */
export interface GraphShape {
  nodes: { id: string }[];
  edges: { source: string; target: string; conditional: boolean; label: string | null }[];
}

interface DrawableGraph {
  getGraphAsync?(): Promise<LangGraphDrawing>;
  getGraph?(): LangGraphDrawing;
}

interface LangGraphDrawing {
  nodes: Record<string, { id: string }>;
  edges: { source: string; target: string; conditional?: boolean; data?: unknown }[];
}

/** The graph of `workflow`, compiled without a checkpointer (its shape is the same). */
export async function graphShapeOf(workflow: WorkflowDefinition): Promise<GraphShape> {
  const compiled = compileGraph(workflow, undefined, graphBuilderOf(workflow)) as DrawableGraph;
  const drawing = compiled.getGraphAsync
    ? await compiled.getGraphAsync()
    : (compiled.getGraph?.() ?? { nodes: {}, edges: [] });
  return {
    nodes: Object.values(drawing.nodes).map((node) => ({ id: node.id })),
    edges: drawing.edges.map((edge) => ({
      source: edge.source,
      target: edge.target,
      conditional: edge.conditional === true,
      label: typeof edge.data === 'string' ? edge.data : null,
    })),
  };
}
