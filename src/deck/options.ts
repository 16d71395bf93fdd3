/** The Deck's constructor options, declared once. */

import type { Agent } from '../authoring/agent.js';
import type { ContextClass } from '../authoring/context.js';
import type { HistoryPolicy } from '../authoring/history-policy.js';
import type { McpOption } from '../authoring/mcp.js';
import type { Schedule } from '../authoring/schedule.js';
import type { Scorer } from '../authoring/scorer.js';
import type { SkillsOption } from '../authoring/skills.js';
import type { Workflow } from '../authoring/workflow.js';
import type { Logger } from '../core/log.js';
import type { ModelCallRecording } from '../core/model-calls.js';
import type { SessionFactory } from '../core/sessions.js';
import type { EventStore } from '../core/store.js';
import type { Observer } from '../observers/observer.js';

/**
 * An agent a deck whose context is `C` can play: one whose sites accept a `C` (a deck
 * with no declared context takes any agent). `NoInfer`: `C` comes from `context` alone.
 */
export type DeckAgent<C> = unknown extends C
  ? // biome-ignore lint/suspicious/noExplicitAny: no declared context, no compile-time check
    Agent<any, any>
  : // biome-ignore lint/suspicious/noExplicitAny: any output type
    Agent<NoInfer<C>, any>;

export interface DeckOptions<C = unknown> {
  /** A name for messages and logs (for example the project's). @default 'agentdeck' */
  name?: string;
  /**
   * The agent catalog. With a declared `context`, each agent's tools, instructions and
   * hooks must accept it: an agent needing another type is a compile error here (and a
   * ContextTypeError at `build()` for what the types cannot see). @default []
   */
  agents?: readonly DeckAgent<C>[];
  /** The workflow catalog; names share one namespace with agents. @default [] */
  workflows?: readonly Workflow[];
  /**
   * Recurring runs of the deck's workflows and agents (`new Schedule({ name, target, cron })`);
   * they fire in a deck opened with `wakeTimers` (as `serve()` opens it). @default []
   */
  schedules?: readonly Schedule[];
  /**
   * Scorers experiments grade runs with (`new Scorer({...})`, `judgeScorer({...})`); names are
   * unique (docs/evals.md). @default []
   */
  scorers?: readonly Scorer[];
  /**
   * Skill roots: a path, a list of paths, or a `Skills` object; each `<root>/<name>/SKILL.md`
   * is a skill. Read and checked at `build()`. @default none
   */
  skills?: SkillsOption;
  /**
   * MCP servers: a path to an `.mcp.json` file (`{"mcpServers": {...}}`) or an `MCP` object.
   * Read at `build()`; the servers start at `open()` and stop at `close()`. @default none
   */
  mcp?: McpOption;
  /**
   * The declared type (a class, never an instance) of the per-run context. `build()` rules
   * on every site's requirement against it. @default none: no build-time check, and any
   * value may be passed as `context`
   */
  context?: ContextClass<C>;
  /**
   * Conversation memory per session id. @default SERVICE_SESSION: Redis when it names one;
   * else SQLite, in the events' file when they are in one (unless `memory://`), else in memory
   */
  sessionFactory?: SessionFactory;
  /**
   * What of a session's history an agent's turn sends to the model, for agents without their
   * own `history`. @default the full history
   */
  history?: HistoryPolicy;
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
   * Wake each durable workflow thread sleeping on `sleepUntil()` at its time, by itself (no
   * `tick()` call; several processes on one store wake each thread once). `open({ wakeTimers })`
   * wins over it; `serve()` opens with it on unless told `serve(deck, { wakeTimers: false })`.
   * @default false: call `deck.tick()` on your own cadence, as SPEC.md describes
   */
  wakeTimers?: boolean;
  /**
   * Remove runs that ended more than this many days ago (events, index row, requests), and
   * the checkpoints of workflow threads none of whose runs is left; a run that has not ended
   * is never removed. The open deck sweeps every minute in small batches (several processes
   * on one store share the work); `deck.prune()` removes on demand. `null`: keep every run.
   * @default SERVICE_RETENTION_DAYS, else null
   */
  retentionDays?: number | null;
  /**
   * What each agent turn records of its model requests (`model.call.started` and
   * `model.call.completed`: what the model saw and answered): `'on'` the request and response
   * in full (large values once per run), `'metadata'` the model, settings, tokens, latency and
   * request id without the bodies, `'off'` nothing. Wins over `SERVICE_RECORD_MODEL_CALLS`.
   * @default SERVICE_RECORD_MODEL_CALLS, else 'on' ('metadata' when NODE_ENV=production)
   */
  recordModelCalls?: ModelCallRecording;
  /**
   * Where the deck's own log lines go while it is open (an outage and its recovery, a run
   * that could not be woken or resumed, an observer disabled, what retention removed): an
   * object with `error`, `warn` and `info`, each given one line prefixed `[agentdeck]`, e.g.
   * your pino or winston logger.
   * @default console
   */
  logger?: Logger;
  /**
   * Read-only taps on the event log, each behind its own bounded queue: exactly these, in
   * order (`[]`: none, even when the environment configures tracing).
   * @default the Langfuse tracing observer when SERVICE_TRACER_PUBLIC_KEY and SERVICE_TRACER_SECRET_KEY are both set, else none
   */
  observers?: readonly Observer[] | undefined;
}

