/**
 * `tool()`: a function the model may call, with a zod schema for its arguments. The
 * context is handed to `execute` as its second argument and never appears in the schema
 * sent to the model.
 */
import type { z } from 'zod';
import { type AnswerShape, toAnswerSchema } from '../core/answer-schema.js';
import { ConfigError } from '../core/errors.js';
import { type Context, type ContextRequirement, isContextRequirement } from './context.js';

// biome-ignore lint/suspicious/noExplicitAny: any zod object shape
export type ToolParameters = z.ZodObject<any>;

export interface ToolOptions<P extends ToolParameters, C> {
  /** Name the model calls the tool by. */
  name: string;
  /** What the tool does, for the model. */
  description: string;
  /** zod object schema of the arguments. */
  parameters: P;
  /**
   * The context this tool needs (a class, `Context.any`, `oneOf()`, `protocol()`...):
   * `build()` rules on it against the deck's declared type, the call checks the value, and
   * `ctx.data` is typed from it. A headless run (no context) fails when the model calls it.
   * @default none: the tool reads no context
   */
  context?: ContextRequirement<C>;
  /**
   * Runs the tool. A string result is sent as is; anything else is sent as JSON. A thrown
   * error is recorded on `tool.call.completed` and the model gets a readable error string.
   */
  execute: (args: z.infer<P>, ctx: Context<C>) => unknown;
  /**
   * Whether a person must approve a call before it runs: `true`, or a function of the call's
   * arguments and context (return `true` to ask). A call that needs approval stops the turn
   * (`run.interrupted`, reason `approval`, listed by `deck.pending()`); `deck.answer(runId,
   * { approved: true })` runs it and the turn goes on, `{ approved: false, reason }` tells the
   * model it was rejected. A headless `agent.run()` has nobody to ask: its result lists the
   * held calls in the engine's `interruptions`.
   * @default false
   */
  needsApproval?: ToolApproval<z.infer<P>, C>;
  /**
   * The shape of the reason a person gives with an answer to this tool's approval (#41): a
   * zod schema or a JSON Schema object. Recorded on the approval's `run.interrupted`
   * (`answer_schema`); the inbox builds a form from it. A rejection must then give a reason
   * that matches (an approval may), or the answer is refused (InvalidInputError, HTTP 422,
   * naming the field) and the call still waits. A reason that is not text reaches the model
   * as JSON.
   * @default none: an optional free-text reason
   * @example approvalReason: z.object({ code: z.enum(['too_expensive', 'wrong_vendor']), note: z.string().optional() })
   */
  approvalReason?: AnswerShape;
}

/** A tool's approval policy: always, never, or a function of the call's arguments and context. */
export type ToolApproval<A = unknown, C = unknown> =
  | boolean
  | ((args: A, ctx: Context<C>) => boolean | Promise<boolean>);

/**
 * A tool defined with `tool()`. `C` is the context it needs; it sits in a parameter
 * position, so a tool needing `Calendar` fits an agent (and a deck) whose context is a
 * `Calendar` or a subclass, and is a compile error elsewhere.
 */
export interface DeckTool<P extends ToolParameters = ToolParameters, C = unknown> {
  readonly kind: 'agentdeck.tool';
  readonly name: string;
  readonly description: string;
  readonly parameters: P;
  readonly context: ContextRequirement | undefined;
  readonly execute: (args: z.infer<P>, ctx: Context<C>) => unknown;
  /** Whether a person approves a call before it runs (`ToolOptions.needsApproval`). */
  readonly needsApproval: ToolApproval<z.infer<P>, C>;
  /** The JSON Schema of an approval's reason (`ToolOptions.approvalReason`), if declared. */
  readonly approvalReasonSchema?: Record<string, unknown>;
}

/**
 * A tool object already built for the agent engine (for example `tool()` or an MCP tool
 * from `@openai/agents`); passed to the engine unchanged.
 */
export interface BuiltTool {
  readonly type: string;
  readonly name: string;
}

/** What an agent lists as tools; `C` is the agent's context. */
// biome-ignore lint/suspicious/noExplicitAny: any argument schema
export type AgentTool<C = unknown> = DeckTool<any, C> | BuiltTool;

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
  if (options.context !== undefined && !isContextRequirement(options.context)) {
    throw new ConfigError(
      `tool '${options.name}': \`context\` must be a class, Context.any, oneOf(), protocol() or typeParameter(), not ${typeof options.context === 'object' ? 'an instance' : typeof options.context}; pass the value itself on each run`,
    );
  }
  const needsApproval = options.needsApproval ?? false;
  if (typeof needsApproval !== 'boolean' && typeof needsApproval !== 'function') {
    throw new ConfigError(
      `tool '${options.name}': \`needsApproval\` must be true, false or a function of (args, ctx) returning a boolean, not ${typeof needsApproval}`,
    );
  }
  return {
    kind: 'agentdeck.tool',
    name: options.name,
    description: options.description,
    parameters: options.parameters,
    context: options.context,
    execute: options.execute,
    needsApproval,
    ...(options.approvalReason === undefined
      ? {}
      : {
          approvalReasonSchema: toAnswerSchema(
            options.approvalReason,
            `tool '${options.name}': approvalReason`,
          ),
        }),
  };
}

export function isDeckTool(value: unknown): value is DeckTool {
  return (
    typeof value === 'object' &&
    value !== null &&
    (value as { kind?: unknown }).kind === 'agentdeck.tool'
  );
}
