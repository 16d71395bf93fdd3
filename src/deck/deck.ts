/**
 * `Deck`: the composition root and the one object a project talks to. It holds the catalog
 * and the declared context type; opening it starts the event store, the session backend
 * and the Runtime that plays every run. Lifecycle: NEW -> build() -> BUILT -> open() ->
 * OPEN -> close() -> CLOSED (terminal).
 */
import type { Agent } from '../authoring/agent.js';
import { isContextClass } from '../authoring/context.js';
import type { Workflow } from '../authoring/workflow.js';
import type { AgentInput } from '../core/blocks.js';
import {
  ConfigError,
  DeckClosedError,
  NotFoundError,
  NotOpenError,
  RunFailedError,
} from '../core/errors.js';
import type { Event } from '../core/events.js';
import type { ConversationSession, SessionBackend } from '../core/sessions.js';
import type { RunStatus } from '../core/status.js';
import type { EventStore } from '../core/store.js';
import { engineSettingsFromEnv, OpenAIAgentsEngine } from '../engines/openai-agents/index.js';
import type { TurnOutcome } from '../runtime/agent-turn.js';
import { type RunOptions, Runtime } from '../runtime/runtime.js';
import { runtimeSettingsFromEnv } from '../runtime/settings.js';
import { type TurnResult, turnResultFrom } from '../runtime/turn-result.js';
import { openEventStore } from '../stores/events-url.js';
import { openSessionBackend, sessionSettingsFromEnv } from '../stores/sessions-url.js';
import { CatalogMap } from './catalog.js';
import { registerLiveDeck, unregisterLiveDeck } from './live-deck.js';
import type { DeckOptions } from './options.js';
import { checkCatalogKinds, checkCatalogNames } from './validate.js';

export type DeckState = 'new' | 'built' | 'open' | 'closed';

// biome-ignore lint/suspicious/noExplicitAny: the engine's and the catalog's types are generic over any agent
type AnyAgent = Agent<any, any>;

