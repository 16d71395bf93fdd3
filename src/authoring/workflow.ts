/**
 * `Workflow`: the definition of a graph-shaped workflow (SPEC.md "Agent and Workflow
 * definitions"). `graph` returns an uncompiled LangGraph `StateGraph`; the Deck compiles it
 * with its checkpointer. `workflow.run()` / `workflow.resume()` are the headless runners.
 */
import { ConfigError } from '../core/errors.js';
import type { WorkflowResult } from '../core/interrupt-result.js';
import { resumeWorkflowHeadless, runWorkflowHeadless } from '../engines/langgraph/headless.js';
import { checkDescription } from './descriptions.js';
import { type QueueOptions, type QueuePolicy, queuePolicy } from './queue-options.js';
import {
  type CheckpointDurability,
  checkDurability,
  checkRunSettings,
  checkWorkflowInput,
  type GraphBuilder,
  type WorkflowDefinition,
  type WorkflowMigrate,
  type WorkflowRunSettings,
} from './workflow-definition.js';

export interface WorkflowOptions<S = unknown> {
  /** Unique name in the deck's catalog (shared namespace with agents). */
  name: string;
  /**
   * What the workflow does, in a sentence: shown in the catalog, and the description of its
   * tool on the MCP server (`/mcp`). @default a sentence naming the workflow
   */
  description?: string;
  /**
   * Limits per key for its runs (concurrency, a rate) (a workflow taken again after its
   * worker died goes on from its last checkpoint); see docs/background-runs.md. @default no limits
   */
  queue?: QueueOptions;
  /**
   * The state schema: a zod object schema, a LangGraph `StateSchema` or a LangGraph Annotation.
   * Initial states are checked against a zod object or a `StateSchema` (fields may be missing).
   * A `StateSchema` of the same zod fields costs less per node: LangGraph checks each update
   * field by field instead of building partial zod schemas (docs/workflows.md "State").
   */
  state: S;
  /**
   * Durable threads live in the deck's checkpointer (`SERVICE_CHECKPOINT`) and survive the
   * process; every run needs a `sessionId` (the thread id). Non-durable threads live in
   * memory for the life of the deck. `sleepUntil()` needs a durable workflow. @default false
   */
  durable?: boolean;
  /**
   * Returns the uncompiled graph, e.g. `(state) => new StateGraph(state).addNode(...)`.
   * Called at `build()` and again at `open()`; do not call `.compile()` yourself.
   */
  graph: (state: S) => GraphBuilder;
  /**
   * LangGraph's `recursionLimit`: the most steps (supersteps) one call may take (a start, an
   * answer, a resume) before it fails with `GraphRecursionError`. Raise it for long graphs or
   * loops; a run may override it (`deck.run(name, state, { recursionLimit })`).
   * @default 25 (LangGraph's)
   */
  recursionLimit?: number;
  /**
   * LangGraph's `maxConcurrency`: the most nodes one step runs at once (a fan-out of `Send`s
   * or parallel branches); a run may override it. @default no limit (LangGraph's)
   */
  maxConcurrency?: number;
  /**
   * When the workflow's checkpoints are written (LangGraph's `durability`). `'exit'` writes
   * one checkpoint when a segment ends (completed, interrupted, sleeping, paused or failed),
   * before its end is recorded: the fastest, and what a crash loses is the progress of the
   * segment in flight, which the deck closes as failed anyway. `'async'` and `'sync'` also
   * write one after every step (LangGraph's default is `'async'`): choose one when something
   * reads a thread's progress while it runs (`getState` on the checkpointer), at a cost per
   * node. An interrupted or sleeping thread, and a completed run, are durable in every mode
   * (docs/internals/workflow-durability.md).
   * @default 'exit'
   */
  durability?: CheckpointDurability;
  /**
   * The workflow's version, recorded with each checkpoint in its graph's fingerprint (with its
   * nodes, edges and state fields). A thread paused under another graph resumes only if the
   * nodes it waits at still exist and its state parses (docs/workflow-versions.md).
   * @default none (the fingerprint is the graph's shape alone)
   */
  version?: string;
  /**
   * Carries a paused thread's state over to this graph when its graph changed since it paused:
   * `from` is the version (else `#hash`) that wrote it, `null` if unknown. The returned state
   * is checked against `state`; the fields it changed are written with the resume.
   */
  migrate?: WorkflowMigrate;
}

/**
 * @example
 * const approval = new Workflow({
 *   name: 'approval',
 *   state: z.object({ amount: z.number(), approved: z.boolean().optional() }),
 *   durable: true,
 *   graph: (state) =>
 *     new StateGraph(state)
 *       .addNode('ask', (s) => ({ approved: interrupt<boolean>({ amount: s.amount }) }))
 *       .addEdge(START, 'ask')
 *       .addEdge('ask', END),
 * });
 */
export class Workflow<S = unknown> implements WorkflowDefinition {
  readonly kind = 'agentdeck.workflow' as const;
  readonly name: string;
  readonly description: string | undefined;
  readonly queue: QueuePolicy;
  readonly state: S;
  readonly durable: boolean;
  readonly graph: (state: unknown) => GraphBuilder;
  readonly runSettings: Readonly<WorkflowRunSettings>;
  readonly durability: CheckpointDurability;
  readonly version: string | undefined;
  readonly migrate: WorkflowMigrate | undefined;

  constructor(options: WorkflowOptions<S>) {
    if (typeof options?.name !== 'string' || options.name.trim() === '') {
      throw new ConfigError('Workflow needs a non-empty `name`');
    }
    if (typeof options.graph !== 'function') {
      throw new ConfigError(
        `workflow '${options.name}' needs \`graph\`: a function returning an uncompiled StateGraph`,
      );
    }
    if (options.durable !== undefined && typeof options.durable !== 'boolean') {
      throw new ConfigError(`workflow '${options.name}': \`durable\` must be true or false`);
    }
    this.name = options.name;
    this.description = checkDescription(`workflow '${options.name}'`, options.description);
    this.queue = queuePolicy(`workflow '${options.name}'`, options.queue);
    this.state = options.state;
    this.durable = options.durable ?? false;
    this.graph = options.graph as (state: unknown) => GraphBuilder;
    if (options.version !== undefined && typeof options.version !== 'string') {
      throw new ConfigError(`workflow '${options.name}': \`version\` must be a string`);
    }
    if (options.migrate !== undefined && typeof options.migrate !== 'function') {
      throw new ConfigError(`workflow '${options.name}': \`migrate\` must be a function`);
    }
    this.version = options.version;
    this.migrate = options.migrate;
    try {
      this.runSettings = Object.freeze(checkRunSettings(`workflow '${options.name}'`, options));
      this.durability = checkDurability(`workflow '${options.name}'`, options.durability);
    } catch (error) {
      throw new ConfigError((error as Error).message);
    }
  }

  /**
   * Run headless: no Deck, no Runtime, no events, no observers, no context. Threads live in
   * this object's memory; an interrupt returns an InterruptResult to pass to `resume()`.
   */
  async run(
    input: Record<string, unknown>,
    options: { threadId?: string } = {},
  ): Promise<WorkflowResult> {
    return runWorkflowHeadless(this, checkWorkflowInput(this, input), options.threadId);
  }

  /** Continue a thread `run()` paused: the interrupted node re-runs and `interrupt()` returns `value`. */
  resume(threadId: string, value: unknown): Promise<WorkflowResult> {
    return resumeWorkflowHeadless(this, threadId, value);
  }
}
