/**
 * What the Runtime is built from (`RuntimeDeps`, its catalog), and the parts it hands to the
 * work it delegates: timers (timers.ts), retention (retention.ts), and dropping the thread of
 * a run that ended at rest. Kept apart so runtime.ts stays the story of playing a run.
 */
import type { AgentDefinition } from '../authoring/agent-definition.js';
import type { Schedule } from '../authoring/schedule.js';
import type { WorkflowDefinition } from '../authoring/workflow-definition.js';
import type { ConversationSession } from '../core/sessions.js';
import type { EventStore } from '../core/store.js';
import type { AgentEngine } from './agent-engine.js';
import type { EventTap } from './recorder.js';
import type { RetentionDeps } from './retention.js';
import type { RunPlayer } from './run-player.js';
import type { RuntimeSettings } from './settings.js';
import type { TimerParts } from './timers.js';
import type { WorkflowEngine } from './workflow-engine.js';
import { threadEndsWithRun } from './workflow-run.js';

/** The catalog the Runtime plays from when no caller hands it a definition: resumes, timers, schedules. */
export interface RuntimeCatalog {
  agents: ReadonlyMap<string, AgentDefinition>;
  workflows: ReadonlyMap<string, WorkflowDefinition>;
  schedules: ReadonlyMap<string, Schedule>;
}

export interface RuntimeDeps {
  store: EventStore;
  /** @default an empty catalog: the Runtime plays only what it is handed. */
  catalog?: RuntimeCatalog;
  agentEngine: AgentEngine;
  workflowEngine: WorkflowEngine;
  sessionFor(sessionId: string): ConversationSession;
  settings: RuntimeSettings;
  taps?: readonly EventTap[];
}

export function timerParts(
  deps: RuntimeDeps,
  catalog: RuntimeCatalog,
  runtime: Pick<RunPlayer, 'resumeWorkflow'>,
): TimerParts {
  return {
    store: deps.store,
    runtime,
    engine: deps.workflowEngine,
    workflows: catalog.workflows,
    staleRunAfterSeconds: deps.settings.staleRunAfterSeconds,
  };
}

export function retentionDeps(deps: RuntimeDeps, catalog: RuntimeCatalog): RetentionDeps {
  const { agents, workflows } = catalog;
  const staleAfterMs = deps.settings.staleRunAfterSeconds * 1000;
  return { store: deps.store, engine: deps.workflowEngine, agents, workflows, staleAfterMs };
}

/** A waiting run cancelled at rest ended without a segment: drop a thread that ends with it. */
export async function dropEndedThread(
  deps: RuntimeDeps,
  catalog: RuntimeCatalog,
  runId: string,
): Promise<void> {
  const run = await deps.store.getRun(runId);
  const workflow = run && catalog.workflows.get(run.origin);
  if (run?.status === 'cancelled' && workflow && threadEndsWithRun(workflow, run.sessionId)) {
    await deps.workflowEngine.deleteThread(workflow, runId);
  }
}
