/**
 * Control requests (SPEC.md "Agent run control"): `pause` and `cancel` record a request in
 * the store and return at once; the process playing the run observes it (at once in this
 * process through `ControlWatch`, by polling in any other). `resume` continues a paused run;
 * a resume recorded elsewhere (the `service runs signal` command) is played by whichever open
 * deck sees it first (resume-watch.ts). Tested through the deck: src/deck/run-control-*.test.ts.
 */
import type { AgentDefinition } from '../../authoring/agent-definition.js';
import type { WorkflowDefinition } from '../../authoring/workflow-definition.js';
import { ConflictError, NotFoundError } from '../../core/errors.js';
import type { ControlVerb } from '../../core/event-kinds.js';
import type { Event } from '../../core/events.js';
import { TERMINAL_STATUSES } from '../../core/status.js';
import type { ControlRequest, EventStore, RunSummary } from '../../core/store.js';
import { RunRecorder } from '../recorder.js';
import type { RunPlayer } from '../run-player.js';
import { DEFAULT_STALE_RUN_AFTER_SECONDS } from '../settings.js';
import { cancelAtRest, cancelQueued, isAtRest } from './rest-cancel.js';

/** A resume lock older than this is taken over by a cancel (as resumers take it over). */
const LOCK_STALE_MS = DEFAULT_STALE_RUN_AFTER_SECONDS * 1000;

/** What run control needs of an open deck. */
export interface ControlParts {
  store: EventStore;
  runtime: RunPlayer;
  agents: ReadonlyMap<string, AgentDefinition>;
  workflows: ReadonlyMap<string, WorkflowDefinition>;
}

/**
 * Record a control request for a run: in the store's control requests (where any process
 * sharing the store finds it) and, for a run at rest (paused, waiting for an answer), as a
 * `control.requested` event in its log; a run playing now records that event itself when it
 * observes the request. A cancel of a run at rest ends it here (`run.cancelled`, claim
 * freed); a resume is played by `resumeRun` or by a deck's `ResumeWatch`. A request for a
 * finished run is kept and does nothing. An unknown run raises NotFoundError.
 *
 * @param runtime this process's Runtime, which looks at once at a run it plays; `null` in a
 *   process that plays no runs (the `service` command).
 */
export async function requestControl(
  store: EventStore,
  runtime: Pick<RunPlayer, 'controlRecorded'> | null,
  runId: string,
  verb: ControlVerb,
  reason: string | null,
): Promise<ControlRequest> {
  const run = await store.getRun(runId);
  if (!run) {
    throw new NotFoundError(`no run '${runId}' in the event log; nothing to ${verb}`);
  }
  const request = await store.recordControl(runId, verb, reason);
  // A queued run nobody took yet is cancelled here; one a worker holds sees the request.
  if (verb === 'cancel' && run.status === 'queued' && (await cancelQueued(store, run, request))) {
    return request;
  }
  if (isAtRest(run)) {
    if (verb === 'cancel' && (await cancelAtRest(store, runId, request, LOCK_STALE_MS))) {
      return request;
    }
    // Written only while the run is still at rest (a concurrent cancel may have ended it).
    const current = await store.getRun(runId);
    if (current && isAtRest(current)) {
      await recorderFor(store, current).record(requestedEvent(request));
    }
  }
  if (!TERMINAL_STATUSES.includes(run.status)) await runtime?.controlRecorded(runId);
  return request;
}

/**
 * Continue a paused run and return the events the continuation produced; `[]` when there is
 * nothing to resume (not paused, not due, or resumed by another caller meanwhile). The
 * resume is recorded first: a pause the run has not observed yet is withdrawn by it.
 */
export async function resumeRun(
  parts: ControlParts,
  runId: string,
  context: unknown,
): Promise<Event[]> {
  const run = await parts.store.getRun(runId);
  if (!run || TERMINAL_STATUSES.includes(run.status)) return [];
  const request = await requestControl(parts.store, parts.runtime, runId, 'resume', null);
  if (run.status !== 'paused') return [];
  return playResume(parts, run, request.requestId, context);
}

export async function playResume(
  parts: ControlParts,
  run: RunSummary,
  resumeRequestId: string | null,
  context: unknown,
): Promise<Event[]> {
  const { runtime, workflows, agents } = parts;
  const agent = agents.get(run.origin);
  const workflow = workflows.get(run.origin);
  const events: Event[] = [];
  try {
    const generator = agent
      ? runtime.resumeAgent(agent, run.runId, { context, resumeRequestId })
      : workflow
        ? runtime.continueWorkflow(workflow, run.runId, { context, resumeRequestId })
        : null;
    if (!generator) return [];
    for await (const event of generator) events.push(event);
  } catch (error) {
    // Not paused any more, not due, or another caller won the resume: nothing was changed.
    if (events.length === 0 && (error instanceof NotFoundError || error instanceof ConflictError))
      return [];
    throw error;
  }
  return events;
}

function recorderFor(store: EventStore, run: RunSummary): RunRecorder {
  return new RunRecorder(store, {
    runId: run.runId,
    sessionId: run.sessionId,
    namespace: run.namespace,
    origin: run.origin,
  });
}

function requestedEvent(request: ControlRequest) {
  return {
    kind: 'control.requested' as const,
    payload: { verb: request.verb, reason: request.reason, requestId: request.requestId },
  };
}
