/**
 * The context requirement of each node of an uncompiled StateGraph, for `build()`'s
 * verdicts. LangGraph keeps a function node as a `RunnableCallable` whose `func` is the
 * function given to `addNode()`: a `withContext()` node carries its requirement there. A
 * node LangGraph did not wrap (a compiled subgraph, any other Runnable) has no signature to
 * read; its verdict is deferred to invocation.
 */
import type { ContextRequirement } from '../../authoring/context.js';
import { declaredRequirement } from '../../authoring/context.js';

export interface NodeSite {
  readonly node: string;
  /** What the node declared; `'unreadable'` when it is not a plain function. */
  readonly requirement: ContextRequirement | 'unreadable';
}

interface NodeSpecLike {
  runnable?: { func?: unknown };
}

/** Nodes that declared a requirement, or whose requirement cannot be read. */
export function nodeSitesOf(builder: unknown): NodeSite[] {
  const nodes = (builder as { nodes?: Record<string, NodeSpecLike> }).nodes ?? {};
  const sites: NodeSite[] = [];
  for (const [node, spec] of Object.entries(nodes)) {
    const func = spec?.runnable?.func;
    if (typeof func !== 'function') {
      sites.push({ node, requirement: 'unreadable' });
      continue;
    }
    const requirement = declaredRequirement(func);
    if (requirement) sites.push({ node, requirement });
  }
  return sites;
}
