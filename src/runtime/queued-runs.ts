/**
 * Background runs (#40): putting a run in the queue, and playing one a worker took. A queued
 * run is checked as a synchronous start is (an unknown name, an input its schema refuses, a
 * bad key or priority: nothing is queued) and recorded as `run.queued` with its queue entry
 * in one write (core/queue.ts). A worker (queue-worker.ts) hands each entry it takes to
 * `playQueuedRun`, which plays it through the same Runtime calls as every other run, with the
 * run's id and input from its `run.queued`:
 * - a run still `queued` starts (`run.started`); a cancel that came while a worker was taking
 *   it is honoured and the run never starts;
 * - a run `running` was started by a worker that died (its hold lapsed): a workflow goes on
 *   from its last checkpoint (or its initial state, with none), an agent turn plays again
 *   from its input while its `queue.retry.attempts` allow, else fails; either way
 *   `run.resumed` names the attempt and why;
 * - a run its session or thread holds busy (another turn plays there) is given back to wait;
 * - anything else (ended, waiting for a person, paused) plays no more here.
 * Tested in src/deck/background-runs.test.ts and, across processes, test/queue-processes.int.test.ts.
 */
import type { AgentDefinition } from '../authoring/agent-definition.js';
import { checkWorkflowInput, type WorkflowDefinition } from '../authoring/workflow-definition.js';
import { type AgentInput, type ContentBlock, DataBlock, toBlocks } from '../core/blocks.js';
import { ConflictError, errorMessage, InvalidInputError, isBackendOutage } from '../core/errors.js';
import type { Event } from '../core/events.js';
import { failurePayload } from '../core/failure-details.js';
import { checkId } from '../core/ids.js';
import { log } from '../core/log.js';
import type { QueueEntry, RunQueue } from '../core/queue.js';
import { newRunId } from '../core/run-ids.js';
import type { ConversationSession } from '../core/sessions.js';
import type { EventStore } from '../core/store.js';
import { RunRecorder } from './recorder.js';
import type { RunPlayer, StartOptions } from './run-player.js';
import { endsWithMessageOf, popTurn } from './session-turns.js';
import type { WorkflowEngine } from './workflow-engine.js';

export type QueueStore = EventStore & RunQueue;

/** Highest and lowest priority a caller may give. */
export const MAX_PRIORITY = 1000;

export interface EnqueueOptions {
  /** The session (agent) or thread (workflow) the run plays on. */
  sessionId?: string;
  /** The tenant: recorded on every event; the default key. */
  namespace?: string;
  /**
   * The key its limits and fair turns count under. @default the namespace, else `default`.
   * With a namespace (a tenant), a given key is that tenant's own: `<namespace>/<key>`.
   */
  key?: string;
  /** A whole number from -1000 to 1000; higher first. @default 0 */
  priority?: number;
  /** Use this run id instead of a generated one; must be new. */
  runId?: string;
}

