/**
 * Whether a thread written by another graph may go on under this one (#42). A thread whose
 * checkpoint carries this graph's fingerprint goes on as ever. Otherwise it goes on when every
 * node it waits at or runs next still exists and its state parses for the current schema,
 * after the workflow's `migrate({ state, from })` hook (when it declares one) carried the
 * state over; else it is blocked, with a reason naming the missing node or the failing field.
 * Read-only: a blocked thread stays as it was, and the fields `migrate` changed are written
 * only with the resume that goes on.
 */
import { isStateSchema, stateSchemaProblems } from '../../authoring/state-schema.js';
import type { WorkflowDefinition } from '../../authoring/workflow-definition.js';
import { errorMessage } from '../../core/errors.js';
import type { GraphChange, WorkflowState } from '../../runtime/workflow-engine.js';
import { fingerprintLabel, type GraphIdentity, recordedFingerprint } from './fingerprint.js';

/** What a thread's latest checkpoint says, as `getState()` reads it. */
export interface ThreadSnapshot {
  values: unknown;
  next?: readonly string[];
  metadata?: unknown;
}

/** A raw checkpoint's channel versions, and the versions each node has seen. */
export interface RawCheckpoint {
  channel_versions?: Record<string, unknown>;
  versions_seen?: Record<string, Record<string, unknown>>;
}

const BRANCH_TO = 'branch:to:';

/**
 * The nodes a raw checkpoint triggers: those whose `branch:to:<node>` channel changed since
 * they last saw it. Read from the checkpoint itself, since LangGraph's `getState()` leaves
 * out a node the current graph no longer has.
 */
export function pendingNodesOf(checkpoint: RawCheckpoint | undefined): string[] {
  const versions = checkpoint?.channel_versions ?? {};
  const seen = checkpoint?.versions_seen ?? {};
  return Object.keys(versions)
    .filter((channel) => channel.startsWith(BRANCH_TO))
    .map((channel) => channel.slice(BRANCH_TO.length))
    .filter((node) => isNewer(versions[BRANCH_TO + node], seen[node]?.[BRANCH_TO + node]));
}

function isNewer(version: unknown, seen: unknown): boolean {
  if (seen === undefined || seen === null) return version !== undefined && version !== null;
  if (typeof version === 'number' && typeof seen === 'number') return version > seen;
  return String(version) > String(seen);
}

export interface GraphCheck {
  change: GraphChange | null;
  /** The fields `migrate` changed, to write with the resume. */
  update?: WorkflowState;
  blocked: string | null;
}

export async function checkGraphChange(
  workflow: WorkflowDefinition,
  current: GraphIdentity,
  snapshot: ThreadSnapshot,
  /** The nodes the thread's checkpoint triggers, read only when the graph changed. */
  pendingNodes: () => Promise<readonly string[]>,
): Promise<GraphCheck> {
  const recorded = recordedFingerprint(snapshot.metadata);
  if (recorded?.hash === current.hash) return { change: null, blocked: null };
  const to = fingerprintLabel(current);
  const change = { from: recorded ? fingerprintLabel(recorded) : null, to };
  const waiting = [...(snapshot.next ?? []), ...(await pendingNodes())];
  const missing = waiting.find((node) => !current.nodes.has(node));
  if (missing !== undefined) {
    return {
      change,
      blocked: `its thread waits at node '${missing}', which graph ${to} of workflow '${workflow.name}' does not have`,
    };
  }
  let values = (snapshot.values ?? {}) as WorkflowState;
  let update: WorkflowState | undefined;
  if (workflow.migrate) {
    try {
      const migrated = await workflow.migrate({ state: values, from: change.from });
      update = changedFields(values, migrated);
      values = { ...values, ...migrated };
    } catch (error) {
      return { change, blocked: `its migrate() hook threw: ${errorMessage(error)}` };
    }
  }
  const problems = stateProblems(workflow.state, values);
  const withUpdate = update && Object.keys(update).length > 0 ? { update } : {};
  if (problems.length > 0) {
    return {
      change,
      blocked: `its state does not parse for graph ${to} of workflow '${workflow.name}': ${problems.join('; ')}`,
    };
  }
  return { change, blocked: null, ...withUpdate };
}

/** The fields of `next` whose values differ from `before`'s. */
function changedFields(before: WorkflowState, next: unknown): WorkflowState {
  if (typeof next !== 'object' || next === null || Array.isArray(next)) {
    throw new TypeError('migrate() must return the state as an object mapping');
  }
  return Object.fromEntries(
    Object.entries(next).filter(([key, value]) => !sameValue(before[key], value)),
  );
}

function sameValue(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  try {
    return JSON.stringify(a) === JSON.stringify(b);
  } catch {
    return false;
  }
}

/** A whole state's problems against the workflow's schema (required fields included). */
function stateProblems(schema: unknown, values: WorkflowState): string[] {
  if (isStateSchema(schema)) {
    const all = Object.fromEntries(Object.keys(schema.fields).map((key) => [key, values[key]]));
    return stateSchemaProblems(schema, all);
  }
  const parser = schema as {
    safeParse?: (value: unknown) => {
      success: boolean;
      error?: { issues: { path: PropertyKey[]; message: string }[] };
    };
  };
  if (typeof parser?.safeParse !== 'function') return [];
  const parsed = parser.safeParse(values);
  if (parsed.success) return [];
  return (parsed.error?.issues ?? []).map(
    (issue) => `${issue.path.map(String).join('.') || '(root)'}: ${issue.message}`,
  );
}
