/**
 * Compile an agentdeck Agent definition into an engine Agent (the entry of `compile/`). Our
 * tools are wrapped so the model sees only their argument schema (never the context), a
 * thrown error becomes a readable string for the model and is kept for
 * `tool.call.completed` (`tool-errors.ts`, `tool-ledger.ts`), a non-string result is sent as
 * JSON, and a pending pause holds the call before dispatch (`pauseBeforeDispatch`). The
 * per-run `RunScope` travels as the engine's run context. What a turn needs of the result
 * is `Compiled` (`../compiled-agent.ts`).
 */
import {
  Agent as EngineAgent,
  tool as engineTool,
  type Model,
  type RunContext,
  type Tool,
} from '@openai/agents-core';
import type { AgentDefinition } from '../../../authoring/agent-definition.js';
import { declaredRequirement } from '../../../authoring/context.js';
import type { Skill } from '../../../authoring/skills.js';
import { type DeckTool, isDeckTool } from '../../../authoring/tool.js';
import { isWorkflowDefinition } from '../../../authoring/workflow-definition.js';
import { ConfigError, errorMessage } from '../../../core/errors.js';
import { snakeCase } from '../../../core/names.js';
import { asRunScope, contextFor, type RunScope } from '../../../runtime/run-scope.js';
import type { Compiled, CompiledAgent } from '../compiled-agent.js';
import { approvalGate, gatedTool, listedForApproval } from './approvals.js';
import { withCallerInstructions } from './caller-instructions.js';
import { loadSkillTool, skillsSection, workflowTool } from './catalog-tools.js';
import { attachHooks } from './hooks.js';
import { checkScope } from './scope-check.js';
import { MissingContextError, toolErrorFunction, toolFailureText } from './tool-errors.js';
import { toolLedger } from './tool-ledger.js';

/** What an agent draws from its deck's catalog; a headless run has none. */
export interface AgentCatalog {
  /** The deck's skills by name (the agent's own list was checked at build). */
  readonly skills: ReadonlyMap<string, Skill>;
  /** A note for the instructions about the named MCP servers that failed to start ('' if none). */
  mcpNotes(serverNames: readonly string[]): string;
}

export function compileAgent(
  def: AgentDefinition,
  defaultModel: string | undefined,
  catalog: AgentCatalog | null = null,
): Compiled {
  const skills = catalog
    ? def.skills.flatMap((name) => {
        const skill = catalog.skills.get(name);
        return skill ? [skill] : [];
      })
    : [];
  let ownToolsOnly = true;
  const tools = def.tools.map((t, i) => {
    if (isDeckTool(t)) {
      return wrapTool(def.name, t, listedForApproval(def, t.name) || t.needsApproval);
    }
    if (isWorkflowDefinition(t))
      return workflowTool(t, listedForApproval(def, t.name, snakeCase(t.name)));
    ownToolsOnly = false;
    return gatedTool(def, checkBuilt(def, t, i));
  });
  if (skills.length > 0) {
    const listed = listedForApproval(def, 'load_skill');
    tools.push(wrapTool(def.name, loadSkillTool(def.name, skills), listed));
  }
  checkToolNames(def.name, tools);
  checkApprovalNames(def, tools);
  const model = def.model ?? defaultModel;
  let agent: EngineAgent<RunScope | undefined>;
  try {
    agent = new GatedAgent<RunScope | undefined>(def, toolNames(def, tools), {
      name: def.name,
      instructions: withCallerInstructions(instructionsFor(def, skillsSection(skills), catalog)),
      tools,
      ...(model !== undefined ? { model: model as string | Model } : {}),
      ...(def.modelSettings !== undefined ? { modelSettings: { ...def.modelSettings } } : {}),
      ...(def.outputType !== undefined ? { outputType: def.outputType as never } : {}),
    });
  } catch (error) {
    throw new ConfigError(`agent '${def.name}' cannot be compiled: ${errorMessage(error)}`, {
      cause: error,
    });
  }
  attachHooks(agent, def.name, def.hooks);
  return { agent: agent as CompiledAgent, ownToolsOnly };
}

/**
 * The engine agent of a definition: MCP tools, listed live each turn, get the approval
 * gate too (a pause holds them; the agent's `needsApproval` list may name them).
 */
class GatedAgent<T> extends EngineAgent<T> {
  readonly #def: AgentDefinition;
  /** The names of the agent's own tools (and workflows), known at compile time. */
  readonly #ownNames: ReadonlySet<string>;
  constructor(
    def: AgentDefinition,
    ownNames: ReadonlySet<string>,
    config: ConstructorParameters<typeof EngineAgent<T>>[0],
  ) {
    super(config);
    this.#def = def;
    this.#ownNames = ownNames;
  }

