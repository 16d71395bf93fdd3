/**
 * The `@openai/agents` adapter passes the agent engine contract, on both turn loops (a live
 * turn streams; a turn read for its result asks for whole replies and, with no tools, runs
 * on the plain loop): with a `ScriptedModel` as the agent's model, and through the
 * configured OpenAI client against the scripted model server (Responses and chat
 * completions), which is the path the deck's own SSE reading takes.
 */
import { Agent } from '../../authoring/agent.js';
import {
  AGENT_CONTRACT,
  type AgentContractScenario,
  describeAgentEngineContract,
} from '../../testing/agent-engine-contract.js';
import type { ScriptedStep } from '../../testing/script.js';
import { ScriptedModel } from '../../testing/scripted-model.js';
import { scriptedModelServer } from '../../testing/scripted-model-server.js';
import { OpenAIAgentsEngine } from './engine.js';
import { engineSettingsFromEnv } from './settings.js';

const reply: ScriptedStep = { text: ['Hello ', 'from the ', 'contract.'] };

/** The model calls of each scenario (a failed call is retried twice by the OpenAI client). */
const scripts: Record<AgentContractScenario, ScriptedStep[]> = {
  reply: [reply],
  // Paused before its model call (the first safe point); the continuation makes the call.
  pause: [reply],
  hang: [{ text: ['Hel', 'lo'], delayMs: 60_000 }],
  fail: [1, 2, 3].map(() => ({ error: AGENT_CONTRACT.failure })),
};

const live = [true, false];

describeAgentEngineContract('OpenAIAgentsEngine, ScriptedModel', {
  live,
  create: (scenario) => ({
    engine: new OpenAIAgentsEngine(engineSettingsFromEnv({})),
    agent: new Agent({ name: 'contract', model: new ScriptedModel(scripts[scenario]) }),
  }),
});

for (const api of ['responses', 'chat completions'] as const) {
  describeAgentEngineContract(`OpenAIAgentsEngine, scripted model server (${api})`, {
    live,
    create: async (scenario) => {
      const server = await scriptedModelServer(scripts[scenario]);
      const engine = new OpenAIAgentsEngine(
        engineSettingsFromEnv({
          OPENAI_BASE_URL: server.url,
          OPENAI_MODEL: 'gpt-4o',
          OPENAI_USE_RESPONSES: String(api === 'responses'),
        }),
      );
      return {
        engine,
        agent: new Agent({ name: 'contract' }),
        dispose: async () => {
          await engine.close();
          await server.close();
        },
      };
    },
  });
}
