/**
 * `deck.checkpoints()` and `deck.fork()` (#41): a durable workflow thread's checkpoints, and a
 * new thread copied from one of them, its state maybe edited (LangGraph's `updateState`: the
 * edit goes through the state's reducers), played on from there to its end or its next
 * interrupt. The source thread is never written to. The new run is linked to the source
 * thread's run that wrote the checkpoint (else its latest run) by
 * `run.started.derived_from = { run, how: 'fork' | 'rerun', thread, checkpoint, changes }`;
 * a fork without an edit is a re-run (`rerun`). Its `run.started` input is the state it
 * starts from, edit applied. Nodes after the checkpoint run again, with their side effects.
 * Tested in src/deck/forks.test.ts and, over HTTP, src/surfaces/http/replays.test.ts.
 */
import { randomBytes } from 'node:crypto';
import { checkWorkflowInput, type WorkflowDefinition } from '../authoring/workflow-definition.js';
import { ConflictError, InvalidInputError, NotFoundError } from '../core/errors.js';
import type { DerivedFrom } from '../core/event-kinds.js';
import type { Event } from '../core/events.js';
import { checkId } from '../core/ids.js';
import { InterruptResult } from '../core/interrupt-result.js';
import type { RunStatus } from '../core/status.js';
import type { EventStore, RunSummary } from '../core/store.js';
import type { RunPlayer } from '../runtime/run-player.js';
import { sessionIsElsewhere } from '../runtime/tenant-scope.js';
import type {
  ThreadCheckpoint,
  WorkflowEngine,
  WorkflowState,
} from '../runtime/workflow-engine.js';

/** `deck.fork()`'s options. */
export interface ForkOptions<C = unknown> {
  /** The checkpoint to start from (`deck.checkpoints()` lists them). @default the latest */
  checkpointId?: string;
  /** Fields written over the checkpoint's state (through its reducers); absent: a re-run. */
  state?: Record<string, unknown>;
  /** The new thread's id; it must be unused. @default `<thread>~fork-<8 hex>` */
  threadId?: string;
  /** The per-run application value for the nodes (never stored). */
  context?: C;
  /** Only a thread of this tenant (namespace) is forked, and the new one is its. */
  namespace?: string;
}

/** The new thread's run, once it stopped. */
export interface ForkResult {
  threadId: string;
  runId: string;
  status: RunStatus;
  /** The final state, when it completed. */
  state?: WorkflowState;
  /** The question it waits on, when a node interrupted it. */
  interrupt?: InterruptResult;
  /** The failure's message, when it failed. */
  error?: string;
  derivedFrom: DerivedFrom;
}

type Catalog = ReadonlyMap<string, WorkflowDefinition>;

/** What the fork needs of the open deck. */
export interface ForkParts {
  store: EventStore;
  runtime: Pick<RunPlayer, 'streamWorkflow'>;
  workflowEngine: WorkflowEngine;
}

/** The thread's checkpoints, newest first (NotFoundError for a thread with none). */
export async function listCheckpoints(
  parts: ForkParts,
  workflows: Catalog,
  name: string,
  threadId: string,
  { namespace }: { namespace?: string | undefined } = {},
): Promise<ThreadCheckpoint[]> {
  const workflow = forkable(parts, workflows, name);
  // Another tenant's thread reads as an unknown one.
  const elsewhere =
    namespace !== undefined &&
    (await sessionIsElsewhere(parts.store, checkId('threadId', threadId), namespace));
  const listed = elsewhere
    ? []
    : await (parts.workflowEngine.checkpoints?.(workflow, threadId) ?? []);
  if (listed.length === 0) {
    throw new NotFoundError(`workflow '${name}' has no thread '${threadId}' with checkpoints`);
  }
  return listed;
}

