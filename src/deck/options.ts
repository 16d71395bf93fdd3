/** The Deck's constructor options, declared once. */
import type { Agent } from '../authoring/agent.js';
import type { ContextClass } from '../authoring/context.js';
import type { Workflow } from '../authoring/workflow.js';
import type { SessionFactory } from '../core/sessions.js';
import type { EventStore } from '../core/store.js';
import type { Observer } from '../observers/observer.js';

export interface DeckOptions<C = unknown> {
  /** A name for messages and logs (for example the project's). @default 'agentdeck' */
  name?: string;
  /** The agent catalog. @default [] */
  // biome-ignore lint/suspicious/noExplicitAny: the engine's and the catalog's types are generic over any agent
  agents?: readonly Agent<any, any>[];
  /** The workflow catalog; names share one namespace with agents. @default [] */
  workflows?: readonly Workflow[];
  /** The declared type (a class, never an instance) of the per-run context. */
  context?: ContextClass<C>;
  /** Conversation memory per session id. @default SERVICE_SESSION: Redis when set, else in-process SQLite */
  sessionFactory?: SessionFactory;
  /**
   * An event store to use instead of the one `SERVICE_EVENTS` names. The deck never closes
   * a store passed in. @default built from SERVICE_EVENTS (SQLite at ./.agentdeck/state.db)
   */
  eventStore?: EventStore;
  /**
   * Where durable workflows keep their checkpoints, as a `SERVICE_CHECKPOINT` value
   * (`memory://`, `sqlite:///path.db`, `postgres://...`).
   * @default SERVICE_CHECKPOINT, else the event store's SQLite file (./.agentdeck/state.db)
   */
  checkpoints?: string;
  /**
   * Read-only taps on the event log, each behind its own bounded queue: exactly these, in
   * order (`[]`: none, even when the environment configures tracing).
   * @default the Langfuse tracing observer when SERVICE_TRACER_PUBLIC_KEY and SERVICE_TRACER_SECRET_KEY are both set, else none
   */
  observers?: readonly Observer[] | undefined;
}
