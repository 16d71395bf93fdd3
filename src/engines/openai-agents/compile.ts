/**
 * Compile an agentdeck Agent definition into an engine Agent. Our tools are wrapped so the
 * model sees only their argument schema (never the context), a thrown error becomes a
 * readable string for the model and is kept for `tool.call.completed`, and a non-string
 * result is sent as JSON. The per-run `RunScope` travels as the engine's run context.
 */
import {
  Agent as EngineAgent,
  tool as engineTool,
  type Model,
  type RunContext,
  type Tool,
} from '@openai/agents-core';
import type { AgentDefinition, AgentHooks, HOOK_METHODS } from '../../authoring/agent.js';
import {
  asRunScope,
  type ContextRequirement,
  contextFor,
  declaredRequirement,
  type RunScope,
} from '../../authoring/context.js';
import { type DeckTool, isDeckTool } from '../../authoring/tool.js';
import { checkContextValue } from '../../core/context-verdicts.js';
import { ConfigError, ContextTypeError, errorMessage } from '../../core/errors.js';

// biome-ignore lint/suspicious/noExplicitAny: the engine's and the catalog's types are generic over any agent
export type CompiledAgent = EngineAgent<any, any>;

/** Raised inside a tool when a headless run (no context) reaches a tool that needs one. */
export class MissingContextError extends Error {
  override name = 'MissingContextError';
}

export function compileAgent(def: AgentDefinition, defaultModel: string | undefined) {
  const tools = def.tools.map((t, i) =>
    isDeckTool(t) ? wrapTool(def.name, t) : checkBuilt(def, t, i),
  );
  checkToolNames(def.name, tools);
  const model = def.model ?? defaultModel;
  let agent: EngineAgent<RunScope | undefined>;
  try {
    agent = new EngineAgent<RunScope | undefined>({
      name: def.name,
      instructions: instructionsFor(def),
      tools,
      ...(model !== undefined ? { model: model as string | Model } : {}),
      ...(def.outputType !== undefined ? { outputType: def.outputType as never } : {}),
    });
  } catch (error) {
    throw new ConfigError(`agent '${def.name}' cannot be compiled: ${errorMessage(error)}`, {
      cause: error,
    });
  }
  attachHooks(agent, def.name, def.hooks);
  return agent as unknown as CompiledAgent;
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

function instructionsFor(def: AgentDefinition) {
  const instructions = def.instructions;
  if (typeof instructions === 'string') return instructions;
  const requirement = declaredRequirement(instructions);
  return async (runContext: RunContext<RunScope | undefined>) => {
    if (requirement)
      checkScope(requirement, runContext.context, `instructions of agent '${def.name}'`);
    return instructions(contextFor(runContext.context));
  };
}

/** Check the value a declaring site is about to receive (no scope: a headless run, which passes none). */
function checkScope(requirement: ContextRequirement, engineContext: unknown, where: string) {
  const scope = asRunScope(engineContext);
  if (scope) checkContextValue(requirement, scope.data, where);
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

function wrapTool(agentName: string, t: DeckTool): Tool<RunScope | undefined> {
  return engineTool({
    name: t.name,
    description: t.description,
    parameters: t.parameters as never,
    strict: true,
    // Arguments the model got wrong (bad JSON, schema mismatch) go back to it as a readable
    // error and are recorded; a headless run reaching a context tool fails the run.
    errorFunction: (runContext, error, details) => {
      if (error instanceof MissingContextError || error instanceof ContextTypeError) throw error;
      const message = errorMessage(error);
      const text = `Error: tool '${t.name}' failed: ${message}`;
      const scope = asRunScope(runContext.context);
      const callId = details?.toolCall?.callId;
      if (scope && callId) scope.toolErrors.set(callId, message);
      else if (scope) scope.toolErrorTexts.set(text, message);
      return text;
    },
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
        if (scope && callId) scope.toolOutputs.set(callId, result ?? null);
        return typeof result === 'string' ? result : JSON.stringify(result ?? null);
      } catch (error) {
        const message = errorMessage(error);
        if (scope && callId) scope.toolErrors.set(callId, message);
        return `Error: tool '${t.name}' failed: ${message}`;
      }
    },
  }) as unknown as Tool<RunScope | undefined>;
}

function attachHooks(agent: EngineAgent<RunScope | undefined>, name: string, hooks: AgentHooks) {
  const guard = (hook: string, fn: () => void | Promise<void>) => {
    Promise.resolve()
      .then(fn)
      .catch((error) =>
        console.error(`[agentdeck] hook ${hook} of agent '${name}' failed: ${errorMessage(error)}`),
      );
  };
  /** The Context for a hook method, after checking the value against what it declared. */
  const contextOf = (hook: (typeof HOOK_METHODS)[number], engineContext: unknown) => {
    const requirement = declaredRequirement(hooks[hook]);
    if (requirement)
      checkScope(requirement, engineContext, `hook method ${hook} of agent '${name}'`);
    return contextFor(engineContext);
  };
  const { onStart, onEnd, onToolStart, onToolEnd } = hooks;
  if (onStart) {
    agent.on('agent_start', (rc) =>
      guard('onStart', () => onStart.call(hooks, contextOf('onStart', rc.context))),
    );
  }
  if (onEnd) {
    agent.on('agent_end', (rc, output) =>
      guard('onEnd', () => onEnd.call(hooks, contextOf('onEnd', rc.context), output)),
    );
  }
  if (onToolStart) {
    agent.on('agent_tool_start', (rc, t) =>
      guard('onToolStart', () =>
        onToolStart.call(hooks, contextOf('onToolStart', rc.context), t.name),
      ),
    );
  }
  if (onToolEnd) {
    agent.on('agent_tool_end', (rc, t, result) =>
      guard('onToolEnd', () =>
        onToolEnd.call(hooks, contextOf('onToolEnd', rc.context), t.name, result),
      ),
    );
  }
}
