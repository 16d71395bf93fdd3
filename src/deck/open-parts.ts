/**
 * What an open deck holds, and `open()`'s work of starting it: the event store (from
 * `SERVICE_EVENTS` unless one was passed in), the session backend (in the events' SQLite file
 * unless `SERVICE_SESSION` names another place), the checkpointer, the
 * observers (each started in order; one that throws refuses the open, and what was opened is
 * closed again), the MCP servers (unless left to their first use), and the Runtime that
 * plays every run, with its background work (runtime/background.ts); and the deck's metrics,
 * whose timing proxies stand in front of the event store, the sessions and the checkpointer.
 */
import type { AgentDefinition } from '../authoring/agent-definition.js';
import type { Schedule } from '../authoring/schedule.js';
import type { Workflow } from '../authoring/workflow.js';
import { ConfigError } from '../core/errors.js';
import { isRunQueue } from '../core/queue.js';
import type { ConversationSession, SessionBackend } from '../core/sessions.js';
import type { EventStore } from '../core/store.js';
import { canPruneRuns } from '../core/store.js';
import type { LangGraphEngine } from '../engines/langgraph/index.js';
import type { McpConnections, OpenAIAgentsEngine } from '../engines/openai-agents/index.js';
import { resolveObservers } from '../observers/defaults.js';
import { DeckMetrics } from '../observers/metrics/deck-metrics.js';
import { ObserverSet } from '../observers/observer-set.js';
import { Runtime } from '../runtime/runtime.js';
import { runtimeSettingsFromEnv } from '../runtime/settings.js';
import { type OpenCheckpointer, openCheckpointer } from '../stores/checkpoints-url.js';
import {
  type EventStoreLocation,
  openEventStore,
  parseEventStoreUrl,
} from '../stores/events-url.js';
import { openSessionBackend, sessionSettingsFromEnv } from '../stores/sessions-url.js';
import { SqliteEventStore } from '../stores/sqlite/events.js';
import { eventStoreBackend, meteredSessions } from './metered-stores.js';
import type { DeckOptions } from './options.js';

export interface OpenParts {
  runtime: Runtime;
  store: EventStore;
  ownsStore: boolean;
  sessions: SessionBackend | null;
  engine: OpenAIAgentsEngine;
  /** The workflow engine (its checkpoints, for a fork: deck/forks.ts). */
  workflowEngine: LangGraphEngine;
  checkpointer: OpenCheckpointer;
  observers: ObserverSet;
  /** This open deck's metrics (`GET /metrics`). */
  metrics: DeckMetrics;
  sessionFor(sessionId: string): ConversationSession;
}

export interface OpenRequest {
  options: Omit<DeckOptions<unknown>, 'agents' | 'workflows'>;
  engine: OpenAIAgentsEngine;
  workflowEngine: LangGraphEngine;
  workflows: ReadonlyMap<string, Workflow>;
  agents: ReadonlyMap<string, AgentDefinition>;
  mcp: McpConnections | null;
  /** Start the MCP servers now (`'open'`), or leave them to the first turn that uses one. */
  mcpStart: 'open' | 'first-use';
  /** Wake sleeping threads at their time, and fire the schedules (runtime/background.ts). */
  wakeTimers: boolean;
  /** Start the background work at all (`OpenOptions.background`). */
  background: boolean;
  schedules: ReadonlyMap<string, Schedule>;
}

/**
 * Where the events are, for the sessions' default (beside them when in a file): the file of an
 * SQLite store passed in, no file for another store object, else what `SERVICE_EVENTS` names.
 */
function eventsPlace(options: OpenRequest['options']): EventStoreLocation {
  const given = options.eventStore;
  if (given === undefined) return parseEventStoreUrl(process.env.SERVICE_EVENTS);
  return given instanceof SqliteEventStore
    ? { backend: 'sqlite', path: given.path }
    : { backend: 'memory' };
}

export async function openParts(request: OpenRequest): Promise<OpenParts> {
  const { options, engine, workflowEngine, mcp } = request;
  const settings = runtimeSettingsFromEnv();
  if (options.retentionDays !== undefined) settings.retentionDays = options.retentionDays;
  if (options.recordModelCalls !== undefined) settings.recordModelCalls = options.recordModelCalls;
  const ownsStore = options.eventStore === undefined;
  const unmetered = options.eventStore ?? openEventStore(process.env.SERVICE_EVENTS);
  if (settings.retentionDays !== null && !canPruneRuns(unmetered)) {
    if (ownsStore) await unmetered.close();
    throw new ConfigError(
      `retention is set (${settings.retentionDays} days) but this event store cannot remove runs (it has no pruneRuns); use the memory, SQLite or Postgres store, implement RunPruning, or unset SERVICE_RETENTION_DAYS / retentionDays`,
    );
  }
  const metrics = new DeckMetrics();
  const store = metrics.meterEventStore(unmetered, eventStoreBackend(unmetered));
  let sessions: SessionBackend | null = null;
  let checkpointer: OpenCheckpointer | null = null;
  let observers: ObserverSet;
  try {
    if (!options.sessionFactory) {
      const { url, ...sessionOptions } = sessionSettingsFromEnv();
      sessions = openSessionBackend(url, { ...sessionOptions, events: eventsPlace(options) });
    }
    checkpointer = await openCheckpointer(
      options.checkpoints ?? process.env.SERVICE_CHECKPOINT,
      process.env.SERVICE_EVENTS,
      unmetered,
    );
    observers = await ObserverSet.start(resolveObservers(options.observers));
  } catch (error) {
    await checkpointer?.close();
    await sessions?.close();
    if (ownsStore) await store.close();
    throw error;
  }
  const { saver, location } = checkpointer;
  workflowEngine.attach(metrics.meter(saver, 'checkpoints', location.backend));
  // Never throws: a server that fails is reported and its agents run without its tools.
  if (request.mcpStart === 'open') await mcp?.open();
  const engineSpans = observers.engineSpanSink(); // an observer's sdkSpans
  if (engineSpans) engine.exportSpans(engineSpans);
  const sessionFor = options.sessionFactory ?? meteredSessions(metrics, sessions as SessionBackend);
  const runtime = new Runtime({
    store,
    catalog: { agents: request.agents, workflows: request.workflows, schedules: request.schedules },
    agentEngine: engine,
    workflowEngine,
    sessionFor,
    settings,
    taps: [observers.tap],
  });
  metrics.watch({
    liveRuns: () => runtime.liveRuns,
    observers: observers.queues,
    runs: store,
    ...(isRunQueue(store) ? { queue: store } : {}),
  });
  if (request.background) runtime.startBackground({ wakeTimers: request.wakeTimers });
  return {
    metrics,
    runtime,
    store,
    ownsStore,
    sessions,
    engine,
    workflowEngine,
    checkpointer,
    observers,
    sessionFor,
  };
}