/** Check and record a background run of `target`; its `run.queued` event. */
export async function enqueueRun(
  store: QueueStore,
  target: { agent: AgentDefinition } | { workflow: WorkflowDefinition },
  input: unknown,
  options: EnqueueOptions = {},
): Promise<Event> {
  const { name, blocks, policy } =
    'agent' in target
      ? {
          name: target.agent.name,
          blocks: agentBlocks(target.agent.name, input),
          policy: target.agent.queue,
        }
      : {
          name: target.workflow.name,
          blocks: [new DataBlock(checkWorkflowInput(target.workflow, input))] as ContentBlock[],
          policy: target.workflow.queue,
        };
  if ('workflow' in target && target.workflow.durable && options.sessionId === undefined) {
    throw new InvalidInputError(
      `workflow '${name}' is durable: pass thread_id (sessionId) so an answer or a retry can find its thread`,
    );
  }
  const given = options.key;
  if (given !== undefined && (typeof given !== 'string' || given.trim() === '')) {
    throw new InvalidInputError(`key must be a non-empty string, got ${JSON.stringify(given)}`);
  }
  // A tenant's keys are its own: `acme/user-7`, never another tenant's (its limits, its turns).
  const { namespace } = options;
  const key = checkId(
    'key',
    given === undefined
      ? (namespace ?? 'default')
      : namespace === undefined
        ? given
        : `${namespace}/${given}`,
  );
  const priority = options.priority ?? 0;
  if (!Number.isInteger(priority) || Math.abs(priority) > MAX_PRIORITY) {
    throw new InvalidInputError(
      `priority must be a whole number from -${MAX_PRIORITY} to ${MAX_PRIORITY}, got ${JSON.stringify(priority)}`,
    );
  }
  const runId = options.runId === undefined ? newRunId() : checkId('runId', options.runId);
  const sessionId =
    options.sessionId === undefined ? null : checkId('sessionId', options.sessionId);
  return store.enqueue(
    {
      kind: 'run.queued',
      runId,
      sessionId,
      namespace: options.namespace ?? null,
      origin: name,
      payload: {
        invocableType: 'agent' in target ? 'agent' : 'workflow',
        input: blocks,
        key,
        priority,
      },
    },
    policy?.limits ?? { concurrency: null, rate: null },
  );
}

function agentBlocks(name: string, input: unknown): ContentBlock[] {
  if (typeof input !== 'string' && !Array.isArray(input)) {
    throw new InvalidInputError(
      `agent '${name}' takes a message: a string or a list of content blocks, got ${JSON.stringify(input)}`,
    );
  }
  return toBlocks(input as AgentInput);
}

export interface QueuedRunParts {
  store: QueueStore;
  runtime: RunPlayer;
  agents: ReadonlyMap<string, AgentDefinition>;
  workflows: ReadonlyMap<string, WorkflowDefinition>;
  engine: WorkflowEngine;
  /** The sessions agent turns play on: a turn played again first takes out its stopped self. */
  sessionFor?: (sessionId: string) => ConversationSession;
}

/**
 * How playing a taken entry ended for the queue: done with it, given back to wait (its
 * attempt not counted), or `lapse`: the run began here and its end could not be written (an
 * outage), so its hold is left to lapse and a worker takes it again as a counted attempt
 * (the retry policy decides), by when the ending kept for the outage is likely written.
 */
export type QueuedRunEnd = 'finished' | 'lapse' | { giveBackInMs: number };

/** How long a run whose session is busy waits before a worker looks again, in ms. */
export const BUSY_SESSION_RETRY_MS = 250;
/** The longest such a wait grows to (a session held for days by a run waiting for a person). */
export const BUSY_SESSION_MAX_RETRY_MS = 5_000;

/**
 * How long a run whose session is busy waits before the next look: a tenth of how long it has
 * waited in the queue, from 250 ms to 5 s, so a session held for hours is not asked four times
 * a second (nor every process told so, on Postgres).
 */
export function busySessionWaitMs(entry: QueueEntry, now = Date.now()): number {
  const waited = Math.max(0, now - Date.parse(entry.enqueuedAt));
  return Math.min(
    BUSY_SESSION_MAX_RETRY_MS,
    Math.max(BUSY_SESSION_RETRY_MS, Math.round(waited / 10)),
  );
}
/** How long a run the store refused for an outage waits before a worker tries it again, in ms. */
export const OUTAGE_RETRY_MS = 1_000;

const WORKER_GONE =
  'the worker playing it stopped (its process shut down and handed it back, or died)';