interface OpenParts {
  runtime: Runtime;
  store: EventStore;
  ownsStore: boolean;
  sessions: SessionBackend | null;
  engine: OpenAIAgentsEngine;
  sessionFor(sessionId: string): ConversationSession;
}

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
  #state: DeckState = 'new';
  #engine: OpenAIAgentsEngine | null = null;
  #open: OpenParts | null = null;
  readonly #options: DeckOptions<C>;
  readonly #catalog: { agents: AnyAgent[]; workflows: Workflow[] };

  constructor(options: DeckOptions<C> = {}) {
    if (options.context !== undefined && !isContextClass(options.context)) {
      throw new ConfigError(
        `Deck option 'context' must be a type (a class), not an instance (got ${describe(options.context)}); ` +
          'pass the class, e.g. new Deck({ context: Calendar }), and the instance on each run',
      );
    }
    this.name = options.name ?? 'agentdeck';
    const { agents, workflows } = checkCatalogKinds(options.agents ?? [], options.workflows ?? []);
    this.#catalog = { agents, workflows };
    this.agents = new CatalogMap(
      'agents',
      agents.map((a) => [a.name, a] as const),
    );
    this.workflows = new CatalogMap(
      'workflows',
      workflows.map((w) => [w.name, w] as const),
    );
    this.#options = options;
    registerLiveDeck(this);
  }

  /** The lifecycle state. */
  get state(): DeckState {
    return this.#state;
  }

  /**
   * Validate and compile the catalog. Synchronous, idempotent, reads local files only:
   * no network, nothing started.
   */
  build(): this {
    if (this.#state === 'closed') throw closedError(this.name);
    if (this.#state !== 'new') return this;
    checkCatalogNames(this.#catalog.agents, this.#catalog.workflows);
    const engine = new OpenAIAgentsEngine(engineSettingsFromEnv());
    for (const agent of this.agents.values()) engine.compile(agent);
    this.#engine = engine;
    this.#state = 'built';
    return this;
  }

  /** Start the event store, the session backend and the Runtime. Builds first if needed. */
  async open(): Promise<this> {
    if (this.#state === 'closed') throw closedError(this.name);
    if (this.#state === 'open') return this;
    this.build();
    const engine = this.#engine as OpenAIAgentsEngine;
    const settings = runtimeSettingsFromEnv();
    const ownsStore = this.#options.eventStore === undefined;
    const store = this.#options.eventStore ?? openEventStore(process.env.SERVICE_EVENTS);
    let sessions: SessionBackend | null = null;
    try {
      if (!this.#options.sessionFactory) {
        const { url, ...sessionOptions } = sessionSettingsFromEnv();
        sessions = openSessionBackend(url, sessionOptions);
      }
    } catch (error) {
      if (ownsStore) await store.close();
      throw error;
    }
    const sessionFor =
      this.#options.sessionFactory ?? ((id: string) => (sessions as SessionBackend).sessionFor(id));
    const runtime = new Runtime({ store, agentEngine: engine, sessionFor, settings });
    this.#open = { runtime, store, ownsStore, sessions, engine, sessionFor };
    this.#state = 'open';
    return this;
  }

  /** Close what the deck started (never an event store passed in). CLOSED is terminal. */
  async close(): Promise<void> {
    if (this.#state === 'closed') return;
    const parts = this.#open;
    this.#state = 'closed';
    this.#open = null;
    unregisterLiveDeck(this);
    if (!parts) {
      await this.#engine?.close();
      return;
    }
    await parts.runtime.close();
    const results = await Promise.allSettled([
      parts.engine.close(),
      parts.sessions?.close(),
      parts.ownsStore ? parts.store.close() : undefined,
    ]);
    const failed = results.find((r) => r.status === 'rejected');
    if (failed) throw (failed as PromiseRejectedResult).reason;
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.close();
  }

  /**
   * Play a turn of agent `name` and return its TurnResult, built from the run's
   * `run.completed` event. A failed turn throws the turn's error.
   */
  async run<O = unknown>(
    name: string,
    input: AgentInput,
    options: RunOptions<C> = {},
  ): Promise<TurnResult<O>> {
    const runtime = this.#runtime('run');
    const agent = this.#agent(name);
    const generator = runtime.streamAgent(agent, input, options);
    const events: Event[] = [];
    let step = await generator.next();
    while (!step.done) {
      events.push(step.value);
      step = await generator.next();
    }
    const outcome: TurnOutcome = step.value;
    if (outcome.error !== undefined) throw outcome.error;
    const failed = events.find((e) => e.kind === 'run.failed');
    if (failed?.kind === 'run.failed') {
      throw new RunFailedError(failed.runId, failed.payload.errorType, failed.payload.message);
    }
    return turnResultFrom<O>(events, events[0]?.runId ?? '');
  }

  /**
   * Play a turn and yield its events live: `run.started`, `text.delta` per chunk, tool
   * and usage events, `message.completed`, then exactly one terminal event. Stopping
   * early (break, return) ends the run with `run.cancelled`.
   */
  stream(
    name: string,
    input: AgentInput,
    options: RunOptions<C> = {},
  ): AsyncGenerator<Event, void, undefined> {
    const runtime = this.#runtime('stream');
    const agent = this.#agent(name);
    return dropReturn(runtime.streamAgent(agent, input, options));
  }

  /** The run's status folded from its events, or `null` when the log has no such run. */
  async status(runId: string): Promise<RunStatus | null> {
    return this.#runtime('status').status(runId);
  }

  /** The conversation-memory session `run` and `stream` use for `sessionId`. */
  sessionFor(sessionId: string): ConversationSession {
    return this.#parts('sessionFor').sessionFor(sessionId);
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

  #agent(name: string): AnyAgent {
    const agent = this.agents.get(name);
    if (agent) return agent;
    if (this.workflows.has(name)) {
      throw new ConfigError(
        `'${name}' is a workflow; this release plays agent turns only (workflow runs are not implemented yet)`,
      );
    }
    throw new NotFoundError(
      `No agent named '${name}'. Available: [${[...this.agents.keys()].map((n) => `'${n}'`).join(', ')}].`,
    );
  }
}

async function* dropReturn(generator: AsyncGenerator<Event, unknown, undefined>) {
  yield* generator;
}

function closedError(name: string): DeckClosedError {
  return new DeckClosedError(
    `deck '${name}' is closed and cannot be reopened or used; construct a new Deck`,
  );
}

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (typeof value === 'object') return `an instance of ${value.constructor?.name ?? 'Object'}`;
  return typeof value;
}
