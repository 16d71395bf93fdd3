/**
 * What an open deck holds, and `open()`'s work of starting it: the event store (from
 * `SERVICE_EVENTS` unless one was passed in), the session backend, the checkpointer, the
 * observers (each started in order; one that throws refuses the open, and what was opened is
 * closed again), the MCP servers, and the Runtime that plays every run; and the deck's metrics,
 * whose timing proxies stand in front of the event store, the sessions and the checkpointer.
 */
import type { AgentDefinition } from '../authoring/agent-definition.js';
import type { Schedule } from '../authoring/schedule.js';
import type { Workflow } from '../authoring/workflow.js';
import type { ConversationSession, SessionBackend } from '../core/sessions.js';
import type { EventStore } from '../core/store.js';
import type { LangGraphEngine } from '../engines/langgraph/index.js';
import type { McpConnections, OpenAIAgentsEngine } from '../engines/openai-agents/index.js';
import { resolveObservers } from '../observers/defaults.js';
import { DeckMetrics } from '../observers/metrics/deck-metrics.js';
import { ObserverSet } from '../observers/observer-set.js';
import { Runtime } from '../runtime/runtime.js';
import { runtimeSettingsFromEnv } from '../runtime/settings.js';
import { type OpenCheckpointer, openCheckpointer } from '../stores/checkpoints-url.js';
import { openEventStore } from '../stores/events-url.js';
import { openSessionBackend, sessionSettingsFromEnv } from '../stores/sessions-url.js';
import { eventStoreBackend, meteredSessions } from './metered-stores.js';
import type { DeckOptions } from './options.js';
import { scheduleParts } from './schedule-ops.js';
import { type ScheduleParts, ScheduleRunner } from './schedules.js';
import { startStaleSweep } from './stale-sweep.js';
import { TimerWaker } from './timers.js';
import { tickDue, type WorkflowOps } from './workflow-ops.js';

export interface OpenParts {
  runtime: Runtime;
  store: EventStore;
  ownsStore: boolean;
  sessions: SessionBackend | null;
  engine: OpenAIAgentsEngine;
  checkpointer: OpenCheckpointer;
  observers: ObserverSet;
  workflowOps: WorkflowOps;
  /** This open deck's metrics (`GET /metrics`). */
  metrics: DeckMetrics;
  /** Stops closing the runs of gone processes (stale-sweep.ts). */
  stopSweep(): Promise<void>;
  /** Stops waking sleeping threads and firing schedules; nothing when not started. */
  stopTimers(): Promise<void>;
  /** What the schedule operations need (schedule-ops.ts). */
  scheduleParts: ScheduleParts;
  sessionFor(sessionId: string): ConversationSession;
}

export interface OpenRequest {
  options: Omit<DeckOptions<unknown>, 'agents' | 'workflows'>;
  engine: OpenAIAgentsEngine;
  workflowEngine: LangGraphEngine;
  workflows: ReadonlyMap<string, Workflow>;
  agents: ReadonlyMap<string, AgentDefinition>;
  mcp: McpConnections | null;
  /** Wake sleeping threads at their time (timers.ts), and fire the schedules (schedules.ts). */
  wakeTimers: boolean;
  schedules: ReadonlyMap<string, Schedule>;
}

/** A wake-up another process (or tick) took first: the thread's claims refused this one. */
const RACED = /being resumed by another caller|is not due at|another tick woke it/;

export async function openParts(request: OpenRequest): Promise<OpenParts> {
  const { options, engine, workflowEngine, mcp } = request;
  const settings = runtimeSettingsFromEnv();
  const ownsStore = options.eventStore === undefined;
  const unmetered = options.eventStore ?? openEventStore(process.env.SERVICE_EVENTS);
  const metrics = new DeckMetrics();
  const store = metrics.meterEventStore(unmetered, eventStoreBackend(unmetered));
  let sessions: SessionBackend | null = null;
  let checkpointer: OpenCheckpointer | null = null;
  let observers: ObserverSet;
  try {
    if (!options.sessionFactory) {
      const { url, ...sessionOptions } = sessionSettingsFromEnv();
      sessions = openSessionBackend(url, sessionOptions);
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
  await mcp?.open();
  const engineSpans = observers.engineSpanSink(); // an observer's sdkSpans
  if (engineSpans) engine.exportSpans(engineSpans);
  const sessionFor = options.sessionFactory ?? meteredSessions(metrics, sessions as SessionBackend);
  // Its closures are called once the deck is open, when workflowOps exists.
  const timers = request.wakeTimers
    ? new TimerWaker({
        store,
        nextWakeup: () => workflowEngine.nextWakeup(),
        tick: async (now) => {
          const outcomes = await tickDue(workflowOps, now);
          const failed = outcomes.filter((outcome) => outcome.error !== null);
          for (const { workflow, threadId, error } of failed) {
            // Another process (or tick) got there first: nothing is wrong, nothing to say.
            if (RACED.test(error ?? '')) continue;
            console.error(`[agentdeck] could not wake ${workflow} thread '${threadId}': ${error}`);
          }
          return { woken: outcomes.length - failed.length, failed: failed.length };
        },
      })
    : null;
  const runtime = new Runtime({
    store,
    agentEngine: engine,
    workflowEngine,
    sessionFor,
    settings,
    taps: timers ? [observers.tap, timers.tap] : [observers.tap],
  });
  const workflowOps: WorkflowOps = {
    store,
    runtime,
    engine: workflowEngine,
    workflows: request.workflows,
    staleRunAfterSeconds: settings.staleRunAfterSeconds,
  };
  const stopSweep = startStaleSweep({
    store,
    settings,
    workflows: new Set(request.workflows.keys()),
    taps: [observers.tap],
  });
  metrics.watch({
    liveRuns: () => runtime.liveRuns,
    observers: observers.queues,
    runs: store,
  });
  const scheduling = scheduleParts({
    store,
    runtime,
    schedules: request.schedules,
    agents: request.agents,
    workflows: request.workflows,
  });
  const scheduler =
    request.wakeTimers && request.schedules.size > 0 ? new ScheduleRunner(scheduling) : null;
  timers?.start();
  scheduler?.start();
  return {
    metrics,
    stopSweep,
    stopTimers: async () => {
      await Promise.all([timers?.stop(), scheduler?.stop()]);
    },
    scheduleParts: scheduling,
    runtime,
    store,
    ownsStore,
    sessions,
    engine,
    checkpointer,
    observers,
    workflowOps,
    sessionFor,
  };
}
