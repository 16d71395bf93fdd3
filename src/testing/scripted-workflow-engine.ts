/**
 * A `WorkflowEngine` that plays workflows from a script instead of LangGraph, so the runtime
 * (threads' claims, interrupts, timers, pauses and endings) can be tested without a graph.
 * A scripted workflow is a list of nodes run in order; its threads live in this object's
 * memory (state, the next node, open pauses), which `openPauses`, `dueThreads` and
 * `nextWakeup` read (and `deleteThread` forgets) as the real engine does its checkpointer. Like LangGraph, a node that
 * asks a person or sleeps is run again from its start once resumed, and each node is a safe
 * point: asked to pause, the segment stops before the node runs. Internal: not exported from
 * `agentdeck/testing`.
 */
import type { GraphBuilder, WorkflowDefinition } from '../authoring/workflow-definition.js';
import { ConfigError, ConflictError, NotFoundError } from '../core/errors.js';
import type { EventDraft } from '../core/events.js';
import { timerPayload } from '../core/wakeups.js';
import type {
  DueThread,
  OpenPause,
  SegmentEnd,
  SegmentRequest,
  ThreadCheckpoint,
  WorkflowEngine,
  WorkflowState,
} from '../runtime/workflow-engine.js';
import { abortable } from './scripted-agent-engine.js';

/** One node of a scripted workflow; what it does, in this order. */
export interface ScriptedNode {
  /** The node's name, in its `node.updated`. */
  node: string;
  /** Wait for this promise first (the run's signal cuts it short): the test decides when. */
  until?: Promise<unknown>;
  /** Never finish on its own: wait until the run's signal aborts. */
  hang?: boolean;
  /** Throw this error (a string becomes an `Error`). */
  fail?: unknown;
  /**
   * Ask a person: the segment ends `interrupted` with this payload. Answered, the node runs
   * again and writes the answer to `state[answerTo]`.
   */
  interrupt?: unknown;
  /** Where the answer goes. @default the node's name */
  answerTo?: string;
  /** Sleep until this time (ISO 8601 UTC); a durable workflow only. Woken, the node runs again. */
  sleepUntil?: string;
  /** A `custom` write, before the update. */
  custom?: unknown;
  /** What the node writes to the state, recorded as its `node.updated`. @default {} */
  update?: WorkflowState;
  /** What the node writes, worked out from the state it is given (after `update`). */
  updateFrom?: (state: WorkflowState) => WorkflowState;
}

/** A node stopped before it ran, for a pause request (the real engine's NodeBoundaryPause). */
export class ScriptedNodePause extends Error {
  override name = 'ScriptedNodePause';
}

interface Thread {
  state: WorkflowState;
  /** The next node to run; the script's length once completed. */
  next: number;
  open: OpenPause[];
  /** When its last node ran (ISO 8601), once the script completed. */
  endedAt?: string;
  /** Resume values received for pauses of the node at `next`, by pause id. */
  answers: Map<string, unknown>;
  /** Its checkpoints, oldest first: one before its first node, one after each node (#41). */
  history: ThreadCheckpoint[];
}

/** A workflow definition for the scripted engine (no graph: the script is the engine's). */
export function scriptedWorkflow(
  name: string,
  options: { durable?: boolean } = {},
): WorkflowDefinition {
  return {
    kind: 'agentdeck.workflow',
    name,
    state: null,
    durable: options.durable ?? false,
    graph: (): GraphBuilder => {
      throw new Error(`scripted workflow '${name}' has no graph; its script is the engine's`);
    },
    runSettings: {},
  };
}

export class ScriptedWorkflowEngine implements WorkflowEngine {
  /** Every segment request, in order. */
  readonly requests: SegmentRequest[] = [];
  readonly #scripts: ReadonlyMap<string, readonly ScriptedNode[]>;
  readonly #definitions = new Map<string, WorkflowDefinition>();
  readonly #threads = new Map<string, Thread>();
  #closed = false;
  /** Checkpoints made so far, for their ids. */
  #checkpoints = 0;

  constructor(scripts: Record<string, readonly ScriptedNode[]>) {
    this.#scripts = new Map(Object.entries(scripts));
  }

  get closed(): boolean {
    return this.#closed;
  }

