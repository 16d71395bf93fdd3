/**
 * The workflow engine on `@langchain/langgraph`. `build()` calls each workflow's `graph()`
 * and compiles it once to catch a malformed graph early; `attach()` (at open) compiles it
 * again with its checkpointer: the deck's durable checkpointer for a durable workflow, an
 * in-process MemorySaver otherwise. A segment is one `stream()` of the compiled graph, in
 * `updates`, `custom` and `values` modes, turned into event drafts as it runs.
 */
import { type BaseCheckpointSaver, Command, MemorySaver } from '@langchain/langgraph';
import type { WorkflowDefinition } from '../../authoring/workflow.js';
import { ConfigError } from '../../core/errors.js';
import type { EventDraft } from '../../core/events.js';
import { wakeTimeOf } from '../../core/wakeups.js';
import type {
  DueThread,
  SegmentEnd,
  SegmentRequest,
  WorkflowEngine,
  WorkflowState,
} from '../../runtime/workflow-engine.js';
import { dueThreads } from './due.js';
import { type CompiledGraph, compileGraph } from './graph.js';
import { resumeValue } from './nodes.js';
import { storedThreadId } from './threads.js';

/** LangGraph's key for the interrupts of a step in `updates` and `values` chunks. */
const INTERRUPT = '__interrupt__';

interface Interrupt {
  id?: string;
  value: unknown;
}

export class LangGraphEngine implements WorkflowEngine {
  readonly #definitions = new Map<string, WorkflowDefinition>();
  readonly #compiled = new Map<string, CompiledGraph>();
  /** Threads of non-durable workflows: they live as long as the deck. */
  readonly #local = new MemorySaver();
  #durable: BaseCheckpointSaver | null = null;

  compile(workflow: WorkflowDefinition): void {
    if (this.#definitions.has(workflow.name)) return;
    compileGraph(workflow, undefined);
    this.#definitions.set(workflow.name, workflow);
  }

  /** Compile every workflow with its checkpointer; `durable` serves the durable ones. */
  attach(durable: BaseCheckpointSaver): void {
    this.#durable = durable;
    for (const workflow of this.#definitions.values()) {
      const saver = workflow.durable ? durable : this.#local;
      this.#compiled.set(workflow.name, compileGraph(workflow, saver));
    }
  }

  async *playSegment(request: SegmentRequest): AsyncGenerator<EventDraft, SegmentEnd, undefined> {
    const { workflow, threadId, start, scope } = request;
    const graph = this.#graph(workflow.name);
    const input =
      'input' in start ? start.input : new Command({ resume: resumeValue(start.resume) });
    const stream = await graph.stream(input, {
      configurable: { thread_id: storedThreadId(workflow.name, threadId) },
      context: scope,
      signal: scope.signal,
      streamMode: ['updates', 'custom', 'values'],
    });
    const interrupts: Interrupt[] = [];
    let state: WorkflowState = {};
    for await (const chunk of stream) {
      const [mode, data] = chunk as [string, unknown];
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
    return segmentEnd(workflow, interrupts, state);
  }

  async isPaused(workflow: WorkflowDefinition, threadId: string): Promise<boolean> {
    const state = await this.#graph(workflow.name).getState({
      configurable: { thread_id: storedThreadId(workflow.name, threadId) },
    });
    return state.tasks.some((task) => task.interrupts.length > 0);
  }

  async dueThreads(now: Date): Promise<DueThread[]> {
    if (!this.#durable) return [];
    const durable = new Set(
      [...this.#definitions.values()].filter((w) => w.durable).map((w) => w.name),
    );
    if (durable.size === 0) return [];
    return dueThreads(this.#durable, durable, now);
  }

  async close(): Promise<void> {
    this.#compiled.clear();
    this.#durable = null;
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

function segmentEnd(
  workflow: WorkflowDefinition,
  interrupts: readonly Interrupt[],
  state: WorkflowState,
): SegmentEnd {
  if (interrupts.length === 0) return { type: 'completed', state };
  const question = interrupts.find((i) => wakeTimeOf(i.value) === null);
  if (question) return { type: 'interrupted', payload: question.value ?? null };
  const wakeAt = interrupts
    .map((i) => wakeTimeOf(i.value) as string)
    .sort()
    .at(0) as string;
  if (!workflow.durable) {
    throw new ConfigError(
      `workflow '${workflow.name}' called sleepUntil('${wakeAt}') but is not durable: a timer ` +
        `must survive the process; declare it with durable: true (and run it with a sessionId)`,
    );
  }
  return { type: 'sleeping', wakeAt };
}
