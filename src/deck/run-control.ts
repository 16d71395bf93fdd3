/**
 * Run control on an open deck (SPEC.md "Agent run control", issue 7): `pause` and `cancel`
 * record a request in the store and return at once; the process playing the run observes
 * it (at once in this process, by polling in any other). `resume` continues a paused run;
 * a resume recorded elsewhere (the `service runs signal` command) is played by whichever
 * open deck sees it first (`ResumeWatch`).
 */
import type { AgentDefinition } from '../authoring/agent-definition.js';
import type { WorkflowDefinition } from '../authoring/workflow-definition.js';
import { ConflictError, errorMessage, NotFoundError } from '../core/errors.js';
import type { ControlVerb } from '../core/event-kinds.js';
import type { Event } from '../core/events.js';
import { TERMINAL_STATUSES } from '../core/status.js';
import type { ControlRequest, EventStore, RunSummary } from '../core/store.js';
import { RunRecorder } from '../runtime/recorder.js';
import { RepeatedFailures } from '../runtime/repeated-failures.js';
import { cancelAtRest, isAtRest } from '../runtime/rest-cancel.js';
import type { Runtime } from '../runtime/runtime.js';
import { DEFAULT_STALE_RUN_AFTER_SECONDS } from '../runtime/settings.js';

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

/** A resume lock older than this is taken over by a cancel (as resumers take it over). */
const LOCK_STALE_MS = DEFAULT_STALE_RUN_AFTER_SECONDS * 1000;

/** What run control needs of an open deck. */
export interface ControlParts {
  store: EventStore;
  runtime: Runtime;
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
  runtime: Runtime | null,
  runId: string,
  verb: ControlVerb,
  reason: string | null,
): Promise<ControlRequest> {
  const run = await store.getRun(runId);
  if (!run) {
    throw new NotFoundError(`no run '${runId}' in the event log; nothing to ${verb}`);
  }
  const request = await store.recordControl(runId, verb, reason);
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

async function playResume(
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

/**
 * Whether a paused run stopped for a pause request (its `run.paused` follows
 * `control.observed`), not to sleep until a time (which only `tick()` or a due resume wakes).
 */
async function pausedByRequest(store: EventStore, runId: string): Promise<boolean> {
  const events = await store.read(runId);
  const paused = events.findLastIndex((e) => e.kind === 'run.paused');
  return paused > 0 && events[paused - 1]?.kind === 'control.observed';
}

/** How often an open deck looks for paused runs that another process asked to resume. */
const RESUME_SCAN_MS = 1_000;
/**
 * How old a resume request must be before a watching deck plays it: `resume()` records its
 * request and plays it at once, so a fresh request belongs to a caller that passes a context.
 */
const RESUME_GRACE_MS = 1_500;
/** Paused runs read per page of the scan. */
const SCAN_PAGE = 100;

/**
 * Plays the resumes recorded by processes that cannot play a run themselves (the
 * `service runs signal` command): a paused run of this deck's catalog, paused by a request,
 * whose latest request is a resume older than a moment is continued here, with no context
 * (as `tick()` does). Several decks sharing a store race for it under the resume lock; one
 * plays it. Continuations run in the background, so one long turn does not hold the scan.
 */
export class ResumeWatch {
  #timer: NodeJS.Timeout | null = null;
  #scanning: Promise<void> | null = null;
  readonly #playing = new Set<Promise<unknown>>();
  readonly #failures = new RepeatedFailures('looking for resume requests');
  /** Resume requests this deck cannot play, said once each in the log. */
  readonly #saidCannotPlay = new Set<string>();
  /**
   * The last seq of each paused run already looked at with nothing to play. A resume request
   * for a run at rest also appends `control.requested` to its log, so a run whose last seq has
   * not moved has no new request: with thousands of threads asleep, a scan reads one page of
   * runs instead of every run's requests.
   */
  readonly #quiet = new Map<string, number>();

  constructor(private readonly parts: ControlParts) {}

  start(): void {
    this.#timer = setInterval(() => void this.scan(), RESUME_SCAN_MS);
    this.#timer.unref();
  }

  /** Start no more scans or continuations. */
  halt(): void {
    if (this.#timer) clearInterval(this.#timer);
    this.#timer = null;
  }

  /** Halt, then wait for the scan and the continuations in flight. */
  async stop(): Promise<void> {
    this.halt();
    await this.#scanning;
    await Promise.allSettled([...this.#playing]);
  }

  /** One pass; a pass still running is not doubled. */
  scan(): Promise<void> {
    this.#scanning ??= this.#scan()
      .then(
        () => this.#failures.succeeded(),
        (error: unknown) => this.#failures.failed(error),
      )
      .finally(() => {
        this.#scanning = null;
      });
    return this.#scanning;
  }

  /** Say once in the log that a resume asked of a run is not this deck's to play. */
  #cannotPlay(run: RunSummary, requestId: string): void {
    if (this.#saidCannotPlay.has(requestId)) return;
    this.#saidCannotPlay.add(requestId);
    console.error(
      `[agentdeck] run '${run.runId}' was asked to resume (request ${requestId}), but this ` +
        `deck has no agent or workflow '${run.origin}' to play it; a server whose catalog has ` +
        `'${run.origin}' must be open on this store`,
    );
  }

  async #scan(): Promise<void> {
    const { store, agents, workflows } = this.parts;
    const paused = new Set<string>();
    let before: string | undefined;
    for (;;) {
      const page = await store.listRuns({
        status: 'paused',
        limit: SCAN_PAGE,
        ...(before ? { startedBefore: before } : {}),
      });
      for (const run of page) {
        if (!this.#timer) return;
        paused.add(run.runId);
        if (this.#quiet.get(run.runId) === run.lastSeq) continue;
        const playable = agents.has(run.origin) || workflows.has(run.origin);
        // A deck sharing the store with others skips their runs, unless one is asked to resume.
        const last = (await store.readControl(run.runId)).at(-1);
        if (last?.verb !== 'resume') {
          this.#quiet.set(run.runId, run.lastSeq);
          continue;
        }
        if (Date.now() - Date.parse(last.requestedAt) < RESUME_GRACE_MS) continue;
        if (!playable) {
          this.#cannotPlay(run, last.requestId);
          continue;
        }
        if (!(await pausedByRequest(store, run.runId))) continue;
        const playing = playResume(this.parts, run, last.requestId, null).catch(
          (error: unknown) => {
            console.error(
              `[agentdeck] could not resume run '${run.runId}': ${errorMessage(error)}`,
            );
          },
        );
        this.#playing.add(playing);
        void playing.finally(() => this.#playing.delete(playing));
      }
      if (page.length < SCAN_PAGE) {
        // Forget the runs that are no longer paused.
        for (const runId of this.#quiet.keys()) if (!paused.has(runId)) this.#quiet.delete(runId);
        return;
      }
      before = page.at(-1)?.startedAt;
    }
  }
}
