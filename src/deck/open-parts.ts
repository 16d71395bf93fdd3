/**
 * What an open deck holds, and `open()`'s work of starting it: the event store (from
 * `SERVICE_EVENTS` unless one was passed in), the session backend, the checkpointer, the
 * observers (each started in order; one that throws refuses the open, and what was opened is
 * closed again), the MCP servers, and the Runtime that plays every run.
 */
import type { Workflow } from '../authoring/workflow.js';
import type { ConversationSession, SessionBackend } from '../core/sessions.js';
import type { EventStore } from '../core/store.js';
import type { LangGraphEngine } from '../engines/langgraph/index.js';
import type { McpConnections, OpenAIAgentsEngine } from '../engines/openai-agents/index.js';
import { resolveObservers } from '../observers/defaults.js';
import { ObserverSet } from '../observers/observer-set.js';
import { Runtime } from '../runtime/runtime.js';
import { runtimeSettingsFromEnv } from '../runtime/settings.js';
import { type OpenCheckpointer, openCheckpointer } from '../stores/checkpoints-url.js';
import { openEventStore } from '../stores/events-url.js';
import { openSessionBackend, sessionSettingsFromEnv } from '../stores/sessions-url.js';
import type { DeckOptions } from './options.js';
import { startStaleSweep } from './stale-sweep.js';
import type { WorkflowOps } from './workflow-ops.js';

export interface OpenParts {
  runtime: Runtime;
  store: EventStore;
  ownsStore: boolean;
  sessions: SessionBackend | null;
  engine: OpenAIAgentsEngine;
  checkpointer: OpenCheckpointer;
  observers: ObserverSet;
  workflowOps: WorkflowOps;
  /** Stops closing the runs of gone processes (stale-sweep.ts). */
  stopSweep(): Promise<void>;
  sessionFor(sessionId: string): ConversationSession;
}

export interface OpenRequest {
  options: Omit<DeckOptions<unknown>, 'agents' | 'workflows'>;
  engine: OpenAIAgentsEngine;
  workflowEngine: LangGraphEngine;
  workflows: ReadonlyMap<string, Workflow>;
  mcp: McpConnections | null;
}

export async function openParts(request: OpenRequest): Promise<OpenParts> {
  const { options, engine, workflowEngine, mcp } = request;
  const settings = runtimeSettingsFromEnv();
  const ownsStore = options.eventStore === undefined;
  const store = options.eventStore ?? openEventStore(process.env.SERVICE_EVENTS);
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
      store,
    );
    observers = await ObserverSet.start(resolveObservers(options.observers));
  } catch (error) {
    await checkpointer?.close();
    await sessions?.close();
    if (ownsStore) await store.close();
    throw error;
  }
  workflowEngine.attach(checkpointer.saver);
  // Never throws: a server that fails is reported and its agents run without its tools.
  await mcp?.open();
  const engineSpans = observers.engineSpanSink(); // an observer's sdkSpans
  if (engineSpans) engine.exportSpans(engineSpans);
  const sessionFor =
    options.sessionFactory ?? ((id: string) => (sessions as SessionBackend).sessionFor(id));
  const runtime = new Runtime({
    store,
    agentEngine: engine,
    workflowEngine,
    sessionFor,
    settings,
    taps: [observers.tap],
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
  return {
    stopSweep,
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
