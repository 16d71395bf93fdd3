/**
 * The workflow engine on `@langchain/langgraph`. `build()` calls each workflow's `graph()`
 * and compiles it once to catch a malformed graph early; `attach()` (at open) compiles it
 * again with its checkpointer: the deck's durable checkpointer for a durable workflow, an
 * in-process MemorySaver otherwise. A segment is one `stream()` of the compiled graph, in
 * `updates`, `custom` and `values` modes, turned into event drafts as it runs.
 */
import { type BaseCheckpointSaver, Command } from '@langchain/langgraph';
import {
  DEFAULT_DURABILITY,
  type WorkflowDefinition,
} from '../../authoring/workflow-definition.js';
import { ConfigError, ConflictError } from '../../core/errors.js';
import type { EventDraft } from '../../core/events.js';
import {
  type DueThread,
  markUntouched,
  type OpenPause,
  type ResumePoint,
  type SegmentEnd,
  type SegmentRequest,
  type ThreadCheckpoint,
  type WorkflowEngine,
  type WorkflowState,
} from '../../runtime/workflow-engine.js';
import { checkpointsOf, copyCheckpoint } from './checkpoints.js';
import { dueThreads, nextWakeup } from './due.js';
import {
  type GraphIdentity,
  graphIdentityOf,
  recordedFingerprint,
  stampingSaver,
} from './fingerprint.js';
import {
  type CompiledGraph,
  compileGraph,
  type GraphTask,
  graphBuilderOf,
  type Interrupt,
  openPausesOf,
  orderPauses,
  pausesOfTasks,
  toPause,
} from './graph.js';
import {
  checkGraphChange,
  pendingNodesOf,
  type RawCheckpoint,
  type ThreadSnapshot,
} from './graph-change.js';
import { LocalThreads } from './local-threads.js';
import { type NodeSite, nodeSitesOf } from './node-sites.js';
import { resumeValue } from './nodes.js';
import { storedThreadId } from './threads.js';

/** LangGraph's key for the interrupts of a step in `updates` and `values` chunks. */
const INTERRUPT = '__interrupt__';

/** A thread's state as its checkpointer holds it (`threadState`). */
export interface ThreadState {
  values: unknown;
  /** The nodes that run when the thread goes on. */
  next: string[];
  /** Its open questions and timers. */
  waiting: OpenPause[];
  /** When its latest checkpoint was written. */
  updatedAt: string;
}

export class LangGraphEngine implements WorkflowEngine {
  readonly #definitions = new Map<string, WorkflowDefinition>();
  readonly #compiled = new Map<string, CompiledGraph>();
  readonly #nodeSites = new Map<string, NodeSite[]>();
  /** Each workflow's graph fingerprint, stamped on its checkpoints (fingerprint.ts). */
  readonly #identities = new Map<string, GraphIdentity>();
  /** Threads of non-durable workflows, in memory and bounded (local-threads.ts). */
  readonly #local: LocalThreads;
  #durable: BaseCheckpointSaver | null = null;

  constructor(options: { maxLocalThreads?: number } = {}) {
    this.#local = new LocalThreads(options.maxLocalThreads);
  }

  compile(workflow: WorkflowDefinition): void {
    if (this.#definitions.has(workflow.name)) return;
    const builder = graphBuilderOf(workflow);
    compileGraph(workflow, undefined, builder);
    this.#definitions.set(workflow.name, workflow);
    this.#nodeSites.set(workflow.name, nodeSitesOf(builder));
    this.#identities.set(workflow.name, graphIdentityOf(builder, workflow.version));
  }

  /** The context injection sites among a compiled workflow's nodes. */
  nodeSites(workflowName: string): readonly NodeSite[] {
    return this.#nodeSites.get(workflowName) ?? [];
  }

  /** Compile every workflow with its checkpointer; `durable` serves the durable ones. */
  attach(durable: BaseCheckpointSaver): void {
    this.#durable = durable;
    for (const workflow of this.#definitions.values()) {
      const saver = workflow.durable ? durable : this.#local.saver;
      const stamped = stampingSaver(saver, this.#identity(workflow.name));
      this.#compiled.set(workflow.name, compileGraph(workflow, stamped));
    }
  }

  async *playSegment(request: SegmentRequest): AsyncGenerator<EventDraft, SegmentEnd, undefined> {
    const { workflow, threadId, start } = request;
    const graph = this.#graph(workflow.name);
    const update = 'input' in start ? undefined : start.update;
    const input =
      'input' in start
        ? start.input
        : 'continue' in start
          ? update
            ? new Command({ update })
            : null
          : new Command({
              resume: Object.fromEntries(
                Object.entries(start.resume).map(([id, value]) => [id, resumeValue(value)]),
              ),
              ...(update ? { update } : {}),
            });
    const stored = storedThreadId(workflow.name, threadId);
    if (!workflow.durable) this.#local.begin(workflow.name, stored);
    try {
      return yield* this.#play(request, graph, input, stored);
    } finally {
      if (!workflow.durable) {
        await this.#local.end(stored, async (name, id) => {
          const compiled = this.#compiled.get(name);
          return compiled ? (await openPausesOf(compiled, id)).length > 0 : false;
        });
      }
    }
  }