  override async getMcpTools(
    ...args: Parameters<EngineAgent<T>['getMcpTools']>
  ): ReturnType<EngineAgent<T>['getMcpTools']> {
    const tools = await super.getMcpTools(...args);
    // A listed name no tool has is a typo that would let calls run unapproved: refused here,
    // once the MCP tools are known, as build() refuses it for an agent without MCP servers.
    const known = new Set([...this.#ownNames, ...tools.map((t) => t.name)]);
    const unknown = (this.#def.needsApproval ?? []).filter((name) => !known.has(name));
    if (unknown.length > 0 && this.mcpServers.length === this.#def.mcpServers.length) {
      throw new ConfigError(
        `agent '${this.#def.name}' lists ${unknown.map((n) => `'${n}'`).join(', ')} in needsApproval, but neither its tools nor its MCP servers' tools have that name (they have: ${[...known].join(', ')}); fix the name`,
      );
    }
    return tools.map((t) => gatedTool(this.#def, t as never));
  }
}

/** The names an agent's `needsApproval` may use for its own tools: tool names, workflow names. */
function toolNames(
  def: AgentDefinition,
  tools: readonly Tool<RunScope | undefined>[],
): ReadonlySet<string> {
  const names = new Set<string>(tools.map((t) => (t as { name: string }).name));
  for (const t of def.tools) if (isWorkflowDefinition(t)) names.add(t.name);
  return names;
}

/**
 * A name in the agent's `needsApproval` list that none of its tools has is a typo that would
 * let calls run unapproved: refused, unless MCP servers (whose tools are known only live)
 * may serve it.
 */
function checkApprovalNames(def: AgentDefinition, tools: readonly Tool<RunScope | undefined>[]) {
  if (def.mcpServers.length > 0) return;
  const names = toolNames(def, tools);
  for (const name of def.needsApproval ?? []) {
    if (!names.has(name)) {
      throw new ConfigError(
        `agent '${def.name}' lists '${name}' in needsApproval, but has no tool of that name (its tools: ${[...names].join(', ') || 'none'}); name one of its tools, or a tool of an MCP server it lists`,
      );
    }
  }
}

function checkToolNames(agentName: string, tools: readonly Tool<RunScope | undefined>[]) {
  const seen = new Set<string>();
  for (const t of tools) {
    const name = (t as { name?: unknown }).name;
    if (typeof name !== 'string' || name === '') {
      throw new ConfigError(`agent '${agentName}' has a tool without a name`);
    }
    if (seen.has(name)) {
      throw new ConfigError(
        `agent '${agentName}' lists two tools named '${name}'; the model calls tools by name, rename one`,
      );
    }
    seen.add(name);
  }
}

/**
 * The instructions the engine reads each turn: the agent's own (a string, or its function
 * of the context), then its skills, then a note on MCP servers that failed to start.
 */
function instructionsFor(def: AgentDefinition, skills: string, catalog: AgentCatalog | null) {
  const instructions = def.instructions;
  const notes = () => (catalog ? catalog.mcpNotes(def.mcpServers) : '');
  if (typeof instructions === 'string') {
    if (def.mcpServers.length === 0) return instructions + skills;
    return () => instructions + skills + notes();
  }
  const requirement = declaredRequirement(instructions);
  return async (runContext: RunContext<RunScope | undefined>) => {
    if (requirement)
      checkScope(requirement, runContext.context, `instructions of agent '${def.name}'`);
    return (await instructions(contextFor(runContext.context))) + skills + notes();
  };
}

function checkBuilt(
  def: AgentDefinition,
  value: unknown,
  index: number,
): Tool<RunScope | undefined> {
  const t = value as { type?: unknown; name?: unknown };
  if (typeof t !== 'object' || t === null || typeof t.type !== 'string') {
    throw new ConfigError(
      `agent '${def.name}' tools[${index}] is neither a tool() from agentdeck nor a built @openai/agents tool`,
    );
  }
  return value as Tool<RunScope | undefined>;
}

function wrapTool(
  agentName: string,
  t: DeckTool,
  approval: DeckTool['needsApproval'],
): Tool<RunScope | undefined> {
  return engineTool({
    name: t.name,
    description: t.description,
    parameters: t.parameters,
    strict: true,
    // Arguments the model got wrong (bad JSON, schema mismatch) go back to it as a readable
    // error and are recorded; a headless run reaching a context tool fails the run.
    errorFunction: toolErrorFunction(t.name),
    needsApproval: approvalGate(t.name, approval as never),
    execute: async (args: unknown, runContext?: RunContext<unknown>, details?) => {
      const scope = asRunScope(runContext?.context);
      if (t.context !== undefined && !scope) {
        throw new MissingContextError(
          `tool '${t.name}' of agent '${agentName}' requires a context, and a headless run passes none; run it through a Deck with context=`,
        );
      }
      if (t.context !== undefined) {
        checkScope(t.context, scope, `tool '${t.name}' of agent '${agentName}'`);
      }
      const callId = details?.toolCall?.callId;
      try {
        const result = await t.execute(args as never, contextFor(scope, details?.signal));
        if (scope && callId) toolLedger(scope).outputs.set(callId, result ?? null);
        return typeof result === 'string' ? result : JSON.stringify(result ?? null);
      } catch (error) {
        return toolFailureText(t.name, error, scope, callId);
      }
    },
  });
}
