import type { AgentDefinition } from '../authoring/agent-definition.js';
import {
  checkRunSettings,
  checkWorkflowInput,
  type WorkflowDefinition,
} from '../authoring/workflow-definition.js';
import { type AgentInput, toBlocks } from '../core/blocks.js';
import { InvalidInputError, NotFoundError } from '../core/errors.js';
import type { ControlVerb } from '../core/event-kinds.js';
import type { Event } from '../core/events.js';
import type { WorkflowResult } from '../core/interrupt-result.js';
import { foldStatus, type RunStatus } from '../core/status.js';
import type { ControlRequest, RunSummary } from '../core/store.js';
import type { ApprovalAnswer } from './agent-engine.js';
import { type AgentTurnDeps, playAgentTurn, type TurnOutcome } from './agent-turn.js';
import { type BackgroundOptions, BackgroundWork } from './background.js';
import { playChildWorkflow } from './child-workflow.js';
import { continueIfAsked } from './control/asked-meanwhile.js';
import { requestControl, resumeRun } from './control/requests.js';
import { underResumeLock } from './control/resume-lock.js';
import { ControlWatch, handledUpTo } from './control/watch.js';
import { continuationOf } from './graph-resume.js';
import { answeredHandled } from './held-call.js';
import { LiveTurns } from './live-turns.js';
import { OpenPausesMemo } from './open-pauses-memo.js';
import { identityOf } from './paused-run.js';
import { PendingEndings } from './pending-endings.js';
import { admitStart } from './queue-admission.js';
import type { EventTap } from './recorder.js';
import { type PruneOptions, type PruneReport, pruneOnDemand } from './retention.js';
import { optionalId, reserveRunId } from './run-id-reservation.js';
import type { ResumeWorkflowOptions, RunOptions, RunPlayer, StartOptions } from './run-player.js';
import {
  dropEndedThread,
  type RuntimeCatalog,
  type RuntimeDeps,
  retentionDeps,
  timerParts,
} from './runtime-parts.js';
import { type ScheduleParts, scheduleParts } from './schedules.js';
import { dueThreads, type TickOutcome, tickDue } from './timers.js';
import type { DueThread } from './workflow-engine.js';
import { resumeWorkflowRun } from './workflow-resume.js';
import {
  playWorkflowSegment,
  type WorkflowOutcome,
  type WorkflowResume,
  type WorkflowRunDeps,
} from './workflow-run.js';

/** How long closing waits for a cancelled turn to record its own terminal event. */
const CLOSE_GRACE_MS = 2_000;

export class Runtime implements RunPlayer {
  readonly #liveTurns = new LiveTurns();
  readonly #openPauses = new OpenPausesMemo();
  readonly #controlWatch: ControlWatch;
  readonly #endings: PendingEndings;
  /** Continuations this Runtime started on its own (see `#whenResumed`). */
  readonly #background = new Set<Promise<void>>();
  readonly #catalog: RuntimeCatalog;
  readonly #taps: readonly EventTap[];
  /** The schedules' registers and fires (schedules.ts). */
  readonly schedules: ScheduleParts;
  #work: BackgroundWork | null = null;
  #closed = false;
  readonly liveRunIds = (): string[] => this.#liveTurns.runIds();
  /** Take no new work in the background (a draining process, background.ts); `close()` still closes. */
  readonly stopTaking = async (): Promise<void> => this.#work?.stopTaking();

