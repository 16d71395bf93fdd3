/**
 * What the runtime and the engine adapter read of an agent: the definition's fields and the
 * hook contract, apart from the `Agent` facade (agent.ts), so that `runtime/` and `engines/`
 * never import the class that imports them.
 */
import type { z } from 'zod';
import type { Context } from './context.js';
import type { HistoryPolicy } from './history-policy.js';
import type { QueuePolicy } from './queue-options.js';
import type { AgentTool } from './tool.js';
import type { WorkflowDefinition } from './workflow-definition.js';

/**
 * A model object the engine can call directly (for example `ScriptedModel` from
 * `agentdeck/testing`, or any `@openai/agents` Model).
 */
export interface AgentModel {
  getResponse(request: never): Promise<unknown>;
  getStreamedResponse(request: never): AsyncIterable<unknown>;
}

/**
 * Lifecycle hooks; each method receives the run's context (wrap one in `needsContext()` to
 * declare what it needs). Hooks observe, they do not steer: the engine does not wait for
 * them, and an error in one is logged, not raised.
 */
export interface AgentHooks<C = unknown> {
  /** The agent is about to call the model for the first time in a turn. */
  onStart?: (ctx: Context<C>) => void | Promise<void>;
  /** The agent produced its final output. */
  onEnd?: (ctx: Context<C>, output: unknown) => void | Promise<void>;
  /** A tool is about to run. */
  onToolStart?: (ctx: Context<C>, toolName: string) => void | Promise<void>;
  /** A tool finished; `result` is what the model is sent. */
  onToolEnd?: (ctx: Context<C>, toolName: string, result: string) => void | Promise<void>;
}

/** The hook method names, in the order the engine calls them. */
export const HOOK_METHODS = ['onStart', 'onToolStart', 'onToolEnd', 'onEnd'] as const;

/** A system prompt, or a function of the context (wrap it in `needsContext()` to declare what it needs). */
export type Instructions<C> = string | ((ctx: Context<C>) => string | Promise<string>);

/** The definition fields the engine adapter reads. */
/**
 * Settings sent with each model request (the engine's `ModelSettings`: `temperature`,
 * `topP`, `maxTokens`, `toolChoice`, `reasoning`, `providerData`...), passed as given.
 */
export type AgentModelSettings = Readonly<Record<string, unknown>> & {
  readonly temperature?: number;
  readonly topP?: number;
  readonly maxTokens?: number;
};

export interface AgentDefinition<C = unknown, O = unknown> {
  readonly name: string;
  /** What it does, for the catalog and other agents (`descriptionOf()` fills in a sentence when absent). */
  readonly description?: string | undefined;
  /** Its queue limits and retry policy (queue-options.ts); absent: none. */
  readonly queue?: QueuePolicy;
  readonly instructions: Instructions<C>;
  readonly tools: readonly (AgentTool<C> | WorkflowDefinition)[];
  readonly skills: readonly string[];
  readonly mcpServers: readonly string[];
  readonly hooks: AgentHooks<C>;
  readonly model: string | AgentModel | undefined;
  readonly modelSettings?: AgentModelSettings | undefined;
  readonly outputType: z.ZodType<O> | undefined;
  /** What of the session's history a turn sends to the model; `undefined`: the deck's default. */
  readonly history?: HistoryPolicy | undefined;
  /** Names of tools (workflow, MCP, built) a person approves before each call; `undefined`: none. */
  readonly needsApproval?: readonly string[] | undefined;
}
