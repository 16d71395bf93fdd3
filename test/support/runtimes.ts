import { StoreUnavailableError } from '../../src/core/errors.js';
/**
 * Test support for the runtime's own tests: a `Runtime` on the memory event store (the
 * reference backend) with the scripted engines, closed after each test, and small helpers to
 * play a run, ask for a pause, and read a run's log.
 */

import { Agent } from '../../src/authoring/agent.js';
import type { WorkflowDefinition } from '../../src/authoring/workflow-definition.js';
import type { ControlVerb } from '../../src/core/event-kinds.js';
import type { Event, EventDraft } from '../../src/core/events.js';
import type { ConversationSession, SessionItem } from '../../src/core/sessions.js';
import type { EventStore } from '../../src/core/store.js';
import { Runtime } from '../../src/runtime/runtime.js';
import type { RuntimeSettings } from '../../src/runtime/settings.js';
import { MemoryEventStore } from '../../src/stores/memory/index.js';
import { ScriptedAgentEngine, type ScriptedTurn } from '../../src/testing/scripted-agent-engine.js';
import {
  type ScriptedNode,
  ScriptedWorkflowEngine,
} from '../../src/testing/scripted-workflow-engine.js';
import { afterEachTest } from './after-each-test.js';

/** The agent the scripted engine plays (it reads only the name). */
export const agent = new Agent({ name: 'scripted' });

const open: Runtime[] = [];

afterEachTest(async () => {
  while (open.length > 0) await open.pop()?.close();
});

/** A conversation kept in a list (the engine fakes write to it as the real engine does). */
export class ListSession implements ConversationSession {
  readonly items: SessionItem[] = [];
  constructor(readonly id: string) {}
  async getSessionId() {
    return this.id;
  }
  async getItems(limit?: number) {
    return limit === undefined ? [...this.items] : this.items.slice(-limit);
  }
  async addItems(items: SessionItem[]) {
    this.items.push(...items);
  }
  async popItem() {
    return this.items.pop();
  }
  async clearSession() {
    this.items.length = 0;
  }
}

export interface TestRuntimeOptions {
  /** The agent engine's script: one entry per new turn. */
  turns?: ScriptedTurn[];
  /** The workflow engine's scripts, by workflow name. */
  workflows?: Record<string, readonly ScriptedNode[]>;
  /** The workflows the Runtime finds by name (resumes, `tick()`); the agent is always there. */
  catalog?: WorkflowDefinition[];
  settings?: Partial<RuntimeSettings>;
  store?: EventStore;
}

/** A Runtime on a fresh memory store with the scripted engines; closed after the test. */
export function testRuntime(options: TestRuntimeOptions = {}) {
  const store = options.store ?? new MemoryEventStore();
  const agentEngine = new ScriptedAgentEngine(options.turns ?? []);
  const workflowEngine = new ScriptedWorkflowEngine(options.workflows ?? {});
  const sessions = new Map<string, ListSession>();
  const sessionFor = (id: string) => {
    const session = sessions.get(id) ?? new ListSession(id);
    sessions.set(id, session);
    return session;
  };
  const runtime = new Runtime({
    store,
    agentEngine,
    workflowEngine,
    sessionFor,
    catalog: {
      agents: new Map([[agent.name, agent]]),
      workflows: new Map((options.catalog ?? []).map((w) => [w.name, w])),
      schedules: new Map(),
    },
    settings: {
      staleRunAfterSeconds: 3600,
      retentionDays: null,
      recordModelCalls: 'on',
      heartbeatSeconds: 10,
      controlPollMs: 50,
      queueConcurrency: 0,
      queuePollMs: 500,
      ...options.settings,
    },
  });
  open.push(runtime);
  return { runtime, store, agentEngine, workflowEngine, sessions };
}

/** Play a run to its end: its events and the generator's return value. */
export async function play<R>(
  run: AsyncGenerator<Event, R, undefined>,
  onEvent?: (event: Event) => Promise<void> | void,
): Promise<{ events: Event[]; outcome: R }> {
  const events: Event[] = [];
  for (;;) {
    const step = await run.next();
    if (step.done) return { events, outcome: step.value };
    events.push(step.value);
    await onEvent?.(step.value);
  }
}

/** Ask for a pause, cancel or resume of a run, as the deck does. */
export function request(
  runtime: Runtime,
  runId: string,
  verb: ControlVerb,
  reason: string | null = null,
) {
  return runtime.requestControl(runId, verb, reason);
}

/** A promise a scripted step waits on, and the function that lets it go on. */
export function gate(): { wait: Promise<void>; open: () => void } {
  let open = () => {};
  const wait = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { wait, open };
}

export const kinds = (events: readonly Event[]) => events.map((e) => e.kind);

const TERMINAL = new Set(['run.completed', 'run.failed', 'run.cancelled']);

/** The terminal events of a run's stored log. */
export async function terminals(store: EventStore, runId: string): Promise<Event[]> {
  return (await store.read(runId)).filter((e) => TERMINAL.has(e.kind));
}

/** A scripted step that reports one model call's usage (`inputTokens` in, one out). */
export const usage = (inputTokens: number): { draft: EventDraft } => ({
  draft: {
    kind: 'usage.reported',
    payload: {
      model: 'scripted',
      requests: 1,
      inputTokens,
      outputTokens: 1,
      totalTokens: inputTokens + 1,
      usd: null,
    },
  },
});

/**
 * A store that takes a run's claim but not its first event (as when Postgres drops the
 * connection after the claim's commit), and then refuses every write: a run that cannot begin.
 */
export class StoreDownAfterClaim extends MemoryEventStore {
  override async claimAndAppend(...args: Parameters<MemoryEventStore['claimAndAppend']>) {
    return { claim: await this.claim(args[0]), events: null };
  }
  override async append(): Promise<never> {
    throw new StoreUnavailableError('postgres', 'Postgres at postgres://db is unreachable');
  }
}
