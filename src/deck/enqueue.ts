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
import type { EventStore } from '../core/store.js';
import { type EnqueueOptions, enqueueRun } from '../runtime/queued-runs.js';
import { checkSessionTenant } from '../runtime/tenant-scope.js';
import { invocableOf } from './catalog.js';

export type { EnqueueOptions } from '../runtime/queued-runs.js';

/** A run put in the queue. */
export interface QueuedRun {
  runId: string;
  status: 'queued';
  /** The key its limits and turns count under. */
  key: string;
  priority: number;
}

export async function enqueueIn(
  store: EventStore,
  catalog: {
    agents: ReadonlyMap<string, AgentDefinition>;
    workflows: ReadonlyMap<string, WorkflowDefinition>;
  },
  name: string,
  input: unknown,
  options: EnqueueOptions,
): Promise<QueuedRun> {
  if (!isRunQueue(store)) {
    throw new ConfigError(
      'this event store has no run queue (RunQueue): use the memory, SQLite or Postgres store to queue background runs',
    );
  }
  const target = invocableOf(catalog.agents, catalog.workflows, name);
  await checkSessionTenant(store, options.sessionId, options.namespace);
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
