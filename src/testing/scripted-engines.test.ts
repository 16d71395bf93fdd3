/**
 * The scripted engines pass the same engine contracts as the real adapters, so runtime tests
 * played on them stand for runs played on the real ones.
 */
import { Agent } from '../authoring/agent.js';
import { AGENT_CONTRACT, describeAgentEngineContract } from './agent-engine-contract.js';
import {
  ScriptedAgentEngine,
  type ScriptedTurn,
  type ScriptedTurnStep,
} from './scripted-agent-engine.js';
import { ScriptedWorkflowEngine, scriptedWorkflow } from './scripted-workflow-engine.js';
import { describeWorkflowEngineContract, WORKFLOW_CONTRACT } from './workflow-engine-contract.js';

const reply: ScriptedTurnStep = { text: ['Hello ', 'from the ', 'contract.'] };

const turns: Record<string, ScriptedTurn> = {
  reply: { steps: [reply] },
  pause: { steps: [{ safePoint: true }, reply] },
  hang: { steps: [{ text: 'Hel' }, { hang: true }, reply] },
  fail: { steps: [{ fail: new Error(AGENT_CONTRACT.failure) }] },
};

describeAgentEngineContract('ScriptedAgentEngine', {
  create: (scenario) => ({
    engine: new ScriptedAgentEngine([turns[scenario] as ScriptedTurn]),
    agent: new Agent({ name: 'contract' }),
  }),
});

describeWorkflowEngineContract('ScriptedWorkflowEngine', {
  create: (scenario) => {
    const durable = scenario === 'timer' || scenario === 'checkpoints';
    const workflow = scriptedWorkflow('contract', { durable });
    const engine = new ScriptedWorkflowEngine({
      contract: {
        steps: [
          { node: 'first', update: { a: 1 } },
          { node: 'second', update: { b: 2 } },
        ],
        question: [{ node: 'ask', interrupt: WORKFLOW_CONTRACT.question, answerTo: 'answer' }],
        timer: [{ node: 'wait', sleepUntil: WORKFLOW_CONTRACT.wakeAt, update: { woke: true } }],
        hang: [{ node: 'wait', hang: true }],
        fail: [{ node: 'boom', fail: new Error(WORKFLOW_CONTRACT.failure) }],
        checkpoints: [
          { node: 'first', update: { a: 1 } },
          {
            node: 'second',
            updateFrom: (state: Record<string, unknown>) => ({ b: Number(state.a) * 10 }),
          },
        ],
      }[scenario],
    });
    engine.compile(workflow);
    return { engine, workflow };
  },
});
