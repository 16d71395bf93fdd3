/**
 * `Deck`: the composition root and the one object a project talks to. It holds the catalog
 * and the declared context type; opening it starts the event store, the session backend
 * and the Runtime that plays every run. Lifecycle: NEW -> build() -> BUILT -> open() ->
 * OPEN -> close() -> CLOSED (terminal).
 */

import type { Agent } from '../authoring/agent.js';
import { checkHistoryPolicy } from '../authoring/history-policy.js';
import { toMcp } from '../authoring/mcp.js';
import type { Schedule } from '../authoring/schedule.js';
import { type Skill, toSkills } from '../authoring/skills.js';
import type { Workflow } from '../authoring/workflow.js';
import type { AgentInput } from '../core/blocks.js';
import { NotOpenError } from '../core/errors.js';
import type { Event } from '../core/events.js';
import { checkId } from '../core/ids.js';
import type { WorkflowResult } from '../core/interrupt-result.js';
import { useLogger } from '../core/log.js';
import type { ConversationSession } from '../core/sessions.js';
import type { RunStatus } from '../core/status.js';
import type { ControlRequest } from '../core/store.js';
import { LangGraphEngine } from '../engines/langgraph/index.js';
import {
  engineSettingsFromEnv,
  McpConnections,
  OpenAIAgentsEngine,
} from '../engines/openai-agents/index.js';
import { checkObservers } from '../observers/observer.js';
import type { DrainReport } from '../runtime/drain.js';
import type { PruneOptions, PruneReport } from '../runtime/retention.js';
import type { RunOptions, StartOptions } from '../runtime/run-player.js';
import type { Runtime } from '../runtime/runtime.js';
import { type ScheduleStatus, scheduleStatus } from '../runtime/schedules.js';
import { mustReach, reaches, scopedLog } from '../runtime/tenant-scope.js';
import type { TickOutcome } from '../runtime/timers.js';
import type { TurnResult } from '../runtime/turn-result.js';
import type { DueThread } from '../runtime/workflow-engine.js';
import { settle } from '../runtime/workflow-run.js';
import { type AppOptions, createApp, type DeckApp } from '../surfaces/http/app.js';
import { checkServiceToolNames, mcpSettingsFromEnv } from '../surfaces/mcp/options.js';
import { answerRun, dropReturn, turnOf } from './answers.js';
import { deckGrants } from './app-grants.js';
import { CatalogMap, invocableOf } from './catalog.js';
import { checkCatalogRefs } from './catalog-refs.js';
import { closeParts } from './close-parts.js';
import { checkCatalogContext } from './context-check.js';
import { closedError, drainDeck } from './drain.js';
import { type DeckEnqueueOptions, enqueueIn, type QueuedRun } from './enqueue.js';
import { DeckEvals, type EvalsTenant, type ExperimentOptions } from './evals.js';
import { type ForkOptions, type ForkResult, forkThread, listCheckpoints } from './forks.js';
import { registerLiveDeck, unregisterLiveDeck } from './live-deck.js';
import { whenFree } from './multitask.js';
import { type OpenParts, openParts } from './open-parts.js';
import type {
  AnswerOptions,
  ControlOptions,
  DeckOptions,
  OpenOptions,
  ProjectOptions,
  ResumeOptions,
  TenantOption,
} from './options.js';
import { type PendingItem, pendingRuns } from './pending.js';
import { projectDeckOptions } from './project.js';
import { type ReplayOptions, type ReplayResult, replayRun } from './replays.js';
import {
  checkSchedules,
  checkScheduleTargets,
  type ScheduleHandle,
  scheduleHandle,
} from './schedule-ops.js';
import { checkCatalogKinds, checkCatalogNames, checkDeckSettings } from './validate.js';

export type DeckState = 'new' | 'built' | 'open' | 'closed';

// biome-ignore lint/suspicious/noExplicitAny: the engine's and the catalog's types are generic over any agent
type AnyAgent = Agent<any, any>;

/**
 * @example
 * await using deck = await new Deck({ agents: [greeter] }).open();
 * const result = await deck.run('Greeter', 'Hello!', { sessionId: 'user-1' });
 * console.log(result.output);
 */
