/**
 * The graph the catalog describes (`graphShapeOf`, what the studio draws): LangGraph's nodes
 * and edges, with a conditional edge's targets taken from its path map, and those LangGraph
 * only guesses (a conditional edge without a path map, drawn to every node) marked `guessed`.
 */
import { END, START, StateGraph } from '@langchain/langgraph';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { Workflow } from '../../authoring/workflow.js';
import { graphShapeOf } from './describe.js';

const Expense = z.object({ amount: z.number(), approved: z.boolean().optional() });
type Expense = z.infer<typeof Expense>;

/** The example project's expense workflow, its branch given `targets` as a path map or none. */
const expense = (targets?: ('schedule' | typeof END)[]) =>
  new Workflow({
    name: 'expense',
    state: Expense,
    graph: (state) => {
      const route = (s: Expense) => (s.approved ? 'schedule' : END);
      const graph = new StateGraph(state)
        .addNode('approve', () => ({ approved: true }))
        .addNode('schedule', () => ({}))
        .addNode('pay', () => ({}))
        .addEdge(START, 'approve')
        .addEdge('schedule', 'pay')
        .addEdge('pay', END);
      return targets
        ? graph.addConditionalEdges('approve', route, targets)
        : graph.addConditionalEdges('approve', route);
    },
  });

const fromApprove = async (workflow: Workflow) =>
  (await graphShapeOf(workflow)).edges
    .filter((edge) => edge.source === 'approve')
    .map(({ target, conditional, guessed }) => ({ target, conditional, guessed }))
    .sort((a, b) => a.target.localeCompare(b.target));

describe('graphShapeOf', () => {
  it("draws a conditional edge's targets from its path map, none guessed", async () => {
    expect(await fromApprove(expense(['schedule', END]))).toEqual([
      { target: '__end__', conditional: true, guessed: false },
      { target: 'schedule', conditional: true, guessed: false },
    ]);
    const shape = await graphShapeOf(expense(['schedule', END]));
    expect(shape.edges.filter((edge) => !edge.conditional)).toHaveLength(3);
    expect(shape.edges.every((edge) => !edge.guessed)).toBe(true);
  });

  it('marks as guessed the targets of a conditional edge without a path map (pay included)', async () => {
    expect(await fromApprove(expense())).toEqual([
      { target: '__end__', conditional: true, guessed: true },
      { target: 'pay', conditional: true, guessed: true },
      { target: 'schedule', conditional: true, guessed: true },
    ]);
    const plain = (await graphShapeOf(expense())).edges.filter((edge) => !edge.conditional);
    expect(plain.every((edge) => !edge.guessed)).toBe(true);
  });
});
