/**
 * `tool()`: a function the model may call, with a zod schema for its arguments. The
 * context is handed to `execute` as its second argument and never appears in the schema
 * sent to the model.
 */
import type { z } from 'zod';
import type { Context, ContextRequirement } from './context.js';

// biome-ignore lint/suspicious/noExplicitAny: any zod object shape
export type ToolParameters = z.ZodObject<any>;

export interface ToolOptions<P extends ToolParameters, C> {
  /** Name the model calls the tool by. */
  name: string;
  /** What the tool does, for the model. */
  description: string;
  /** zod object schema of the arguments. */
  parameters: P;
  /** The context this tool needs; a headless run (no context) fails when the model calls it. */
  context?: ContextRequirement;
  /**
   * Runs the tool. A string result is sent as is; anything else is sent as JSON. A thrown
   * error is recorded on `tool.call.completed` and the model gets a readable error string.
   */
  execute(args: z.infer<P>, ctx: Context<C>): unknown | Promise<unknown>;
}

/** A tool defined with `tool()`. */
export interface DeckTool<P extends ToolParameters = ToolParameters, C = unknown> {
  readonly kind: 'agentdeck.tool';
  readonly name: string;
  readonly description: string;
  readonly parameters: P;
  readonly context: ContextRequirement | undefined;
  execute(args: z.infer<P>, ctx: Context<C>): unknown | Promise<unknown>;
}

/**
 * A tool object already built for the agent engine (for example `tool()` or an MCP tool
 * from `@openai/agents`); passed to the engine unchanged.
 */
export interface BuiltTool {
  readonly type: string;
  readonly name: string;
}

export type AgentTool = DeckTool | BuiltTool;

/**
 * Define a tool.
 * @example
 * const weather = tool({
 *   name: 'weather', description: 'Weather for a city',
 *   parameters: z.object({ city: z.string() }),
 *   execute: async ({ city }) => ({ city, forecast: 'sunny' }),
 * });
 */
export function tool<P extends ToolParameters, C = unknown>(
  options: ToolOptions<P, C>,
): DeckTool<P, C> {
  return {
    kind: 'agentdeck.tool',
    name: options.name,
    description: options.description,
    parameters: options.parameters,
    context: options.context,
    execute: options.execute,
  };
}

export function isDeckTool(value: unknown): value is DeckTool {
  return (
    typeof value === 'object' &&
    value !== null &&
    (value as { kind?: unknown }).kind === 'agentdeck.tool'
  );
}
