/**
 * The workflows `bench:workflow` runs, in each engine's own terms and of one shape: three
 * nodes in a line, each adding 1 to `n` and its name to `steps`; and an approval (prepare ->
 * ask, which pauses for a person -> finish). The LangGraph builders serve the deck and raw
 * LangGraph alike; the Mastra workflows are the same steps with `createStep`, their
 * states checked by the same zod schemas. Each run's result is checked, so no engine can
 * skip work.
 */
import { END, START, StateGraph, StateSchema } from '@langchain/langgraph';
import { createStep, createWorkflow } from '@mastra/core/workflows';
import { z } from 'zod';
import { type GraphBuilder, interrupt, Workflow } from '../../src/index.js';

export const Counter = z.object({ n: z.number(), steps: z.array(z.string()).optional() });
type CounterState = z.infer<typeof Counter>;
/** The same fields as a LangGraph `StateSchema`: LangGraph checks updates field by field. */
export const CounterFields = new StateSchema(Counter.shape);

const add = (name: string) => (s: CounterState) => ({
  n: s.n + 1,
  steps: [...(s.steps ?? []), name],
});

export const threeStepsGraph = (state: typeof Counter | typeof CounterFields): GraphBuilder =>
  new StateGraph(state as typeof Counter)
    .addNode('one', add('one'))
    .addNode('two', add('two'))
    .addNode('three', add('three'))
    .addEdge(START, 'one')
    .addEdge('one', 'two')
    .addEdge('two', 'three')
    .addEdge('three', END);

export const Approval = z.object({
  amount: z.number(),
  approved: z.boolean().optional(),
  note: z.string().optional(),
});
type ApprovalState = z.infer<typeof Approval>;
export const ApprovalFields = new StateSchema(Approval.shape);

const prepare = (s: ApprovalState) => ({ note: `amount ${s.amount}` });
const finish = (s: ApprovalState) => ({
  note: `${s.note} ${s.approved ? 'approved' : 'rejected'}`,
});

export const approvalGraph = (state: typeof Approval | typeof ApprovalFields): GraphBuilder =>
  new StateGraph(state as typeof Approval)
    .addNode('prepare', prepare)
    .addNode('ask', (s: ApprovalState) => {
      const answer = interrupt<{ approved: boolean }>({ question: 'approve?', amount: s.amount });
      return { approved: answer.approved };
    })
    .addNode('finish', finish)
    .addEdge(START, 'prepare')
    .addEdge('prepare', 'ask')
    .addEdge('ask', 'finish')
    .addEdge('finish', END);

/**
 * The deck's catalog: the two durable workflows (the deck's default durability, `'exit'`),
 * the 3-node one with LangGraph's default (`'async'`), both with their state as a `StateSchema`,
 * and not durable (for HTTP).
 */
export const DECK_WORKFLOWS = [
  new Workflow({ name: 'three-steps', state: Counter, durable: true, graph: threeStepsGraph }),
  new Workflow({
    name: 'three-steps-async',
    state: Counter,
    durable: true,
    durability: 'async',
    graph: threeStepsGraph,
  }),
  new Workflow({ name: 'approval', state: Approval, durable: true, graph: approvalGraph }),
  new Workflow({
    name: 'three-steps-fields',
    state: CounterFields,
    durable: true,
    graph: threeStepsGraph,
  }),
  new Workflow({
    name: 'approval-fields',
    state: ApprovalFields,
    durable: true,
    graph: approvalGraph,
  }),
  new Workflow({ name: 'three-steps-local', state: Counter, graph: threeStepsGraph }),
];

// --- Mastra: the same steps. ---

const MastraCounter = z.object({ n: z.number(), steps: z.array(z.string()) });

const mastraAdd = (id: string) =>
  createStep({
    id,
    inputSchema: MastraCounter,
    outputSchema: MastraCounter,
    execute: async ({ inputData }) => ({ n: inputData.n + 1, steps: [...inputData.steps, id] }),
  });

/**
 * Mastra's workflows, new objects per Mastra instance: a workflow registered with a second
 * `Mastra` uses that one's storage from then on.
 */
export function mastraWorkflows() {
  return { threeSteps: mastraThreeSteps(), approval: mastraApproval() };
}

const mastraThreeSteps = () =>
  createWorkflow({
    id: 'three-steps',
    inputSchema: MastraCounter,
    outputSchema: MastraCounter,
  })
    .then(mastraAdd('one'))
    .then(mastraAdd('two'))
    .then(mastraAdd('three'))
    .commit();

const mastraApprovalStep = (id: string, body: (s: ApprovalState) => Partial<ApprovalState>) =>
  createStep({
    id,
    inputSchema: Approval,
    outputSchema: Approval,
    execute: async ({ inputData }) => ({ ...inputData, ...body(inputData) }),
  });

const mastraApproval = () =>
  createWorkflow({
    id: 'approval',
    inputSchema: Approval,
    outputSchema: Approval,
  })
    .then(mastraApprovalStep('prepare', prepare))
    .then(
      createStep({
        id: 'ask',
        inputSchema: Approval,
        outputSchema: Approval,
        resumeSchema: z.object({ approved: z.boolean() }),
        execute: async ({ inputData, resumeData, suspend }) => {
          if (!resumeData) return await suspend({ question: 'approve?', amount: inputData.amount });
          return { ...inputData, approved: resumeData.approved };
        },
      }),
    )
    .then(mastraApprovalStep('finish', finish))
    .commit();

// --- Checks. ---

export function check(ok: boolean, what: string): void {
  if (!ok) throw new Error(`benchmark self-check failed: ${what}`);
}

export function checkThreeSteps(result: unknown): void {
  const state = result as CounterState;
  check(state?.n === 3 && state.steps?.length === 3, `3 steps, got ${JSON.stringify(result)}`);
}

export function checkApproved(result: unknown, amount: number): void {
  const note = (result as ApprovalState)?.note;
  check(note === `amount ${amount} approved`, `approved ${amount}, got ${JSON.stringify(result)}`);
}
