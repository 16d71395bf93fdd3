/**
 * What the HTTP surface needs of a deck, declared on this side so `surfaces/http` depends on
 * this seam and never on the `Deck` class: `deck.app()` is the one edge from `deck` outward
 * (`deck/deck.ts` imports `createApp`), and an edge back would close a loop. `ServedDeck` is
 * the public part, the methods the routes and `serve()` call, which `Deck` satisfies
 * structurally (`deck/served-deck.test-d.ts` fails to compile if either side drifts).
 * `DeckGrants` is the private part a deck hands its own app (SPEC.md rule 9: the public
 * Deck has no event-log reader), built by `deck/app-grants.ts`. Results list only the fields
 * the routes read.
 */
import type { AgentInput } from '../../core/blocks.js';
import type { Event } from '../../core/events.js';
import type { WorkflowResult } from '../../core/interrupt-result.js';
import type { RunStatus } from '../../core/status.js';
import type { AppendNotifier, EventStore, StoreLayout } from '../../core/store.js';
import type { ScheduleStatus } from '../../runtime/schedules.js';
import type { TickOutcome } from '../../runtime/timers.js';
import type { AppOptions } from './options.js';
import type { ServedEvals } from './served-evals.js';
import type { ReplayingDeck } from './served-replays.js';

/** A run as the routes start it: its session (a workflow's thread) and the request's context. */
export interface ServedRunOptions<C = unknown> {
  sessionId?: string;
  context?: C;
  /** The caller's tenant (docs/tenants.md), recorded as the run's namespace. */
  namespace?: string;
  /** When its session or thread is busy (`?multitask=`; deck/multitask.ts). Default: 409. */
  multitask?: 'reject' | 'enqueue' | 'interrupt' | 'rollback';
}

/** A background run as `POST /runs` queues it (deck/enqueue.ts's options). */
export interface ServedEnqueueOptions {
  sessionId?: string;
  key?: string;
  priority?: number;
  multitask?: 'reject' | 'enqueue' | 'interrupt' | 'rollback';
}

/** A queued run (deck/enqueue.ts's `QueuedRun`). */
export interface QueuedRunView {
  runId: string;
  status: 'queued';
  key: string;
  priority: number;
}

/** Whose runs a call reaches: the caller's tenant (none: every run). */
export interface Scoped {
  namespace?: string;
}

/**
 * An agent turn as an API surface plays it (the OpenAI API): the caller's earlier messages
 * (sent to the model before the message; nothing stored without a session), text added
 * after the agent's instructions, and the run id chosen beforehand.
 */
export interface ServedTurnOptions<C = unknown> extends ServedRunOptions<C> {
  history?: readonly { role: 'user' | 'assistant'; text: string }[];
  instructions?: string;
  /** A new run id for the turn (`core/run-ids.ts`); default: one the runtime makes. */
  runId?: string;
}

/**
 * The deck as its HTTP surface sees it; a `Deck` is one.
 * @example const server = await serve(new Deck({ agents: [greeter] }));
 */
