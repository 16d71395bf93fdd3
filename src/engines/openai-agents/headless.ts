/**
 * The headless runner behind `Agent.run()`: the engine alone, no Deck, no Runtime, no
 * events, no observers, no context. It returns the engine's own result object.
 */
import { tool as engineTool, type RunResult } from '@openai/agents-core';
import { z } from 'zod';
import type { AgentDefinition } from '../../authoring/agent-definition.js';
import type { BuiltTool } from '../../authoring/tool.js';
import { type AgentInput, toBlocks } from '../../core/blocks.js';
import { snakeCase } from '../../core/names.js';
import { toolErrorFunction } from './compile/tool-errors.js';
import { OpenAIAgentsEngine } from './engine.js';

/** The engine's own result of a headless run (`@openai/agents` RunResult). */
// biome-ignore lint/suspicious/noExplicitAny: the engine's and the catalog's types are generic over any agent
export type HeadlessResult = RunResult<any, any>;

export async function runHeadless(
  agent: AgentDefinition,
  input: AgentInput,
  signal?: AbortSignal,
): Promise<HeadlessResult> {
  const engine = new OpenAIAgentsEngine();
  try {
    return (await engine.runHeadless(agent, toBlocks(input), signal)) as HeadlessResult;
  } finally {
    await engine.close();
  }
}

/**
 * `Agent.asTool()`: a tool whose every call runs a headless turn of `agent` on the input
 * the calling model wrote (no Runtime, nothing recorded, no context: the calling run's
 * context is not passed on). The result is the agent's final output.
 */
export function agentAsTool(
  agent: AgentDefinition,
  options: { name?: string; description?: string },
): BuiltTool {
  const name = options.name ?? snakeCase(agent.name);
  return engineTool({
    name,
    description: options.description ?? `Ask the agent '${agent.name}'.`,
    parameters: z.object({ input: z.string().describe(`What to ask '${agent.name}'`) }),
    strict: true,
    errorFunction: toolErrorFunction(name),
    execute: async ({ input }, _runContext, details) => {
      const result = await runHeadless(agent, input, details?.signal);
      const output = result.finalOutput;
      return typeof output === 'string' ? output : JSON.stringify(output ?? null);
    },
  }) as unknown as BuiltTool;
}
