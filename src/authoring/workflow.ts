/**
 * `Workflow`: the definition of a graph-shaped workflow (SPEC.md "Agent and Workflow
 * definitions"). The catalog holds it so names are checked across agents and workflows.
 */
import { ConfigError } from '../core/errors.js';

export interface WorkflowOptions<S = unknown> {
  /** Unique name in the deck's catalog (shared namespace with agents). */
  name: string;
  /** The state schema (a zod object schema or a LangGraph Annotation). */
  state: S;
  /** Durable threads need a `sessionId` (the thread id) on every run. @default false */
  durable?: boolean;
  /** Returns the uncompiled graph; the Deck compiles it with its checkpointer. */
  graph: () => unknown;
}

export class Workflow<S = unknown> {
  readonly kind = 'agentdeck.workflow' as const;
  readonly name: string;
  readonly state: S;
  readonly durable: boolean;
  readonly graph: () => unknown;

  constructor(options: WorkflowOptions<S>) {
    if (typeof options?.name !== 'string' || options.name.trim() === '') {
      throw new ConfigError('Workflow needs a non-empty `name`');
    }
    if (typeof options.graph !== 'function') {
      throw new ConfigError(
        `workflow '${options.name}' needs \`graph\`: a function returning a graph`,
      );
    }
    this.name = options.name;
    this.state = options.state;
    this.durable = options.durable ?? false;
    this.graph = options.graph;
  }
}
