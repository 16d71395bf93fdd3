/**
 * The headless runner behind `Agent.run()`: the engine alone, no Deck, no Runtime, no
 * events, no observers, no context. It returns the engine's own result object.
 */
import type { RunResult } from '@openai/agents-core';
import type { AgentDefinition } from '../../authoring/agent.js';
import { type AgentInput, toBlocks } from '../../core/blocks.js';
import { OpenAIAgentsEngine } from './engine.js';

/** The engine's own result of a headless run (`@openai/agents` RunResult). */
// biome-ignore lint/suspicious/noExplicitAny: the engine's and the catalog's types are generic over any agent
export type HeadlessResult = RunResult<any, any>;

export async function runHeadless(
  agent: AgentDefinition,
  input: AgentInput,
): Promise<HeadlessResult> {
  const engine = new OpenAIAgentsEngine();
  try {
    return (await engine.runHeadless(agent, toBlocks(input))) as HeadlessResult;
  } finally {
    await engine.close();
  }
}