  compile(workflow: WorkflowDefinition): void {
    this.#script(workflow);
    this.#definitions.set(workflow.name, workflow);
  }

  /** A thread's state as the engine holds it (a copy), or `undefined`. */
  stateOf(workflow: string, threadId: string): WorkflowState | undefined {
    const thread = this.#threads.get(threadKey(workflow, threadId));
    return thread ? { ...thread.state } : undefined;
  }

  async *playSegment(request: SegmentRequest): AsyncGenerator<EventDraft, SegmentEnd, undefined> {
    this.requests.push(request);
    const { workflow, threadId, start, scope } = request;
    const nodes = this.#script(workflow);
    this.#definitions.set(workflow.name, workflow);
    const key = threadKey(workflow.name, threadId);
    let thread = this.#threads.get(key);
    if ('input' in start) {
      thread = {
        state: { ...thread?.state, ...start.input },
        next: 0,
        open: [],
        answers: new Map(),
        history: thread?.history ?? [],
      };
      this.#threads.set(key, thread);
      this.#checkpoint(thread, nodes, []);
    } else if (!thread || thread.next >= nodes.length) {
      throw new Error(
        `ScriptedWorkflowEngine: thread '${threadId}' of '${workflow.name}' has nothing to continue`,
      );
    } else if ('continue' in start) {
      Object.assign(thread.state, start.update);
    } else if ('resume' in start) {
      Object.assign(thread.state, start.update);
      for (const [id, value] of Object.entries(start.resume)) {
        if (!thread.open.some((pause) => pause.id === id)) continue;
        thread.answers.set(id, value);
        thread.open = thread.open.filter((pause) => pause.id !== id);
      }
    }
    while (thread.next < nodes.length) {
      scope.signal.throwIfAborted();
      const index = thread.next;
      const node = nodes[index] as ScriptedNode;
      if (scope.pauseRequested()) throw new ScriptedNodePause('the run pauses before this node');
      if (node.until) await abortable(node.until, scope.signal);
      if (node.hang) await abortable(new Promise(() => {}), scope.signal);
      if (node.fail !== undefined) {
        throw node.fail instanceof Error ? node.fail : new Error(String(node.fail));
      }
      const update: WorkflowState = {
        ...node.update,
        ...node.updateFrom?.({ ...thread.state, ...node.update }),
      };
      if (node.interrupt !== undefined) {
        const id = `${key}#${index}:ask`;
        if (!thread.answers.has(id)) {
          thread.open = [{ id, payload: node.interrupt, wakeAt: null }];
          return { type: 'interrupted', payload: node.interrupt };
        }
        update[node.answerTo ?? node.node] = thread.answers.get(id);
      }
      if (node.sleepUntil !== undefined) {
        const id = `${key}#${index}:sleep`;
        if (!thread.answers.has(id)) {
          if (!workflow.durable) {
            throw new ConfigError(
              `workflow '${workflow.name}' called sleepUntil('${node.sleepUntil}') but is not durable`,
            );
          }
          const wakeAt = new Date(node.sleepUntil).toISOString();
          thread.open = [{ id, payload: timerPayload(wakeAt), wakeAt }];
          return { type: 'sleeping', wakeAt };
        }
      }
      if (node.custom !== undefined) yield { kind: 'custom', payload: { data: node.custom } };
      Object.assign(thread.state, update);
      thread.next = index + 1;
      thread.answers.clear();
      this.#checkpoint(thread, nodes, [node.node]);
      yield { kind: 'node.updated', payload: { node: node.node, delta: update } };
    }
    thread.endedAt = new Date().toISOString();
    return { type: 'completed', state: { ...thread.state } };
  }

  async endedState(
    workflow: WorkflowDefinition,
    threadId: string,
    since: string,
  ): Promise<WorkflowState | null> {
    const thread = this.#threads.get(threadKey(workflow.name, threadId));
    if (!thread?.endedAt || thread.open.length > 0) return null;
    return Date.parse(thread.endedAt) >= Date.parse(since) ? { ...thread.state } : null;
  }

  async openPauses(workflow: WorkflowDefinition, threadId: string): Promise<OpenPause[]> {
    const thread = this.#threads.get(threadKey(workflow.name, threadId));
    return thread ? thread.open.map((pause) => ({ ...pause })) : [];
  }

