/**
 * Test support: small workflows built the way a user builds them (a zod state, a
 * StateGraph, our interrupt/sleepUntil), shared by the workflow tests.
 */
import { END, START, StateGraph } from '@langchain/langgraph';
import { z } from 'zod';
import { interrupt, sleepUntil, Workflow } from '../../src/index.js';

const Counter = z.object({ n: z.number(), steps: z.array(z.string()).optional() });

/** Three nodes in a line: each adds 1 to `n` and its name to `steps`. */
export function threeSteps(options: { name?: string; durable?: boolean } = {}) {
  const step = (name: string) => (s: z.infer<typeof Counter>) => ({
    n: s.n + 1,
    steps: [...(s.steps ?? []), name],
  });
  return new Workflow({
    name: options.name ?? 'three-steps',
    state: Counter,
    durable: options.durable ?? false,
    graph: (state) =>
      new StateGraph(state)
        .addNode('one', step('one'))
        .addNode('two', step('two'))
        .addNode('three', step('three'))
        .addEdge(START, 'one')
        .addEdge('one', 'two')
        .addEdge('two', 'three')
        .addEdge('three', END),
  });
}

const Approval = z.object({
  amount: z.number(),
  approved: z.boolean().optional(),
  visits: z.number().default(0),
  note: z.string().optional(),
});

/**
 * `prepare` -> `ask` (interrupts with the amount; counts its own runs in `visits` so a test
 * sees it re-run) -> `finish`.
 */
export function approval(options: { name?: string; durable?: boolean } = {}) {
  return new Workflow({
    name: options.name ?? 'approval',
    state: Approval,
    durable: options.durable ?? false,
    graph: (state) =>
      new StateGraph(state)
        .addNode('prepare', (s: z.infer<typeof Approval>) => ({ note: `amount ${s.amount}` }))
        .addNode('ask', (s: z.infer<typeof Approval>) => {
          const answer = interrupt<{ approved: boolean }>({
            question: 'approve?',
            amount: s.amount,
          });
          return { approved: answer.approved, visits: s.visits + 1 };
        })
        .addNode('finish', (s: z.infer<typeof Approval>) => ({
          note: `${s.note} ${s.approved ? 'approved' : 'rejected'}`,
        }))
        .addEdge(START, 'prepare')
        .addEdge('prepare', 'ask')
        .addEdge('ask', 'finish')
        .addEdge('finish', END),
  });
}

const Reminder = z.object({ due: z.string(), reminded: z.boolean().default(false) });

/** Durable: `wait` sleeps until `due`, then `remind` sets `reminded`. */
export function reminder(options: { name?: string } = {}) {
  return new Workflow({
    name: options.name ?? 'reminder',
    state: Reminder,
    durable: true,
    graph: (state) =>
      new StateGraph(state)
        .addNode('wait', (s: z.infer<typeof Reminder>) => {
          sleepUntil(s.due);
          return {};
        })
        .addNode('remind', () => ({ reminded: true }))
        .addEdge(START, 'wait')
        .addEdge('wait', 'remind')
        .addEdge('remind', END),
  });
}