/** Play the run of `entry`, which this process's worker holds, as far as it plays here. */
export async function playQueuedRun(
  parts: QueuedRunParts,
  entry: QueueEntry,
): Promise<QueuedRunEnd> {
  const { store } = parts;
  // Read together: the run's status, its input, and a cancel that came while it was taken.
  const [summary, [first], requests] = await Promise.all([
    store.getRun(entry.runId),
    store.read(entry.runId, { limit: 1 }),
    store.readControl(entry.runId),
  ]);
  if (summary?.status !== 'queued' && summary?.status !== 'running') return 'finished';
  if (first?.kind !== 'run.queued') return 'finished';
  const recorder = new RunRecorder(store, {
    runId: entry.runId,
    sessionId: entry.sessionId,
    namespace: entry.namespace,
    origin: entry.origin,
  });
  const agent = parts.agents.get(entry.origin);
  const workflow = parts.workflows.get(entry.origin);
  if (summary.status === 'queued') {
    const cancel = requests.find((r) => r.verb === 'cancel');
    if (cancel) {
      await recorder.record({
        kind: 'run.cancelled',
        payload: { reason: cancel.reason ?? 'a cancel was requested' },
      });
      return 'finished';
    }
  }
  const options: StartOptions = {
    runId: entry.runId,
    ...(entry.sessionId !== null ? { sessionId: entry.sessionId } : {}),
    ...(entry.namespace !== null ? { namespace: entry.namespace } : {}),
    queued: {},
  };
  if (summary.status === 'running') {
    const attempt = entry.attempts;
    const retry = agent?.queue?.retry ?? { attempts: Number.POSITIVE_INFINITY, backoffMs: 0 };
    if (attempt > retry.attempts) {
      await recorder.record({
        kind: 'run.failed',
        payload: {
          errorType: 'WorkerLostError',
          message: `${WORKER_GONE}, on attempt ${attempt - 1} of ${retry.attempts}; no attempt is left (queue.retry.attempts)`,
        },
      });
      return 'finished';
    }
    if (retry.backoffMs > 0) await new Promise((done) => setTimeout(done, retry.backoffMs));
    options.queued = { retry: { attempt, reason: WORKER_GONE } };
    // The stopped attempt's message, alone at the session's end, is not sent twice.
    const session =
      agent && entry.sessionId !== null ? parts.sessionFor?.(entry.sessionId) : undefined;
    if (session && (await endsWithMessageOf(store, session, entry.runId))) await popTurn(session);
    if (workflow?.durable && entry.sessionId !== null) {
      const goesOn = await parts.engine.canContinue?.(workflow, entry.sessionId);
      if (goesOn) options.queued.continueThread = true;
    }
  }
  let began = false;
  try {
    const played = agent
      ? parts.runtime.streamAgent(agent, first.payload.input, options, false)
      : workflow
        ? parts.runtime.streamWorkflow(workflow, inputState(first.payload.input), options)
        : null;
    if (!played) return 'finished';
    for await (const _event of played) {
      // Played to where it stops here; its events are in the log for whoever follows it.
      began = true;
    }
    return 'finished';
  } catch (error) {
    // It began here and stopped without an ending the store took: giving it back untouched
    // would play it again at once, uncounted, while its kept ending may still be written.
    if (began && isBackendOutage(error)) return 'lapse';
    // Another turn plays on its session or thread now: it waits for it (multitask `enqueue`).
    if (error instanceof ConflictError) return { giveBackInMs: busySessionWaitMs(entry) };
    // The store went down before the run began: it waits in the queue for the next look.
    if (isBackendOutage(error)) return { giveBackInMs: OUTAGE_RETRY_MS };
    // Refused before it began (its definition changed since it was queued): it fails, so
    // it does not wait forever for a worker that will never play it.
    if ((await store.getRun(entry.runId))?.status === 'queued') {
      await recorder.record({
        kind: 'run.failed',
        payload: failurePayload(error),
      });
    }
    log.error(
      `[agentdeck] queued run '${entry.runId}' could not be played: ${errorMessage(error)}`,
    );
    return 'finished';
  }
}

/** A workflow's initial state from its `run.queued` input (one DataBlock). */
function inputState(blocks: readonly ContentBlock[]): unknown {
  const [block] = blocks;
  return block?.type === 'data' ? block.data : {};
}
