/**
 * `Agent`: the definition of a conversational agent. It is plain data plus callables; the
 * Deck compiles it for the engine at `build()`. `agent.run()` is the headless runner: it
 * bypasses the Deck and the Runtime (nothing recorded, no observers, no context).
 */
import type { z } from 'zod';
import type { AgentInput } from '../core/blocks.js';
import { ConfigError } from '../core/errors.js';
import {
  agentAsTool,
  type HeadlessResult,
  runHeadless,
} from '../engines/openai-agents/headless.js';
import type {
  AgentDefinition,
  AgentHooks,
  AgentModel,
  AgentModelSettings,
  Instructions,
} from './agent-definition.js';
import { checkDescription } from './descriptions.js';
import { checkHistoryPolicy, type HistoryPolicy } from './history-policy.js';
import { type QueueOptions, type QueuePolicy, queuePolicy } from './queue-options.js';
import type { AgentTool, BuiltTool } from './tool.js';
import { checkModelSettings } from './variant.js';
import type { Workflow } from './workflow.js';

export interface AgentOptions<C = unknown, O = string> {
  /** Unique name in the deck's catalog; the HTTP route uses it. */
  name: string;
  /**
   * What the agent does, in a sentence: shown in the catalog, and the description of its tool
   * on the MCP server (`/mcp`) and of its A2A card. @default a sentence naming the agent and its tools
   */
  description?: string;
  /**
   * Limits per key for its runs (concurrency, a rate), and for an agent the retry of a
   * background turn whose worker died; see docs/background-runs.md. @default no limits
   */
  queue?: QueueOptions;
  /** System prompt, or a function of the context that returns it. @default '' */
  instructions?: Instructions<C>;
  /**
   * Tools the model may call: `tool()`s, tools built for `@openai/agents` (e.g. another
   * agent's `asTool()`), and workflows of the same deck (a non-durable workflow becomes a
   * tool named after it in snake_case, taking its state). @default []
   */
  tools?: (AgentTool<C> | Workflow)[];
  /** Names of the deck's skills this agent may read with its generated `load_skill` tool. @default [] */
  skills?: string[];
  /** Names of the deck's MCP servers whose tools this agent may call. @default [] */
  mcpServers?: string[];
  /** Lifecycle hooks. */
  hooks?: AgentHooks<C>;
  /** Model name or object; wins over `OPENAI_MODEL`. @default the `OPENAI_MODEL` setting, else the engine's default */
  model?: string | AgentModel;
  /** Settings sent with each model request (`temperature`, `maxTokens`, `toolChoice`...). @default the model's own */
  modelSettings?: AgentModelSettings;
  /** zod schema of a structured output; the turn's output is then the parsed object. */
  outputType?: z.ZodType<O>;
  /**
   * What of the session's history each turn sends to the model (the latest items, a token
   * budget, a compaction hook); the session still keeps everything.
   * @default the deck's `history`, else the full history
   */
  history?: HistoryPolicy;
  /**
   * Names of tools a person must approve before each call runs, for tools that are not a
   * `tool()` with its own `needsApproval`: a workflow listed as a tool (its name, or its
   * snake_case tool name), an MCP tool of a listed server, a built tool. `build()` refuses a
   * name none of the agent's tools has, unless the agent lists MCP servers (their tools are
   * known only once they run). @default []
   */
  needsApproval?: string[];
}

/**
 * An agent definition.
 * @example
 * const greeter = new Agent({ name: 'Greeter', instructions: 'Greet the user warmly.' });
 */
export class Agent<C = unknown, O = string> implements AgentDefinition<C, O> {
  readonly kind = 'agentdeck.agent' as const;
  readonly name: string;
  readonly description: string | undefined;
  readonly queue: QueuePolicy;
  readonly instructions: Instructions<C>;
  readonly tools: readonly (AgentTool<C> | Workflow)[];
  readonly skills: readonly string[];
  readonly mcpServers: readonly string[];
  readonly hooks: AgentHooks<C>;
  readonly model: string | AgentModel | undefined;
  readonly modelSettings: AgentModelSettings | undefined;
  readonly outputType: z.ZodType<O> | undefined;
  readonly history: HistoryPolicy | undefined;
  readonly needsApproval: readonly string[];

  constructor(options: AgentOptions<C, O>) {
    if (typeof options?.name !== 'string' || options.name.trim() === '') {
      throw new ConfigError('Agent needs a non-empty `name`');
    }
    this.name = options.name;
    this.description = checkDescription(`agent '${options.name}'`, options.description);
    this.queue = queuePolicy(`agent '${options.name}'`, options.queue);
    this.instructions = options.instructions ?? '';
    this.tools = Object.freeze([...(options.tools ?? [])]);
    this.skills = Object.freeze([...names(options.name, 'skills', options.skills)]);
    this.mcpServers = Object.freeze([...names(options.name, 'mcpServers', options.mcpServers)]);
    this.hooks = options.hooks ?? {};
    this.model = options.model;
    this.modelSettings = checkModelSettings(`agent '${options.name}'`, options.modelSettings);
    this.outputType = options.outputType;
    this.history = checkHistoryPolicy(options.history, `agent '${options.name}'`);
    this.needsApproval = Object.freeze([
      ...names(options.name, 'needsApproval', options.needsApproval),
    ]);
  }

  /**
   * Run one turn headless: no Deck, no Runtime, no events, no observers, no context.
   * Returns the engine's own result object (`@openai/agents` RunResult).
   */
  run(input: AgentInput): Promise<HeadlessResult> {
    return runHeadless(this as AgentDefinition, input);
  }

  /**
   * This agent as a tool for another agent, headless: each call runs a turn of this agent
   * alone (no Runtime, nothing recorded, no context, no skills or MCP servers of a deck).
   * @example new Agent({ name: 'Lead', tools: [researcher.asTool({ description: 'Research a topic' })] })
   */
  asTool(options: AsToolOptions = {}): BuiltTool {
    return agentAsTool(this as AgentDefinition, options);
  }
}

export interface AsToolOptions {
  /** The tool's name. @default the agent's name in snake_case */
  name?: string;
  /** What the tool does, for the calling model. @default "Ask the agent '<name>'." */
  description?: string;
}

function names(agent: string, field: string, value: unknown): string[] {
  if (value === undefined) return [];
  if (!Array.isArray(value) || value.some((v) => typeof v !== 'string' || v === '')) {
    throw new ConfigError(`agent '${agent}': \`${field}\` must be a list of names`);
  }
  return value;
}

export function isAgent(value: unknown): value is Agent {
  return value instanceof Agent;
}