/** `Deck.fromProject()`'s options: the constructor's, less the catalog it discovers. */
export interface ProjectOptions<C = unknown>
  extends Omit<DeckOptions<C>, 'agents' | 'workflows' | 'skills' | 'mcp'> {
  /**
   * Host modules the bundles import as they are, by specifier (e.g. `{ '@app/calendar':
   * await import('./calendar.js') }`), so a class they share with the host (a context type)
   * is one class, not a copy. `agentdeck` and `agentdeck/testing` are always served so.
   * @default {}
   */
  modules?: Readonly<Record<string, unknown>>;
}

/** Options of {@link Deck.open}. */
export interface OpenOptions {
  /**
   * Wake sleeping workflow threads at their time, by themselves (see `DeckOptions.wakeTimers`).
   * @default the deck's `wakeTimers` option, else false
   */
  wakeTimers?: boolean;
  /**
   * Start the background work of an open deck (resume watch, stale sweep, timers, schedules,
   * retention; runtime/background.ts). `false` for a one-shot command that only reads or
   * prunes, so it never plays another process's run. @default true
   */
  background?: boolean;
  /**
   * When the MCP servers start: `'open'`, with the deck (one that fails is logged at once, and
   * the first turn does not wait for them); `'first-use'`, at the first agent turn that uses
   * one, so a command that only reads, prunes or plays workflows never starts them.
   * @default 'open'
   */
  mcpStart?: 'open' | 'first-use';
}
/**
 * Whose runs a call reaches (docs/tenants.md): the caller's tenant, the `namespace` its runs
 * were started with. Another tenant's run is then as unknown as a run that never existed.
 * @example await deck.cancel(runId, { namespace: 'acme' });
 */
export interface TenantOption {
  /** The caller's tenant; omitted, every run (a service without tenants). @default none */
  namespace?: string;
}

/** The options of `pause` and `cancel`. */
export interface ControlOptions extends TenantOption {
  /** Why, for the log and whoever reads it. @default null */
  reason?: string | null;
}

/** The options of `resume`: the context is passed again (it is never stored). */
export interface ResumeOptions<C = unknown> extends TenantOption {
  /** The per-run application value the continuation receives; omitted, it reads `null`. */
  context?: C;
}

/** The options of `answer`: the context is passed again (it is never stored). */
export interface AnswerOptions<C = unknown> extends TenantOption {
  /** The per-run application value the resumed nodes receive; omitted, they read `null`. */
  context?: C;
  /**
   * Names this answer (a workflow's, or a tool approval): a retry with the same key, once the
   * run has moved on, gets the first answer's outcome instead of NotFoundError. @default none
   */
  idempotencyKey?: string;
}