export class Deck<C = unknown> {
  readonly name: string;
  /** Agents by name; read-only. */
  readonly agents: ReadonlyMap<string, AnyAgent>;
  /** Workflows by name; read-only. */
  readonly workflows: ReadonlyMap<string, Workflow>;
  /** Schedules by name; read-only. */
  readonly schedules: ReadonlyMap<string, Schedule>;
  /** Datasets, scorers and experiments on the deck's event store (deck/evals.ts, docs/evals.md). */
  readonly evals: DeckEvals;
  #state: DeckState = 'new';
  #engine: OpenAIAgentsEngine | null = null;
  #workflowEngine: LangGraphEngine | null = null;
  #open: OpenParts | null = null;
  #skills: ReadonlyMap<string, Skill> = new Map();
  #mcp: McpConnections | null = null;
  #opening: Promise<this> | null = null;
  #restoreLogger: (() => void) | null = null;
  /** The options besides the catalog (kept in #catalog): `C` stays covariant, so a Deck<Calendar> is a Deck. */
  readonly #options: Omit<DeckOptions<C>, 'agents' | 'workflows'>;
  readonly #catalog: { agents: AnyAgent[]; workflows: Workflow[] };

  constructor(options: DeckOptions<C> = {}) {
    checkDeckSettings(options);
    this.name = options.name ?? 'agentdeck';
    const { agents, workflows } = checkCatalogKinds(options.agents ?? [], options.workflows ?? []);
    this.#catalog = { agents, workflows };
    this.agents = CatalogMap.byName('agents', agents);
    this.workflows = CatalogMap.byName('workflows', workflows);
    this.schedules = CatalogMap.byName('schedules', checkSchedules(options.schedules ?? []));
    this.#options = options;
    const catalog = { agents: this.agents, workflows: this.workflows };
    this.evals = new DeckEvals({ ...catalog, parts: (m) => this.#parts(m) }, options.scorers);
    registerLiveDeck(this);
  }

  /**
   * A deck whose catalog is discovered from a project directory: `agents/<bundle>/agent.ts`,
   * `workflows/<bundle>/workflow.ts` (default exports; TypeScript loads without a build
   * step), `skills/`, and `.mcp.json` next to the project directory. `options` are the rest
   * of the constructor's (context, observers, stores...).
   * @example await using deck = await (await Deck.fromProject('.agentdeck')).open();
   */
  static async fromProject<C = unknown>(
    path = '.agentdeck',
    options: ProjectOptions<C> = {},
  ): Promise<Deck<C>> {
    return new Deck<C>(await projectDeckOptions(path, options));
  }

  /** Skills by name, read from the `skills` roots at `build()` (empty before). */
  get skills(): ReadonlyMap<string, Skill> {
    return this.#skills;
  }

  /** The lifecycle state. */
  get state(): DeckState {
    return this.#state;
  }

  /**
   * Validate and compile the catalog. Synchronous, idempotent, reads local files only:
   * no network, nothing started. With a declared `context` type, every injection site's
   * requirement is ruled on; all incompatible ones are reported in one ContextTypeError.
   */
  build(): this {
    if (this.#state === 'closed') throw closedError(this.name);
    if (this.#state !== 'new') return this;
    checkObservers(this.#options.observers);
    const history = checkHistoryPolicy(this.#options.history, `deck '${this.name}'`);
    checkCatalogNames(this.#catalog.agents, this.#catalog.workflows);
    // Each agent and workflow is a tool of the same name at /mcp, beside the service's own.
    if (mcpSettingsFromEnv().enabled)
      checkServiceToolNames([...this.agents.keys(), ...this.workflows.keys()]);
    const skills = toSkills(this.#options.skills)?.load() ?? new Map<string, Skill>();
    const mcp = toMcp(this.#options.mcp);
    checkScheduleTargets(this.schedules.values(), this.agents, this.workflows);
    checkCatalogRefs(this.#catalog.agents, {
      skills,
      mcpServers: new Set(mcp?.servers.keys() ?? []),
      workflows: this.workflows,
    });
    const mcpConnections = mcp ? new McpConnections(mcp) : null;
    const engine = new OpenAIAgentsEngine(engineSettingsFromEnv());
    engine.useCatalog({ skills, mcp: mcpConnections, history });
    for (const agent of this.agents.values()) engine.compile(agent);
    const workflowEngine = new LangGraphEngine();
    for (const workflow of this.workflows.values()) workflowEngine.compile(workflow);
    const declared = this.#options.context;
    if (declared !== undefined) {
      const nodes = (name: string) => workflowEngine.nodeSites(name);
      checkCatalogContext(this.name, declared, this.agents.values(), this.workflows.keys(), nodes);
    }
    this.#engine = engine;
    this.#workflowEngine = workflowEngine;
    this.#skills = skills;
    this.#mcp = mcpConnections;
    this.#state = 'built';
    return this;
  }

  /**
   * Start the event store, the session backend, the observers (each `start()`, in order; one
   * that throws refuses the open), the MCP servers (or, with `mcpStart: 'first-use'`, at the
   * first turn that uses one) and the Runtime. Builds first if needed.
   * Concurrent calls share one opening; a `close()` called meanwhile waits for it, then closes.
   * With `wakeTimers`, sleeping workflow threads wake at their time by themselves.
   */
  async open(options: OpenOptions = {}): Promise<this> {
    if (this.#state === 'closed') throw closedError(this.name);
    if (this.#state === 'open') return this;
    const wakeTimers = options.wakeTimers ?? this.#options.wakeTimers ?? false;
    const background = options.background ?? true;
    const mcpStart = options.mcpStart ?? 'open';
    this.#opening ??= this.#start(wakeTimers, background, mcpStart).finally(() => {
      this.#opening = null;
    });
    return this.#opening;
  }

  async #start(
    wakeTimers: boolean,
    background: boolean,
    mcpStart: NonNullable<OpenOptions['mcpStart']>,
  ): Promise<this> {
    this.build();
    // From the open until the close, the deck's log lines go to its logger (core/log.ts).
    this.#restoreLogger = useLogger(this.#options.logger);
    this.#open = await openParts({
      wakeTimers,
      background,
      options: this.#options,
      engine: this.#engine as OpenAIAgentsEngine,
      workflowEngine: this.#workflowEngine as LangGraphEngine,
      workflows: this.workflows,
      schedules: this.schedules,
      agents: this.agents,
      mcp: this.#mcp,
      mcpStart,
    }).catch((error: unknown) => {
      this.#restoreLogger?.();
      throw error;
    });
    this.#state = 'open';
    return this;
  }

  /** Close what the deck started (never an event store passed in). CLOSED is terminal. */
  async close(): Promise<void> {
    if (this.#state === 'closed') return;
    if (this.#opening) await this.#opening.catch(() => undefined);
    if ((this.#state as DeckState) === 'closed') return; // another close() finished meanwhile
    const parts = this.#open;
    this.#state = 'closed';
    this.#open = null;
    unregisterLiveDeck(this);
    if (!parts) {
      await Promise.all([this.#engine?.close(), this.#workflowEngine?.close(), this.#mcp?.close()]);
      return;
    }
    await closeParts(parts, this.#workflowEngine, this.#mcp).finally(() => this.#restoreLogger?.());
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.close();
  }

  /**
   * Play a turn of agent `name` and return its TurnResult, built from the run's
   * `run.completed` event; or run workflow `name` from an initial state and return its
   * final state, or an InterruptResult when a node paused it. A failed run throws.
   */
  run<O = unknown>(
    name: string,
    input: AgentInput,
    options?: RunOptions<C>,
  ): Promise<TurnResult<O>>;
  run<S extends Record<string, unknown> = Record<string, unknown>>(
    name: string,
    input: Record<string, unknown>,
    options?: RunOptions<C>,
  ): Promise<WorkflowResult<S>>;
  async run(
    name: string,
    input: AgentInput | Record<string, unknown>,
    options: RunOptions<C> = {},
  ): Promise<TurnResult | WorkflowResult> {
    this.#parts('run');
    // Nobody reads an agent's turn live: the model may answer in whole replies.
    const played = this.#play(name, input, options, false) as AsyncGenerator<Event, never>;
    return this.workflows.has(name) ? settle(played) : turnOf(played);
  }

  /**
   * Play a run and yield its events live. An agent turn: `run.started`, `text.delta` per
   * chunk, tool and usage events, `message.completed`, then exactly one terminal event. A
   * workflow run: `run.started`, `node.updated` per completed node (and `custom` events),
   * then `run.completed`, `run.failed`, or `run.interrupted` when a node paused it.
   * Stopping early (break, return) ends the run with `run.cancelled`.
   */
  stream(
    name: string,
    input: AgentInput | Record<string, unknown>,
    options: RunOptions<C> = {},
  ): AsyncGenerator<Event, void, undefined> {
    return dropReturn(this.#play(name, input, options, true));
  }

  /** The runtime's generator for a run (its return value is the runtime's, not for users). */
  #play(
    name: string,
    input: AgentInput | Record<string, unknown>,
    options: RunOptions<C> | StartOptions<C>,
    live: boolean,
  ): AsyncGenerator<Event, unknown, undefined> {
    const runtime = this.#runtime('stream');
    const target = invocableOf(this.agents, this.workflows, name);
    const played =
      target.kind === 'workflow'
        ? runtime.streamWorkflow(target.workflow, input, options)
        : runtime.streamAgent(target.agent, input as AgentInput, options, live);
    // Once its session is free as `multitask` says; a tenant's run on another's is refused.
    return whenFree(
      this,
      this.#parts('stream').store,
      { kind: target.kind, name },
      options,
      played,
    );
  }

  /** Play `agent` or `workflow` over a dataset, scoring each run; its results (deck/evals.ts). */
  experiment(options: ExperimentOptions, tenant: EvalsTenant = {}) {
    return this.evals.experiment(options, tenant);
  }

  /** Queue a run of `name` for a worker of any deck on this event store (checked as `run()` is). */
  async enqueue(
    name: string,
    input: unknown,
    options: DeckEnqueueOptions = {},
  ): Promise<QueuedRun> {
    return enqueueIn(this.#parts('enqueue').store, this, name, input, options);
  }

  /**
   * Every run of this catalog waiting for a person's answer, oldest first: workflow
   * interrupts (reason `interrupt`) and agents' tool calls held for approval (`approval`).
   */
  async pending(options: TenantOption = {}): Promise<PendingItem[]> {
    const log = scopedLog(this.#parts('pending').store, options.namespace);
    const engine = this.#workflowEngine;
    const blocked = async (name: string, threadId: string) => {
      const workflow = this.workflows.get(name);
      return workflow && engine ? engine.blockedReason(workflow, threadId) : null;
    };
    return pendingRuns(log, this.workflows, this.agents, blocked);
  }

  /**
   * Answer a run `pending()` listed; its workflow or agent, thread and session are found
   * from the id. A workflow: the interrupted node re-runs from its start and `interrupt()`
   * returns `value`; resolves to the final state or the next InterruptResult. An agent's
   * tool call: `{ approved: true }` runs it, `{ approved: false, reason? }` tells the model
   * it was rejected, and the turn goes on; resolves to the next call waiting (an
   * InterruptResult) or the turn's TurnResult. An unknown run, or one not waiting for an
   * answer, raises NotFoundError; a malformed approval, InvalidInputError; both change nothing.
   * @example await deck.answer(item.runId, { approved: false, reason: 'too large' });
   */
  async answer(
    runId: string,
    value: unknown,
    options: AnswerOptions<C> = {},
  ): Promise<WorkflowResult> {
    const catalog = { agents: this.agents, workflows: this.workflows };
    const parts = { parts: this.#parts('answer'), ...catalog };
    const { context, idempotencyKey, namespace } = options;
    return answerRun(parts, checkId('runId', runId), value, context, idempotencyKey, namespace);
  }

  /** Threads of durable workflows whose `sleepUntil()` time is at or before `now` (default: now). */
  async dueResumes(now?: Date | string): Promise<DueThread[]> {
    return this.#runtime('dueResumes').dueThreads(now);
  }

  /**
   * Resume every thread `dueResumes(now)` lists. No daemon runs: the caller owns the
   * cadence. Takes no context, so a resumed node that declares one sees `null`.
   */
  async tick(now?: Date | string): Promise<TickOutcome[]> {
    return this.#runtime('tick').tick(now);
  }

  /**
   * Remove runs that ended more than `olderThanMs` ago (optionally only some statuses, or one
   * agent or workflow), and the checkpoints of workflow threads none of whose runs is left.
   * A run that has not ended is never removed. `dryRun` removes nothing and reports what would go.
   * @example await deck.prune({ olderThanMs: 30 * 86_400_000, statuses: ['completed'] });
   */
  async prune(options: PruneOptions): Promise<PruneReport> {
    return this.#runtime('prune').prune(options);
  }

  /** Every schedule's next and last fire, last run and pause, as `GET /schedules` lists them. */
  async listSchedules(): Promise<ScheduleStatus[]> {
    return scheduleStatus(this.#runtime('listSchedules').schedules);
  }

  /** A schedule's handle: describe, pause, resume (in every process, across restarts), trigger. */
  scheduleHandle(name: string): ScheduleHandle {
    return scheduleHandle(this.#runtime('scheduleHandle').schedules, name);
  }

  /** The run's status folded from its events, or `null` when the log has no such run. */
  async status(runId: string, options: TenantOption = {}): Promise<RunStatus | null> {
    if (!(await reaches(this.#parts('status').store, runId, options.namespace))) return null;
    return this.#runtime('status').status(checkId('runId', runId));
  }

  /** The conversation-memory session `run` and `stream` use for `sessionId`. */
  sessionFor(sessionId: string): ConversationSession {
    return this.#parts('sessionFor').sessionFor(checkId('sessionId', sessionId));
  }

  /**
   * Ask a run to pause: records the request (`control.requested`) and returns at once. A
   * request is not a status change; an unknown run raises NotFoundError.
   */
  async pause(runId: string, options: ControlOptions = {}): Promise<ControlRequest> {
    return this.#control(runId, 'pause', options);
  }

  /** Ask a run to cancel: records the request and returns at once (see `pause`). */
  async cancel(runId: string, options: ControlOptions = {}): Promise<ControlRequest> {
    return this.#control(runId, 'cancel', options);
  }

  /**
   * Continue a paused run; returns the events the continuation produced, `[]` when there is
   * nothing to resume. The context is passed again (it is never stored).
   */
  async resume(runId: string, options: ResumeOptions<C> = {}): Promise<Event[]> {
    if (!(await reaches(this.#parts('resume').store, runId, options.namespace))) return [];
    return this.#runtime('resume').resume(checkId('runId', runId), options.context);
  }

  /**
   * A Hono app serving this deck over HTTP (SPEC.md "HTTP surface", bodies as in release
   * 1.2.1); `serve()` (from `agentdeck/server`) opens the deck, listens and closes it on a signal.
   * @example const app = deck.app({ context: (request) => tenantFrom(request) });
   */
  app(options: AppOptions<C> = {}): DeckApp {
    const grants = deckGrants({
      parts: () => this.#open,
      missingModel: (name) => {
        const agent = this.agents.get(name);
        return agent && this.#engine ? this.#engine.missingModel(agent) : null;
      },
      evals: () => (this.#open ? this.evals : null),
      play: (name, input, runOptions, live) =>
        this.#play(name, input, runOptions as StartOptions<C>, live),
      studio: () =>
        this.#engine && this.#workflowEngine
          ? {
              ...{ agents: this.agents, workflows: this.workflows, skills: this.skills },
              ...{ engine: this.#engine, workflowEngine: this.#workflowEngine, mcp: this.#mcp },
            }
          : null,
    });
    return createApp(this, grants, options);
  }

  /** Record a pause or cancel request for a run the caller's tenant reaches. */
  async #control(runId: string, verb: 'pause' | 'cancel', options: ControlOptions) {
    const { runtime, store } = this.#parts(verb);
    const unknown = `no run '${runId}' in the event log; nothing to ${verb}`;
    await mustReach(store, runId, options.namespace, unknown);
    return runtime.requestControl(checkId('runId', runId), verb, options.reason ?? null);
  }

  /** Play agent run `runId`'s turn again as a new, linked run with a variant (deck/replays.ts). */
  replay(runId: string, options: ReplayOptions<C> = {}): Promise<ReplayResult> {
    return replayRun({ ...this.#parts('replay'), agents: this.agents }, runId, options);
  }

  /** A durable workflow thread's checkpoints, newest first (deck/forks.ts). */
  checkpoints(name: string, threadId: string, options: TenantOption = {}) {
    return listCheckpoints(this.#parts('checkpoints'), this.workflows, name, threadId, options);
  }

  /** A new thread from a checkpoint of `threadId`, its state maybe edited, played on (forks.ts). */
  fork(name: string, threadId: string, options: ForkOptions<C> = {}): Promise<ForkResult> {
    return forkThread(this.#parts('fork'), this.workflows, name, threadId, options);
  }

  /** Let the runs playing here end until `deadlineMs` (epoch ms), then hand the rest over (drain.ts). */
  drain(deadlineMs: number): Promise<DrainReport> {
    return drainDeck(this.#parts('drain'), deadlineMs);
  }

  #runtime(method: string): Runtime {
    return this.#parts(method).runtime;
  }

  #parts(method: string): OpenParts {
    if (this.#state === 'closed') throw closedError(this.name);
    if (!this.#open) {
      throw new NotOpenError(
        `deck '${this.name}' is not open; call await deck.open() before deck.${method}()`,
      );
    }
    return this.#open;
  }
}