export interface ServedDeck<C = unknown> extends ReplayingDeck<C> {
  readonly name: string;
  /** Every route but the public ones answers 503 until it is `open`. */
  readonly state: 'new' | 'built' | 'open' | 'closed';
  readonly agents: ReadonlyMap<string, unknown>;
  readonly workflows: ReadonlyMap<string, unknown>;
  readonly skills: ReadonlyMap<string, unknown>;
  stream(
    name: string,
    input: AgentInput | Record<string, unknown>,
    options: ServedRunOptions<C>,
  ): AsyncGenerator<Event, void, undefined>;
  pending(options?: Scoped): Promise<PendingItem[]>;
  answer(
    runId: string,
    value: unknown,
    options: { context?: C; idempotencyKey?: string } & Scoped,
  ): Promise<WorkflowResult>;
  tick(now?: string): Promise<TickOutcome[]>;
  status(runId: string, options?: Scoped): Promise<RunStatus | null>;
  pause(runId: string, options: { reason: string | null } & Scoped): Promise<unknown>;
  cancel(runId: string, options: { reason: string | null } & Scoped): Promise<unknown>;
  /** Queue a background run (deck/enqueue.ts). */
  enqueue(
    name: string,
    input: unknown,
    options: ServedEnqueueOptions & Scoped,
  ): Promise<QueuedRunView>;
  resume(runId: string, options: { context?: C } & Scoped): Promise<readonly Event[]>;
  listSchedules(): Promise<ScheduleStatus[]>;
  scheduleHandle(name: string): ScheduleHandle;
  // The lifespan `serve()` drives: the caller constructs the deck, `serve()` opens it, builds
  // its app through `app()` (only the deck can give the grants), listens and closes it.
  open(options: { wakeTimers: boolean }): Promise<unknown>;
  app(options: AppOptions<C>): { fetch: (request: Request) => Response | Promise<Response> };
  close(): Promise<void>;
  /** Let the runs playing here end until `deadlineMs` (epoch ms), then hand the rest over. */
  drain?(deadlineMs: number): Promise<unknown>;
}

/** A run waiting for a person's answer: a workflow's interrupt, an agent's tool call to approve. */
export interface PendingItem {
  runId: string;
  threadId: string;
  /** The workflow's or the agent's name. */
  invocable: string;
  payload: unknown;
  kind: 'workflow' | 'agent';
  reason: 'interrupt' | 'approval';
  sessionId: string | null;
  /** Why a workflow's thread cannot resume (its graph changed); absent when it can. */
  blocked?: string;
  /** The JSON Schema the answer must match (#41); absent when any answer is accepted. */
  answerSchema?: Record<string, unknown>;
}

// The runtime's own shapes (surfaces/http may import runtime/; only deck/ is off limits).
export type { ScheduleStatus, TickOutcome };

export interface ScheduleHandle {
  describe(): Promise<ScheduleStatus>;
  pause(): Promise<void>;
  resume(): Promise<void>;
  trigger(): Promise<{ started: string } | { skipped: string; runId?: string }>;
}

/** The catalog as `GET /catalog` answers it (its wire form: built by the deck, never a secret). */
export interface CatalogDescription {
  agents: {
    name: string;
    /** Its `description`, or a sentence generated from its name and tools. */
    description: string;
    /** As written; `null` when computed from the context (`instructions_computed`). */
    instructions: string | null;
    instructions_computed: boolean;
    /** The agent's own model; `null`: the deck's default (`OPENAI_MODEL`). */
    model: string | null;
    tools: {
      name: string;
      kind: 'tool' | 'workflow' | 'skill' | 'built';
      description: string;
      /** The JSON schema of its arguments, as the model sees it. */
      parameters: unknown;
      /** `conditional`: a function of the call decides. */
      needs_approval: boolean | 'conditional';
    }[];
    skills: string[];
    mcp_servers: string[];
    /** Tool names a person approves (the agent's `needsApproval` list). */
    needs_approval: string[];
    output_schema: unknown;
  }[];
  workflows: {
    name: string;
    /** Its `description`, or a sentence generated from its name. */
    description: string;
    durable: boolean;
    state_schema: unknown;
    graph: {
      nodes: { id: string }[];
      edges: {
        source: string;
        target: string;
        conditional: boolean;
        label: string | null;
        /** A conditional edge without a path map: LangGraph lists every node as a target. */
        guessed: boolean;
      }[];
    };
  }[];
  skills: { name: string; description: string; body: string }[];
  mcp_servers: {
    name: string;
    transport: 'stdio' | 'http';
    status: 'connected' | 'failed' | 'starting';
    error: string | null;
    tools: { name: string; description: string; parameters: Record<string, unknown> }[];
  }[];
}

/** A workflow thread's state, read from its checkpointer. */
export interface ThreadView {
  values: unknown;
  next: string[];
  waiting: { id: string; payload: unknown; wakeAt: string | null }[];
  updatedAt: string;
}