export async function forkThread(
  parts: ForkParts,
  workflows: Catalog,
  name: string,
  threadId: string,
  options: ForkOptions = {},
): Promise<ForkResult> {
  const workflow = forkable(parts, workflows, name);
  const edit = checkEdit(workflow, options.state);
  const listed = await listCheckpoints(parts, workflows, name, threadId, options);
  const checkpointId = options.checkpointId ?? (listed[0] as ThreadCheckpoint).id;
  const chosen = listed.find((checkpoint) => checkpoint.id === checkpointId);
  if (!chosen) {
    throw new NotFoundError(
      `thread '${threadId}' of workflow '${name}' has no checkpoint '${checkpointId}'; GET its checkpoints for their ids`,
    );
  }
  if (chosen.next.length === 0) {
    throw new InvalidInputError(
      `checkpoint_id '${checkpointId}' is where thread '${threadId}' ended: no node runs from it; fork from an earlier checkpoint`,
    );
  }
  const newThread = checkId(
    'threadId',
    options.threadId ?? `${threadId}~fork-${randomBytes(4).toString('hex')}`,
  );
  if ((await parts.store.listRuns({ sessionId: newThread, limit: 1 })).length > 0) {
    throw new ConflictError(`thread '${newThread}' is in use already; fork to a new thread id`);
  }
  const input = checkWorkflowInput(workflow, { ...chosen.values, ...edit });
  const derivedFrom: DerivedFrom = {
    run: await runAt(parts.store, name, threadId, chosen),
    how: edit ? 'fork' : 'rerun',
    thread: threadId,
    checkpoint: checkpointId,
    ...(edit ? { changes: edit } : {}),
  };
  await parts.workflowEngine.copyCheckpoint?.(workflow, threadId, checkpointId, newThread);
  const played = parts.runtime.streamWorkflow(workflow, input, {
    sessionId: newThread,
    ...(options.namespace !== undefined ? { namespace: options.namespace } : {}),
    context: options.context,
    trigger: { derivedFrom },
    fromCheckpoint: edit ? { update: edit } : {},
  });
  const events: Event[] = [];
  let step = await played.next();
  while (!step.done) {
    events.push(step.value);
    step = await played.next();
  }
  const outcome = step.value;
  if (outcome.error !== undefined && events.length === 0) throw outcome.error;
  const runId = events[0]?.runId ?? '';
  const last = events.at(-1);
  const base = { threadId: newThread, runId, derivedFrom };
  if (last?.kind === 'run.failed') {
    return { ...base, status: 'failed', error: last.payload.message };
  }
  if (outcome.result instanceof InterruptResult) {
    return { ...base, status: 'waiting_human', interrupt: outcome.result };
  }
  if (outcome.result !== undefined) {
    return { ...base, status: 'completed', state: outcome.result as WorkflowState };
  }
  return { ...base, status: outcome.paused ? 'paused' : 'cancelled' };
}

/** A durable workflow of the catalog, or why it cannot be forked. */
function forkable(parts: ForkParts, workflows: Catalog, name: string): WorkflowDefinition {
  const workflow = workflows.get(name);
  if (!workflow) throw new NotFoundError(`no workflow '${name}' in this deck's catalog`);
  if (
    !workflow.durable ||
    !parts.workflowEngine.checkpoints ||
    !parts.workflowEngine.copyCheckpoint
  ) {
    throw new ConflictError(
      `workflow '${name}' is not durable: its threads keep no checkpoints to fork from; declare it with durable: true`,
    );
  }
  return workflow;
}

/** The state edit, checked against the workflow's state; `undefined` when it edits nothing. */
function checkEdit(
  workflow: WorkflowDefinition,
  state: unknown,
): Record<string, unknown> | undefined {
  if (state === undefined || state === null) return undefined;
  if (typeof state !== 'object' || Array.isArray(state)) {
    throw new InvalidInputError('state must be an object of the fields to change, e.g. {"a": 1}');
  }
  const fields = fieldsOf(workflow.state);
  const unknown = fields ? Object.keys(state).find((key) => !fields.has(key)) : undefined;
  if (unknown !== undefined) {
    throw new InvalidInputError(
      `state.${unknown} is not a field of workflow '${workflow.name}'s state; its fields: ${[...(fields ?? [])].join(', ')}`,
    );
  }
  try {
    checkWorkflowInput(workflow, state);
  } catch (error) {
    if (!(error instanceof InvalidInputError)) throw error;
    throw new InvalidInputError(
      error.message.replace(/^invalid initial state for/, 'invalid state edit for a fork of'),
    );
  }
  return Object.keys(state).length > 0 ? (state as Record<string, unknown>) : undefined;
}

/** A state schema's field names: a zod object's shape, a LangGraph StateSchema's fields. */
function fieldsOf(state: unknown): Set<string> | null {
  const schema = state as { shape?: unknown; fields?: unknown } | null;
  const fields = schema?.shape ?? schema?.fields;
  return typeof fields === 'object' && fields !== null ? new Set(Object.keys(fields)) : null;
}

/** The thread's run that wrote `checkpoint`: the latest that started before it, else the latest. */
async function runAt(
  store: EventStore,
  name: string,
  threadId: string,
  checkpoint: ThreadCheckpoint,
): Promise<string> {
  const runs: RunSummary[] = await store.listRuns({ sessionId: threadId, origin: name });
  const written = Date.parse(checkpoint.createdAt);
  const at = runs.find((run) => Date.parse(run.startedAt) <= written) ?? runs[0];
  if (!at)
    throw new NotFoundError(
      `thread '${threadId}' of workflow '${name}' has no run in the event log`,
    );
  return at.runId;
}