  readonly #deps: RuntimeDeps;
  constructor(deps: RuntimeDeps) {
    this.#deps = deps;
    this.#controlWatch = new ControlWatch(deps.store, deps.settings.controlPollMs);
    this.#endings = new PendingEndings(deps.store);
    this.#catalog = deps.catalog ?? {
      agents: new Map(),
      workflows: new Map(),
      schedules: new Map(),
    };
    this.#taps = [...(deps.taps ?? []), (event) => this.#work?.tap(event)];
    this.schedules = scheduleParts({ store: deps.store, runtime: this, ...this.#catalog });
  }

  /** Start the background work of an open deck (background.ts); `close()` stops it. */
  startBackground(options: BackgroundOptions = {}): void {
    if (this.#work || this.#closed) return;
    const { store, settings } = this.#deps;
    const { agents, workflows } = this.#catalog;
    this.#work = new BackgroundWork(
      {
        settings,
        control: { store, runtime: this, agents, workflows },
        timers: timerParts(this.#deps, this.#catalog, this),
        schedules: this.schedules,
        retention: retentionDeps(this.#deps, this.#catalog),
        taps: this.#taps,
        abandon: (runId, reason) => this.#liveTurns.abandonRun(runId, reason),
        sessionFor: this.#deps.sessionFor,
      },
      options,
    );
    this.#work.start();
  }

  /**
   * Record a pause, cancel or resume request for a run (control/requests.ts); a run playing
   * here looks at it at once. An unknown run raises NotFoundError.
   */
  async requestControl(
    runId: string,
    verb: ControlVerb,
    reason: string | null,
  ): Promise<ControlRequest> {
    const request = await requestControl(this.#deps.store, this, runId, verb, reason);
    // A waiting run cancelled at rest ended here: drop a thread that ends with it.
    if (verb === 'cancel') await dropEndedThread(this.#deps, this.#catalog, runId);
    return request;
  }

  /** Continue a paused run of the catalog; the events it produced, `[]` when nothing was paused. */
  resume(runId: string, context: unknown): Promise<Event[]> {
    const { agents, workflows } = this.#catalog;
    return resumeRun({ store: this.#deps.store, runtime: this, agents, workflows }, runId, context);
  }

  /** Threads of durable workflows whose `sleepUntil()` time is at or before `now` (default: now). */
  dueThreads(now?: unknown): Promise<DueThread[]> {
    return dueThreads(timerParts(this.#deps, this.#catalog, this), now);
  }
  /** Wake every due thread (timers.ts). */
  tick(now?: unknown): Promise<TickOutcome[]> {
    return tickDue(timerParts(this.#deps, this.#catalog, this), now);
  }

  /** Remove runs that ended long ago, and the threads left without runs (retention.ts). */
  async prune(options: PruneOptions): Promise<PruneReport> {
    if (this.#closed) throw new NotFoundError('the deck is closed; nothing is pruned');
    // Tracked like a continuation: close() waits for it, and it stops between batches.
    const deps = retentionDeps(this.#deps, this.#catalog);
    const pruning = pruneOnDemand(deps, options, Date.now(), () => this.#closed);
    this.#track(pruning.then(noop, noop));
    return pruning;
  }

  /** Work close() waits for: a continuation started here, an on-demand prune. */
  #track(done: Promise<void>): void {
    this.#background.add(done);
    void done.finally(() => this.#background.delete(done));
  }

  /** Runs whose terminal event waits for the store to come back (pending-endings.ts). */
  get pendingEndings(): number {
    return this.#endings.size;
  }

  /** A control request for `runId` was just recorded: a run playing here looks at it now. */
  async controlRecorded(runId: string): Promise<void> {
    await this.#controlWatch.check(runId);
  }

  /** Stop a run this process plays now (`run.cancelled` with `reason`; a client that left); whether it did. */
  stopRun(runId: string, reason: string): boolean {
    return this.#liveTurns.cancelRun(runId, reason);
  }

  /** How many runs this process is playing now (agent turns and workflow segments). */
  get liveRuns(): number {
    return this.#liveTurns.size;
  }

  /** Cancel every turn in flight (each ends with `run.cancelled`) and free their claims. */
  async close(): Promise<void> {
    this.#closed = true; // nothing new is resumed from now on
    await this.#work?.halt();
    await this.#liveTurns.cancelAll('the deck closed while the turn was running', CLOSE_GRACE_MS);
    await Promise.allSettled([...this.#background]);
    await this.#work?.stop(); // its continuations were cancelled with the other runs
    await this.#endings.close();
  }

  /**
   * Play an agent turn; events are yielded as they are recorded. The generator's return value
   * carries the original error of a failed turn. `live: false` says the caller only wants the
   * result: the model is asked for whole replies (one `text.delta` per reply, not per token).
   */
  async *streamAgent(
    agent: AgentDefinition,
    input: AgentInput,
    options: StartOptions = {},
    live = true,
  ): AsyncGenerator<Event, TurnOutcome, undefined> {
    const blocks = toBlocks(input);
    const runId = await this.#runIdFor(agent, options);
    const outcome = yield* playAgentTurn(this.#agentDeps(), {
      agent,
      input: blocks,
      ...(options.queued?.retry ? { retry: options.queued.retry } : {}),
      ...(options.trigger ? { trigger: options.trigger } : {}),
      ...(options.history ? { history: options.history } : {}),
      ...(options.instructions ? { instructions: options.instructions } : {}),
      live,
      context: options.context,
      runWorkflow: (workflow, state, signal) =>
        this.#childWorkflow(runId, workflow, state, options, signal),
      identity: {
        runId,
        sessionId: optionalId('sessionId', options.sessionId),
        namespace: options.namespace ?? null,
        origin: agent.name,
      },
    });
    if (outcome.paused) this.#continueIfResumed(agent, runId, options.context, outcome.waiting);
    return outcome;
  }

  /**
   * Continue a paused agent run from the state its engine saved (a tool call that ran
   * before the pause does not run again), in the same log entry; with `answer`, a run
   * waiting for a person's approval of a tool call (the call runs, or the model is told it
   * was rejected). The run must be `paused` (`waiting_human` with an answer) with a saved
   * continuation; otherwise NotFoundError, and nothing changes. Two callers resuming one run
   * at once: the second gets ConflictError.
   */
  async *resumeAgent(
    agent: AgentDefinition,
    runId: string,
    options: { context?: unknown; resumeRequestId: string | null; answer?: ApprovalAnswer },
  ): AsyncGenerator<Event, TurnOutcome, undefined> {
    const expected: RunStatus = options.answer ? 'waiting_human' : 'paused';
    const outcome = yield* this.#underResumeLock(
      runId,
      expected,
      async function* (this: Runtime, summary) {
        const saved = await this.#deps.store.readContinuation(runId);
        if (saved === null) {
          throw new NotFoundError(
            `run '${runId}' is ${summary.status} but has no saved continuation to resume from; nothing was changed`,
          );
        }
        const requests = await this.#deps.store.readControl(runId);
        const handled = options.answer
          ? await answeredHandled(this.#deps.store, runId, requests, options.answer)
          : handledUpTo(requests, options.resumeRequestId);
        return yield* playAgentTurn(this.#agentDeps(), {
          agent,
          input: [],
          live: false,
          context: options.context,
          runWorkflow: (workflow, state, signal) =>
            this.#childWorkflow(runId, workflow, state, options, signal),
          identity: identityOf(summary),
          continuation: {
            saved,
            resumeRequestId: options.resumeRequestId,
            handled,
            ...(options.answer ? { answer: options.answer } : {}),
          },
        });
      },
    );
    if (outcome.paused) this.#continueIfResumed(agent, runId, options.context, outcome.waiting);
    return outcome;
  }

  /**
   * A run that just paused may have been asked to resume while it was stopping (the resume
   * found it still running): continue it here, in the background, so it is never left
   * paused with its resume already spent. Whoever resumes first wins; the other does nothing.
   */
  #continueIfResumed(
    agent: AgentDefinition,
    runId: string,
    context: unknown,
    waiting = false,
  ): void {
    // A run waiting for an answer is continued by the answer: only a cancel is acted on here.
    this.#whenResumed(
      runId,
      waiting
        ? null
        : (resumeRequestId) => this.resumeAgent(agent, runId, { context, resumeRequestId }),
    );
  }

  #continueWorkflowIfResumed(workflow: WorkflowDefinition, runId: string, context: unknown): void {
    this.#whenResumed(runId, (resumeRequestId) =>
      this.continueWorkflow(workflow, runId, { context, resumeRequestId }),
    );
  }

  #whenResumed(runId: string, resume: ((requestId: string) => AsyncIterable<Event>) | null): void {
    if (this.#closed) return;
    this.#track(continueIfAsked(this.#deps.store, runId, this.#staleAfterMs(), resume));
  }

  /** Play `body` holding the run's resume lock (control/resume-lock.ts). */
  #underResumeLock<R>(
    runId: string,
    /** The status expected, and the run as the caller just read it, if it did. */
    check: RunStatus | { expected: RunStatus; checked: RunSummary | undefined },
    /** Played with the run as checked under the lock. */
    body: (this: Runtime, summary: RunSummary) => AsyncGenerator<Event, R, undefined>,
  ): AsyncGenerator<Event, R, undefined> {
    const { expected, checked } = typeof check === 'string' ? { expected: check } : check;
    return underResumeLock(
      {
        store: this.#deps.store,
        runId,
        expected,
        ...(checked ? { checked } : {}),
        staleAfterMs: this.#staleAfterMs(),
        closed: () => this.#closed,
      },
      (summary) => body.call(this, summary),
    );
  }

  #staleAfterMs(): number {
    return this.#deps.settings.staleRunAfterSeconds * 1000;
  }

  #agentDeps(): AgentTurnDeps {
    return {
      store: this.#deps.store,
      engine: this.#deps.agentEngine,
      staleRunAfterSeconds: this.#deps.settings.staleRunAfterSeconds,
      heartbeatSeconds: this.#deps.settings.heartbeatSeconds,
      sessionFor: this.#deps.sessionFor,
      recordModelCalls: this.#deps.settings.recordModelCalls,
      taps: this.#taps,
      liveTurns: this.#liveTurns,
      controlWatch: this.#controlWatch,
      endings: this.#endings,
    };
  }

  /**
   * Start a workflow run on a thread (the `sessionId`, or the run id) and yield its events
   * live. The input is checked before anything is claimed or recorded.
   */
  async *streamWorkflow(
    workflow: WorkflowDefinition,
    input: unknown,
    options: StartOptions = {},
    parentRunId?: string,
  ): AsyncGenerator<Event, WorkflowOutcome, undefined> {
    const state = checkWorkflowInput(workflow, input);
    if (options.history !== undefined || options.instructions !== undefined) {
      throw new InvalidInputError(
        `workflow '${workflow.name}' takes no history nor instructions: those options are for agent turns; pass its initial state alone`,
      );
    }
    const sessionId = optionalId('sessionId', options.sessionId);
    if (workflow.durable && sessionId === null) {
      throw new InvalidInputError(
        `workflow '${workflow.name}' is durable: pass sessionId (its thread id) so a later call, ` +
          'an answer or a restart can find the thread again',
      );
    }
    const settings = checkRunSettings(`a run of workflow '${workflow.name}'`, options);
    const runId = await this.#runIdFor(workflow, options);
    const outcome = yield* playWorkflowSegment(this.#workflowDeps(), {
      workflow,
      threadId: sessionId ?? runId,
      start: options.fromCheckpoint
        ? { continue: true, ...options.fromCheckpoint }
        : options.queued?.continueThread
          ? { continue: true }
          : { input: state },
      ...(options.fromCheckpoint ? { begins: state } : {}),
      ...(options.queued?.retry ? { retry: options.queued.retry } : {}),
      settings,
      context: options.context,
      ...(parentRunId !== undefined ? { parentRunId } : {}),
      ...(options.trigger ? { trigger: options.trigger } : {}),
      identity: { runId, sessionId, namespace: options.namespace ?? null, origin: workflow.name },
    });
    if (outcome.paused) this.#continueWorkflowIfResumed(workflow, runId, options.context);
    return outcome;
  }

  /**
   * Continue a workflow run in status `paused`: one stopped between nodes by a pause request
   * continues from its last checkpoint (its pending nodes run); one sleeping on
   * `sleepUntil()` is woken if its time has come. Otherwise NotFoundError, and nothing
   * changes; a second concurrent caller gets ConflictError.
   */
  async *continueWorkflow(
    workflow: WorkflowDefinition,
    runId: string,
    options: { context?: unknown; resumeRequestId: string | null },
  ): AsyncGenerator<Event, WorkflowOutcome, undefined> {
    const outcome = yield* this.#underResumeLock(
      runId,
      'paused',
      async function* (this: Runtime, summary) {
        const threadId = summary.sessionId ?? runId;
        const engine = this.#deps.workflowEngine;
        const continuation = await continuationOf(engine, workflow, runId, threadId);
        const handled = handledUpTo(
          await this.#deps.store.readControl(runId),
          options.resumeRequestId,
        );
        return yield* playWorkflowSegment(this.#workflowDeps(), {
          workflow,
          threadId,
          ...continuation,
          context: options.context,
          resumeRequestId: options.resumeRequestId,
          handled,
          identity: identityOf(summary),
        });
      },
    );
    if (outcome.paused) this.#continueWorkflowIfResumed(workflow, runId, options.context);
    return outcome;
  }

  /**
   * Continue a paused workflow run in the same log entry: an answer goes to its open
   * question (`interrupt()` returns it in the re-run node), a wake-up to its timers due by
   * then. The run must be `waiting_human` (answer) or `paused` (wake) in the log and have a
   * matching open pause in its checkpointer (else NotFoundError); a second caller: ConflictError.
   */
  async *resumeWorkflow(
    workflow: WorkflowDefinition,
    runId: string,
    resume: WorkflowResume,
    options: ResumeWorkflowOptions = {},
  ): AsyncGenerator<Event, WorkflowOutcome, undefined> {
    const expected: RunStatus = 'answer' in resume ? 'waiting_human' : 'paused';
    const check = { expected, checked: options.checked };
    return yield* this.#underResumeLock(runId, check, async function* (this: Runtime, summary) {
      return yield* resumeWorkflowRun(this.#workflowDeps(), workflow, summary, resume, options);
    });
  }

  /**
   * A workflow an agent turn called as a tool: its own recorded run, linked to the turn
   * (`parentRunId`), with the turn's context; cancelled when the tool call is (the turn was
   * cancelled or stopped).
   */
  #childWorkflow(
    parentRunId: string,
    workflow: WorkflowDefinition,
    state: Record<string, unknown>,
    options: RunOptions,
    signal: AbortSignal | undefined,
  ): Promise<WorkflowResult> {
    const generator = this.streamWorkflow(
      workflow,
      state,
      {
        ...(options.context !== undefined ? { context: options.context } : {}),
        ...(options.namespace !== undefined ? { namespace: options.namespace } : {}),
      },
      parentRunId,
    );
    return playChildWorkflow(
      generator,
      (childRunId) =>
        this.#liveTurns.cancelRun(
          childRunId,
          `the agent run '${parentRunId}' that called it stopped`,
        ),
      signal,
    );
  }

  #workflowDeps(): WorkflowRunDeps {
    return {
      store: this.#deps.store,
      engine: this.#deps.workflowEngine,
      openPauses: this.#openPauses,
      staleRunAfterSeconds: this.#deps.settings.staleRunAfterSeconds,
      heartbeatSeconds: this.#deps.settings.heartbeatSeconds,
      taps: this.#taps,
      liveTurns: this.#liveTurns,
      controlWatch: this.#controlWatch,
      endings: this.#endings,
    };
  }

  async status(runId: string): Promise<RunStatus | null> {
    return foldStatus(await this.#deps.store.read(runId));
  }

  /** A start's run id: a queued run's own, else a new one once a token of its rate is taken. */
  async #runIdFor(origin: AgentDefinition | WorkflowDefinition, options: StartOptions) {
    if (options.queued && options.runId) return options.runId;
    await admitStart(this.#deps.store, origin, options.namespace);
    return reserveRunId(this.#deps.store, options.runId);
  }
}

const noop = () => undefined;