/** What the deck grants its own HTTP surface beyond its public methods (SPEC.md rule 9). */
export interface DeckGrants {
  /** The catalog, described for the studio; `null` before the deck opens. */
  catalog?(): Promise<CatalogDescription> | null;
  /** A workflow thread's state (`null`: no checkpoint); `null` promise before the deck opens. */
  threadState?(workflow: string, threadId: string): Promise<ThreadView | null> | null;
  /** The latest `limit` items of a session's history, oldest first; `null` before open. */
  sessionItems?(sessionId: string, limit: number): Promise<unknown[]> | null;
  /**
   * Take a session's latest turn out of its history: items from the end back to, and with,
   * the last user message (a chat's regenerate). How many went; `null` before open.
   */
  popTurn?(sessionId: string): Promise<number> | null;
  /** The open deck's event log, or `null` before it opens. */
  eventLog(): EventLog | null;
  /** Datasets, scorers and experiments (`/evals`); `null` before open. @default none: 503 */
  evals?(): ServedEvals | null;
  /** A run's queue entry and its place among the waiting (0: next), or `null`; `null` promise before open. */
  queuePlace?(runId: string): Promise<QueuePlace | null> | null;
  /** Stop a run this process plays now, for a client that left; whether it was playing. */
  stopRun(runId: string, reason: string): boolean;
  /** Whether every configured backend answers now, or `null` before the deck opens. */
  readiness(): Promise<Readiness> | null;
  /**
   * Resolves when the session backend answers now (at once for one that cannot be asked:
   * SQLite, memory, a `sessionFactory`); rejects with its `StoreUnavailableError` when it
   * is down. @default none: not checked
   */
  sessionsReachable?(): Promise<void>;
  /** Why agent `name` cannot play a turn (no model configured), or `null` when it can. */
  missingModel?(name: string): string | null;
  /**
   * `deck.stream` for a caller that only wants the result (a JSON response): recorded the
   * same way, except that an agent's replies are asked for whole (one `text.delta` each); a
   * workflow's input is its initial state.
   */
  streamForResult: (
    name: string,
    input: string | Record<string, unknown>,
    options: ServedRunOptions,
  ) => AsyncGenerator<Event, void, undefined>;
  /** The open deck's metrics, or `null` before it opens (none: no metrics). */
  metrics?(): HttpMetrics | null;
  /**
   * An agent turn with {@link ServedTurnOptions}, read live (`deck.stream`) or for its result
   * only (`live: false`, as `streamForResult`). @default none: such turns are refused
   */
  playTurn?(
    name: string,
    input: string,
    options: ServedTurnOptions,
    live: boolean,
  ): AsyncGenerator<Event, void, undefined>;
}

/** The part of the event store the HTTP surface reads (and, if the store has it, its append notices). */
export type EventLog = Pick<EventStore, 'read' | 'getRun' | 'listRuns'> & Partial<AppendNotifier>;

/** Whether every backend the deck uses answers now (deck/readiness.ts), for `GET /health/ready`. */
export interface Readiness {
  ready: boolean;
  checks: { role: string; backend: string; ok: boolean; ms: number; detail?: string }[];
  /** Seconds a client should wait before trying again, when not ready. */
  retryAfterSeconds: number;
  /** The event store's schema layout, when it has one (the SQL stores). */
  layout?: StoreLayout;
}

/** What the HTTP surface needs of the open deck's metrics (observers/metrics/deck-metrics.ts). */
export interface HttpMetrics {
  /** Count one answered request; `route` is the matched pattern, or `unmatched`. */
  recordRequest(method: string, route: string, status: number, seconds: number): void;
  /** Count one request the gate refused, by reason (auth/refusals.ts lists them). */
  recordAuthRefusal?(reason: string): void;
  /** Every metric in the Prometheus text format, with its content type. */
  scrape(): Promise<{ contentType: string; body: string }>;
}

/** Where a queued run waits (`GET /runs/{run_id}`'s `queue`). */
export interface QueuePlace {
  key: string;
  priority: number;
  attempts: number;
  /** Runs ahead of it among the waiting; `null` while a worker holds it. */
  position: number | null;
  enqueuedAt: string;
}
