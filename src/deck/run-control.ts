/**
 * Run control as far as it goes today (SPEC.md "Agent run control"): `pause` and `cancel`
 * record a request and return at once; `resume` continues a run only when there is
 * something this process can continue now. Observing requests at safe points (and
 * continuing a paused agent from its saved state) is issue 7; until then nothing acts on a
 * pause or cancel request, exactly as SPEC.md says of workflows.
 */
import type { Workflow } from '../authoring/workflow.js';
import { ConflictError, NotFoundError } from '../core/errors.js';
import type { ControlVerb } from '../core/event-kinds.js';
import type { Event } from '../core/events.js';
import { TERMINAL_STATUSES } from '../core/status.js';
import type { ControlRequest, EventStore } from '../core/store.js';
import type { Runtime } from '../runtime/runtime.js';

/** The options of `pause` and `cancel`. */
export interface ControlOptions {
  /** Why, for the log and whoever reads it. @default null */
  reason?: string | null;
}

/** The options of `resume`: the context is passed again (it is never stored). */
export interface ResumeOptions<C = unknown> {
  /** The per-run application value the continuation receives; omitted, it reads `null`. */
  context?: C;
}

/**
 * Record a control request for a run: in the store's control requests (where any process
 * sharing the store finds it) and, for a run at rest (waiting for an answer, sleeping), as a
 * `control.requested` event in its log. A running run's own process writes that event when
 * it observes the request; a run that already ended gets no event after its terminal one
 * (the request is still kept, and does nothing). An unknown run raises NotFoundError.
 */
export async function requestControl(
  store: EventStore,
  runId: string,
  verb: ControlVerb,
  reason: string | null,
): Promise<ControlRequest> {
  const run = await store.getRun(runId);
  if (!run) {
    throw new NotFoundError(`no run '${runId}' in the event log; nothing to ${verb}`);
  }
  const request = await store.recordControl(runId, verb, reason);
  // A running run's log is written by the process playing it (which may hold streamed
  // events not yet stored): that process records `control.requested` when it observes the
  // request. A run at rest (waiting for an answer, sleeping) takes the event from here.
  if (
    !TERMINAL_STATUSES.includes(run.status) &&
    run.status !== 'running' &&
    run.status !== 'pending'
  ) {
    await store.append([
      {
        kind: 'control.requested',
        runId,
        sessionId: run.sessionId,
        namespace: run.namespace,
        origin: run.origin,
        payload: { verb, reason, requestId: request.requestId },
      },
    ]);
  }
  return request;
}

/**
 * Continue a paused run and return the events the continuation produced; `[]` when there
 * is nothing to resume. Today the only run in status `paused` that can be continued is a
 * workflow sleeping on `sleepUntil()` whose time has come (what `tick()` would wake):
 * nothing records `run.paused` for an agent turn yet (issue 7 adds the safe points and the
 * continuation from the engine's saved run state). A run that is not paused, not due, or
 * being resumed by another caller yields `[]`.
 */
export async function resumeRun(
  store: EventStore,
  runtime: Runtime,
  workflows: ReadonlyMap<string, Workflow>,
  runId: string,
  context: unknown,
): Promise<Event[]> {
  const run = await store.getRun(runId);
  const workflow = run ? workflows.get(run.origin) : undefined;
  if (run?.status !== 'paused' || !workflow) return [];
  const events: Event[] = [];
  try {
    const generator = runtime.resumeWorkflow(workflow, runId, { wake: new Date() }, { context });
    for await (const event of generator) events.push(event);
  } catch (error) {
    // Not due (or no longer paused), or another caller won the resume: nothing was changed.
    if (events.length === 0 && (error instanceof NotFoundError || error instanceof ConflictError))
      return [];
    throw error;
  }
  return events;
}
