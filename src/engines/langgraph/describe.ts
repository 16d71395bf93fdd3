/**
 * What the studio shows of a workflow (#21): its graph as LangGraph itself describes it
 * (`getGraph()`: nodes, and edges with the conditional ones marked), and a thread's current
 * state read from the checkpointer. Read-only: nothing here runs a node.
 *
 * A conditional edge added without a path map (`addConditionalEdges(source, fn)`) names its
 * target only when `fn` runs, so `getGraph()` draws an edge from `source` to every other node
 * and to the end. Those edges are kept, marked `guessed`: the drawing says where the branch
 * may go, not where it goes. With a path map the targets are the map's, and none is guessed.
 */
import type { WorkflowDefinition } from '../../authoring/workflow-definition.js';
import { compileGraph, graphBuilderOf, type Uncompiled } from './graph.js';

/** A workflow's graph: LangGraph's own nodes and edges (`__start__` and `__end__` included). */
export interface GraphShape {
  nodes: { id: string }[];
  edges: {
    source: string;
    target: string;
    conditional: boolean;
    label: string | null;
    /** A target LangGraph listed without knowing it: a conditional edge with no path map. */
    guessed: boolean;
  }[];
}

interface DrawableGraph {
  getGraphAsync?(): Promise<LangGraphDrawing>;
  getGraph?(): LangGraphDrawing;
}

interface LangGraphDrawing {
  nodes: Record<string, { id: string }>;
  edges: { source: string; target: string; conditional?: boolean; data?: unknown }[];
}

/** The parts of an uncompiled graph that say where its conditional edges go. */
interface BranchingBuilder {
  branches?: Record<string, Record<string, { ends?: Record<string, string> }>>;
  nodes?: Record<string, { ends?: readonly string[] }>;
}

/** The graph of `workflow`, compiled without a checkpointer (its shape is the same). */
export async function graphShapeOf(workflow: WorkflowDefinition): Promise<GraphShape> {
  const builder = graphBuilderOf(workflow);
  const unknown = unknownTargets(builder);
  const compiled = compileGraph(workflow, undefined, builder) as DrawableGraph;
  const drawing = compiled.getGraphAsync
    ? await compiled.getGraphAsync()
    : (compiled.getGraph?.() ?? { nodes: {}, edges: [] });
  return {
    nodes: Object.values(drawing.nodes).map((node) => ({ id: node.id })),
    edges: drawing.edges.map((edge) => {
      const conditional = edge.conditional === true;
      const known = unknown.get(edge.source);
      return {
        source: edge.source,
        target: edge.target,
        conditional,
        label: typeof edge.data === 'string' ? edge.data : null,
        guessed: conditional && known !== undefined && !known.has(edge.target),
      };
    }),
  };
}

/**
 * For each node with a branch that has no path map: the targets its other branches (with a
 * path map) and its `ends` do name. A conditional edge from it to any other node is a guess.
 */
function unknownTargets(builder: Uncompiled): Map<string, Set<string>> {
  const { branches = {}, nodes = {} } = builder as BranchingBuilder;
  const out = new Map<string, Set<string>>();
  for (const [source, bySource] of Object.entries(branches)) {
    const all = Object.values(bySource);
    if (all.every((branch) => branch.ends !== undefined)) continue;
    const named = all.flatMap((branch) => Object.values(branch.ends ?? {}));
    out.set(source, new Set([...named, ...(nodes[source]?.ends ?? [])]));
  }
  return out;
}
