/**
 * `deck.enqueue()`: a background run of an agent or workflow, put in the queue for a worker
 * of any process sharing the event store (runtime/queued-runs.ts). The same checks as a
 * synchronous start run first (the name, the input against its schema, a session another
 * tenant uses), so a refused run is never queued. Tested in src/deck/background-runs.test.ts.
 */
import type { AgentDefinition } from '../authoring/agent-definition.js';
import type { WorkflowDefinition } from '../authoring/workflow-definition.js';
import { ConfigError } from '../core/errors.js';
import { isRunQueue } from '../core/queue.js';
import type { ConversationSession } from '../core/sessions.js';
import type { EventStore } from '../core/store.js';
import { type EnqueueOptions, enqueueRun } from '../runtime/queued-runs.js';
import { checkSessionTenant } from '../runtime/tenant-scope.js';
import type { QueuePlace } from '../surfaces/http/served-deck.js';
import { invocableOf } from './catalog.js';
import { type Multitask, makeWay } from './multitask.js';

export type { EnqueueOptions } from '../runtime/queued-runs.js';

/** A run put in the queue. */
export interface QueuedRun {
  runId: string;
  status: 'queued';
  /** The key its limits and turns count under. */
  key: string;
  priority: number;
}

/** `deck.enqueue()`'s options: where and how it waits, and what a busy session does. */
export interface DeckEnqueueOptions extends EnqueueOptions {
  /** What happens when its session or thread is busy (deck/multitask.ts). @default 'reject' */
  multitask?: Multitask;
}

/** What enqueue needs of the deck: its catalog, cancel and sessions (for `multitask`). */
export interface EnqueueDeck {
  readonly agents: ReadonlyMap<string, AgentDefinition>;
  readonly workflows: ReadonlyMap<string, WorkflowDefinition>;
  cancel(runId: string, options: { reason: string; namespace?: string }): Promise<unknown>;
  sessionFor(sessionId: string): ConversationSession;
}

export async function enqueueIn(
  store: EventStore,
  deck: EnqueueDeck,
  name: string,
  input: unknown,
  { multitask, ...options }: DeckEnqueueOptions,
): Promise<QueuedRun> {
  if (!isRunQueue(store)) {
    throw new ConfigError(
      'this event store has no run queue (RunQueue): use the memory, SQLite or Postgres store to queue background runs',
    );
  }
  const target = invocableOf(deck.agents, deck.workflows, name);
  await checkSessionTenant(store, options.sessionId, options.namespace);
  const { namespace } = options;
  const parts = {
    store,
    cancel: (runId: string, reason: string) =>
      deck.cancel(runId, namespace === undefined ? { reason } : { reason, namespace }),
    sessionFor: (sessionId: string) => deck.sessionFor(sessionId),
  };
  await makeWay(parts, { kind: target.kind, name }, options.sessionId, multitask);
  const queued = await enqueueRun(
    store,
    target.kind === 'agent' ? { agent: target.agent } : { workflow: target.workflow },
    input,
    options,
  );
  if (queued.kind !== 'run.queued') throw new Error('the queue stored another event');
  return {
    runId: queued.runId,
    status: 'queued',
    key: queued.payload.key,
    priority: queued.payload.priority,
  };
}

/** Most waiting entries read to find a run's place; one further back is at least this far. */
const PLACE_SCAN = 10_000;

/**
 * Where a queued run waits: its entry, and how many waiting runs are ahead of it by priority
 * and age (keys' turns may move it up: it is where it would be with one key). `null` when
 * the run has no entry (not queued, or the store has no queue).
 */
export async function queuePlaceOf(store: EventStore, runId: string): Promise<QueuePlace | null> {
  if (!isRunQueue(store)) return null;
  const entry = await store.queueEntry(runId);
  if (!entry) return null;
  let position: number | null = null;
  if (entry.takenBy === null) {
    const waiting = (await store.listQueue(PLACE_SCAN)).filter((e) => e.takenBy === null);
    const index = waiting.findIndex((e) => e.runId === runId);
    position = index === -1 ? waiting.length : index;
  }
  const { key, priority, attempts, enqueuedAt } = entry;
  return { key, priority, attempts, position, enqueuedAt };
}