  async checkpoints(workflow: WorkflowDefinition, threadId: string): Promise<ThreadCheckpoint[]> {
    this.#mustBeDurable(workflow);
    const thread = this.#threads.get(threadKey(workflow.name, threadId));
    return thread ? thread.history.map(copyOf).reverse() : [];
  }

  async copyCheckpoint(
    workflow: WorkflowDefinition,
    threadId: string,
    checkpointId: string,
    toThreadId: string,
  ): Promise<ThreadCheckpoint> {
    this.#mustBeDurable(workflow);
    const nodes = this.#script(workflow);
    const source = this.#threads.get(threadKey(workflow.name, threadId));
    const chosen = source?.history.find((checkpoint) => checkpoint.id === checkpointId);
    if (!chosen) {
      throw new NotFoundError(`thread '${threadId}' has no checkpoint '${checkpointId}'`);
    }
    const key = threadKey(workflow.name, toThreadId);
    if (this.#threads.has(key)) throw new ConflictError(`thread '${toThreadId}' exists already`);
    const next =
      chosen.next.length === 0 ? nodes.length : nodes.findIndex((n) => n.node === chosen.next[0]);
    this.#threads.set(key, {
      state: { ...chosen.values },
      next,
      open: [],
      answers: new Map(),
      history: [copyOf(chosen)],
    });
    return copyOf(chosen);
  }

  async dueThreads(now: Date): Promise<DueThread[]> {
    return this.#timers()
      .filter((timer) => Date.parse(timer.wakeAt) <= now.getTime())
      .sort((a, b) => Date.parse(a.wakeAt) - Date.parse(b.wakeAt));
  }

  async nextWakeup(): Promise<string | null> {
    const [first] = this.#timers().sort((a, b) => Date.parse(a.wakeAt) - Date.parse(b.wakeAt));
    return first?.wakeAt ?? null;
  }

  async deleteThread(workflow: WorkflowDefinition, threadId: string): Promise<void> {
    this.#threads.delete(threadKey(workflow.name, threadId));
  }

  async close(): Promise<void> {
    this.#closed = true;
  }

  /** Record the thread's state as a checkpoint, written by `writtenBy`. */
  #checkpoint(thread: Thread, nodes: readonly ScriptedNode[], writtenBy: string[]): void {
    const next = nodes[thread.next];
    thread.history.push({
      id: `checkpoint-${++this.#checkpoints}`,
      step: thread.history.length,
      writtenBy,
      next: next ? [next.node] : [],
      createdAt: new Date().toISOString(),
      values: structuredClone(thread.state),
    });
  }

  #mustBeDurable(workflow: WorkflowDefinition): void {
    if (!workflow.durable) {
      throw new ConflictError(
        `workflow '${workflow.name}' is not durable: its threads keep no checkpoints to list or fork from`,
      );
    }
  }

  /** The open timers of durable workflows' threads. */
  #timers(): DueThread[] {
    const timers: DueThread[] = [];
    for (const [key, thread] of this.#threads) {
      const { workflow, threadId } = parseThreadKey(key);
      if (!this.#definitions.get(workflow)?.durable) continue;
      for (const pause of thread.open) {
        if (pause.wakeAt !== null) timers.push({ workflow, threadId, wakeAt: pause.wakeAt });
      }
    }
    return timers;
  }

  #script(workflow: WorkflowDefinition): readonly ScriptedNode[] {
    const nodes = this.#scripts.get(workflow.name);
    if (!nodes) {
      throw new ConfigError(`ScriptedWorkflowEngine: no script for workflow '${workflow.name}'`);
    }
    return nodes;
  }
}

function copyOf(checkpoint: ThreadCheckpoint): ThreadCheckpoint {
  return {
    ...checkpoint,
    writtenBy: [...checkpoint.writtenBy],
    next: [...checkpoint.next],
    values: structuredClone(checkpoint.values),
  };
}

function threadKey(workflow: string, threadId: string): string {
  return `${encodeURIComponent(workflow)}:${threadId}`;
}

function parseThreadKey(key: string): { workflow: string; threadId: string } {
  const at = key.indexOf(':');
  return { workflow: decodeURIComponent(key.slice(0, at)), threadId: key.slice(at + 1) };
}
