/**
 * The LangGraph adapter passes the workflow engine contract, with a MemorySaver as its
 * durable checkpointer (so timers are found by listing checkpoints, as on Postgres).
 */
import { END, MemorySaver, START, StateGraph } from '@langchain/langgraph';
import { z } from 'zod';
import { Workflow } from '../../authoring/workflow.js';
import {
  describeWorkflowEngineContract,
  WORKFLOW_CONTRACT,
  type WorkflowContractScenario,
} from '../../testing/workflow-engine-contract.js';
import { LangGraphEngine } from './engine.js';
import { interrupt, sleepUntil } from './nodes.js';

const State = z.object({
  a: z.number().optional(),
  b: z.number().optional(),
  answer: z.string().optional(),
  woke: z.boolean().optional(),
});

type Node = [name: string, run: (state: unknown, config: { signal?: AbortSignal }) => unknown];

const nodes: Record<WorkflowContractScenario, Node[]> = {
  steps: [
    ['first', () => ({ a: 1 })],
    ['second', () => ({ b: 2 })],
  ],
  question: [['ask', () => ({ answer: interrupt<string>(WORKFLOW_CONTRACT.question) })]],
  timer: [
    [
      'wait',
      () => {
        sleepUntil(WORKFLOW_CONTRACT.wakeAt);
        return { woke: true };
      },
    ],
  ],
  hang: [
    [
      'wait',
      (_state, config) =>
        new Promise((_resolve, reject) => {
          config.signal?.addEventListener('abort', () => reject(config.signal?.reason));
        }),
    ],
  ],
  checkpoints: [
    ['first', () => ({ a: 1 })],
    ['second', (state) => ({ b: ((state as { a?: number }).a ?? 0) * 10 })],
  ],
  fail: [
    [
      'boom',
      () => {
        throw new Error(WORKFLOW_CONTRACT.failure);
      },
    ],
  ],
};

/** A line of nodes from START to END. */
function workflowOf(scenario: WorkflowContractScenario): Workflow {
  return new Workflow({
    name: `contract-${scenario}`,
    state: State,
    durable: scenario === 'timer' || scenario === 'checkpoints',
    // A checkpoint per step, not only where a segment stops: the history a fork starts from.
    ...(scenario === 'checkpoints' ? { durability: 'sync' as const } : {}),
    graph: (state) => {
      // biome-ignore lint/suspicious/noExplicitAny: node names are only known at run time here
      let graph: any = new StateGraph(state);
      let previous: string = START;
      for (const [name, run] of nodes[scenario]) {
        graph = graph.addNode(name, run).addEdge(previous, name);
        previous = name;
      }
      return graph.addEdge(previous, END);
    },
  });
}

describeWorkflowEngineContract('LangGraphEngine, MemorySaver', {
  create: (scenario) => {
    const engine = new LangGraphEngine();
    const workflow = workflowOf(scenario);
    engine.compile(workflow);
    engine.attach(new MemorySaver());
    return { engine, workflow };
  },
});