  async *#play(
    request: SegmentRequest,
    graph: CompiledGraph,
    input: unknown,
    stored: string,
  ): AsyncGenerator<EventDraft, SegmentEnd, undefined> {
    const { workflow, threadId, scope, settings } = request;
    const durability = workflow.durability ?? DEFAULT_DURABILITY;
    let chunks = 0;
    const stream = await graph
      .stream(input as never, {
        configurable: { thread_id: stored },
        durability,
        ...workflow.runSettings,
        ...settings,
        context: scope,
        signal: scope.signal,
        streamMode: ['updates', 'custom', 'values'],
      })
      .catch((error: unknown) => Promise.reject(markUntouched(error)));
    const interrupts: Interrupt[] = [];
    let state: WorkflowState = {};
    // Read in this loop, not through a generator of its own: each layer costs every chunk.
    const iterator = stream[Symbol.asyncIterator]();
    let finished = false;
    try {
      for (;;) {
        let step: IteratorResult<unknown>;
        try {
          step = await iterator.next();
        } catch (error) {
          finished = true;
          // A stream that failed before its first step's output (the checkpoint read failed),
          // or before its end when checkpoints are written only at the end, left the thread
          // as it was.
          throw chunks === 0 || durability === 'exit' ? markUntouched(error) : error;
        }
        if (step.done) {
          finished = true;
          break;
        }
        chunks += 1;
        const [mode, data] = step.value as [string, unknown];
        if (mode === 'custom') {
          yield { kind: 'custom', payload: { data: data ?? null } };
        } else if (mode === 'updates') {
          for (const [node, delta] of Object.entries(data as Record<string, unknown>)) {
            if (node === INTERRUPT) interrupts.push(...(delta as Interrupt[]));
            else yield { kind: 'node.updated', payload: { node, delta: delta ?? null } };
          }
        } else if (mode === 'values' && !isInterruptChunk(data)) {
          state = data as WorkflowState;
        }
      }
    } finally {
      // Stopped early (the consumer left): stop the graph's stream, as `for await` would.
      if (!finished) await iterator.return?.();
    }
    if (interrupts.length === 0) return { type: 'completed', state };
    // A segment started from an input stops at its first interrupting step: every interrupt
    // the stream reported is open. After an answer, the checkpointer knows which stay open (a
    // sibling answered earlier in a fan-out is done); reading its state costs a checkpoint
    // read and LangGraph's state rebuild, so it is asked only then.
    const open =
      'input' in request.start
        ? orderPauses(interrupts.map(toPause))
        : await this.openPauses(workflow, threadId);
    if (open.length > 0) return segmentEnd(workflow, open, open);
    return segmentEnd(workflow, orderPauses(interrupts.map(toPause)));
  }

  /**
   * A thread's current state, read from its checkpointer (read-only): its values, the nodes
   * that run next, and what it waits for; `null` when the thread has no checkpoint.
   */
  async threadState(workflow: WorkflowDefinition, threadId: string): Promise<ThreadState | null> {
    const stored = storedThreadId(workflow.name, threadId);
    const graph = this.#graph(workflow.name);
    const snapshot = (await graph.getState({ configurable: { thread_id: stored } })) as {
      values: unknown;
      next?: readonly string[];
      createdAt?: string;
    };
    if (snapshot.createdAt === undefined) return null;
    return {
      values: snapshot.values ?? {},
      next: [...(snapshot.next ?? [])],
      waiting: await openPausesOf(graph, stored),
      updatedAt: snapshot.createdAt,
    };
  }

  async endedState(
    workflow: WorkflowDefinition,
    threadId: string,
    since: string,
  ): Promise<WorkflowState | null> {
    const state = await this.threadState(workflow, threadId);
    if (!state || state.next.length > 0 || state.waiting.length > 0) return null;
    return Date.parse(state.updatedAt) >= Date.parse(since)
      ? (state.values as WorkflowState)
      : null;
  }

  async canContinue(workflow: WorkflowDefinition, threadId: string): Promise<boolean> {
    const state = await this.threadState(workflow, threadId);
    return state !== null && state.next.length > 0;
  }

  async openPauses(workflow: WorkflowDefinition, threadId: string): Promise<OpenPause[]> {
    return openPausesOf(this.#graph(workflow.name), storedThreadId(workflow.name, threadId));
  }

  async resumePoint(workflow: WorkflowDefinition, threadId: string): Promise<ResumePoint> {
    const stored = storedThreadId(workflow.name, threadId);
    const snapshot = (await this.#graph(workflow.name).getState({
      configurable: { thread_id: stored },
    })) as ThreadSnapshot & { tasks: GraphTask[]; createdAt?: string };
    const open = pausesOfTasks(snapshot.tasks);
    if (snapshot.createdAt === undefined) return { open, change: null, blocked: null };
    const pending = async () =>
      pendingNodesOf((await this.#tuple(workflow, stored))?.checkpoint as RawCheckpoint);
    const identity = this.#identity(workflow.name);
    return { open, ...(await checkGraphChange(workflow, identity, snapshot, pending)) };
  }

  /** A thread's latest checkpoint as its saver holds it (no state rebuilt). */
  #tuple(workflow: WorkflowDefinition, stored: string) {
    const saver = workflow.durable ? this.#durable : this.#local.saver;
    return saver?.getTuple({ configurable: { thread_id: stored, checkpoint_ns: '' } });
  }

  async blockedReason(workflow: WorkflowDefinition, threadId: string): Promise<string | null> {
    const stored = storedThreadId(workflow.name, threadId);
    // The latest checkpoint's metadata alone first: a thread of the current graph is not read.
    const tuple = await this.#tuple(workflow, stored);
    if (!tuple) return null;
    const recorded = recordedFingerprint(tuple.metadata);
    if (recorded?.hash === this.#identity(workflow.name).hash) return null;
    return (await this.resumePoint(workflow, threadId)).blocked;
  }

  async checkpoints(workflow: WorkflowDefinition, threadId: string): Promise<ThreadCheckpoint[]> {
    this.#durableSaver(workflow);
    return checkpointsOf(this.#graph(workflow.name), storedThreadId(workflow.name, threadId));
  }

  async copyCheckpoint(
    workflow: WorkflowDefinition,
    threadId: string,
    checkpointId: string,
    toThreadId: string,
  ): Promise<ThreadCheckpoint> {
    const saver = this.#durableSaver(workflow);
    const from = { stored: storedThreadId(workflow.name, threadId), threadId };
    const to = storedThreadId(workflow.name, toThreadId);
    return copyCheckpoint(this.#graph(workflow.name), saver, from, checkpointId, to);
  }

  /** The checkpointer of a durable workflow; a non-durable one keeps no history to fork. */
  #durableSaver(workflow: WorkflowDefinition): BaseCheckpointSaver {
    if (!workflow.durable || !this.#durable) {
      throw new ConflictError(
        `workflow '${workflow.name}' is not durable: its threads keep no checkpoints to list or fork from; declare it with durable: true`,
      );
    }
    return this.#durable;
  }

  async dueThreads(now: Date): Promise<DueThread[]> {
    if (!this.#durable) return [];
    const durable = new Set(
      [...this.#definitions.values()].filter((w) => w.durable).map((w) => w.name),
    );
    if (durable.size === 0) return [];
    return dueThreads(this.#durable, durable, now);
  }

  async nextWakeup(): Promise<string | null> {
    if (!this.#durable) return null;
    const durable = new Set(
      [...this.#definitions.values()].filter((w) => w.durable).map((w) => w.name),
    );
    if (durable.size === 0) return null;
    return nextWakeup(this.#durable, durable);
  }

  async deleteThread(workflow: WorkflowDefinition, threadId: string): Promise<void> {
    const stored = storedThreadId(workflow.name, threadId);
    if (workflow.durable) await this.#durable?.deleteThread(stored);
    else await this.#local.delete(stored);
  }

  /** How many threads of non-durable workflows this engine holds in memory now. */
  localThreadCount(): number {
    return this.#local.size;
  }

  async close(): Promise<void> {
    this.#compiled.clear();
    this.#durable = null;
  }

  #identity(name: string): GraphIdentity {
    const identity = this.#identities.get(name);
    if (!identity) throw new ConfigError(`workflow '${name}' is not compiled`);
    return identity;
  }

  #graph(name: string): CompiledGraph {
    const graph = this.#compiled.get(name);
    if (!graph) {
      throw new ConfigError(
        `workflow '${name}' is not compiled with a checkpointer; open the deck before running it`,
      );
    }
    return graph;
  }
}

function isInterruptChunk(data: unknown): boolean {
  return typeof data === 'object' && data !== null && INTERRUPT in data;
}

/** `known`: the thread's open pauses, when they are exactly what `openPauses` would read. */
function segmentEnd(
  workflow: WorkflowDefinition,
  pauses: readonly OpenPause[],
  known?: readonly OpenPause[],
): SegmentEnd {
  const open = known ? { open: known } : {};
  const question = pauses.find((p) => p.wakeAt === null);
  if (question) {
    const shape = question.answerSchema ? { answerSchema: question.answerSchema } : {};
    return { type: 'interrupted', payload: question.payload, ...shape, ...open };
  }
  const wakeAt = pauses
    .map((p) => p.wakeAt as string)
    .sort()
    .at(0) as string;
  if (!workflow.durable) {
    throw new ConfigError(
      `workflow '${workflow.name}' called sleepUntil('${wakeAt}') but is not durable: a timer ` +
        `must survive the process; declare it with durable: true (and run it with a sessionId)`,
    );
  }
  return { type: 'sleeping', wakeAt, ...open };
}
