/**
 * A workflow's graph fingerprint (#42): a stable hash of its node names, its edges (plain,
 * waiting and conditional, with their path maps), its state's field names and the version
 * it declares. Every checkpoint a thread writes carries it in its metadata (a saver wrapped
 * per workflow stamps each `put`), so a thread resumed after a deploy says which graph wrote
 * it (graph-change.ts).
 */
import { createHash } from 'node:crypto';
import type { BaseCheckpointSaver } from '@langchain/langgraph';
import type { Uncompiled } from './graph.js';

/** The checkpoint metadata key that holds the fingerprint of the graph that wrote it. */
export const GRAPH_KEY = 'agentdeck_graph';

export interface GraphFingerprint {
  /** The version the workflow declares, or `null`. */
  version: string | null;
  /** The hash of its nodes, edges, state fields and version. */
  hash: string;
}

/** The fingerprint and the node names of a graph. */
export interface GraphIdentity extends GraphFingerprint {
  nodes: ReadonlySet<string>;
}

interface BuilderParts {
  nodes?: Record<string, unknown>;
  edges?: Iterable<[string, string]>;
  waitingEdges?: Iterable<[string[], string]>;
  branches?: Record<string, Record<string, { ends?: Record<string, string> }>>;
  channels?: Record<string, unknown>;
}

export function graphIdentityOf(builder: Uncompiled, version: string | undefined): GraphIdentity {
  const parts = builder as BuilderParts;
  const nodes = Object.keys(parts.nodes ?? {}).sort();
  const edges = [
    ...[...(parts.edges ?? [])].map(([from, to]) => `${from}->${to}`),
    ...[...(parts.waitingEdges ?? [])].map(([from, to]) => `${[...from].sort().join('+')}->${to}`),
    ...Object.entries(parts.branches ?? {}).flatMap(([from, branches]) =>
      Object.entries(branches).map(
        ([name, branch]) =>
          `${from}-?${name}->${branch.ends ? Object.values(branch.ends).sort().join('|') : '*'}`,
      ),
    ),
  ].sort();
  const fields = Object.keys(parts.channels ?? {})
    .filter((key) => !key.startsWith('__') && !key.includes(':'))
    .sort();
  const text = JSON.stringify({ nodes, edges, fields, version: version ?? null });
  const hash = createHash('sha256').update(text).digest('hex').slice(0, 16);
  return { version: version ?? null, hash, nodes: new Set(nodes) };
}

/** How a fingerprint is named in messages and on `run.resumed`: its version, else its hash. */
export function fingerprintLabel(fingerprint: GraphFingerprint): string {
  return fingerprint.version ?? `#${fingerprint.hash}`;
}

/** The fingerprint a checkpoint's metadata holds, or `null` (written before #42). */
export function recordedFingerprint(metadata: unknown): GraphFingerprint | null {
  const value = (metadata as Record<string, unknown> | undefined)?.[GRAPH_KEY] as
    | Partial<GraphFingerprint>
    | undefined;
  if (typeof value?.hash !== 'string') return null;
  return { version: typeof value.version === 'string' ? value.version : null, hash: value.hash };
}

/** `saver`, with every checkpoint it is given to keep stamped with `fingerprint`. */
export function stampingSaver(
  saver: BaseCheckpointSaver,
  fingerprint: GraphFingerprint,
): BaseCheckpointSaver {
  const stamp = { version: fingerprint.version, hash: fingerprint.hash };
  return new Proxy(saver, {
    get(target, key) {
      const value = Reflect.get(target, key, target);
      if (key === 'put') {
        return (config: unknown, checkpoint: unknown, metadata: unknown, versions: unknown) =>
          (value as (...args: unknown[]) => unknown).call(
            target,
            config,
            checkpoint,
            { ...(metadata as object), [GRAPH_KEY]: stamp },
            versions,
          );
      }
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}
