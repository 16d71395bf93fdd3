/**
 * A human-approval workflow with a timer: an expense above 100 EUR waits for a manager's
 * answer (`interrupt`, whose answer must be `{ approved: boolean }`); once approved, payment is scheduled `payInSeconds` later
 * (`sleepUntil`: a served deck wakes it at its time; an embedded one on `deck.tick()`), then
 * marked paid.
 */
import { END, START, StateGraph } from '@langchain/langgraph';
import { interrupt, sleepUntil, Workflow } from 'agentdeck';
import { z } from 'zod';

const Expense = z.object({
  employee: z.string(),
  amount: z.number().positive(),
  payInSeconds: z.number().nonnegative().default(60),
  approved: z.boolean().optional(),
  payAt: z.string().optional(),
  paid: z.boolean().optional(),
});
type Expense = z.infer<typeof Expense>;

const Decision = z.object({ approved: z.boolean().describe('Pay the expense?') });

export default new Workflow({
  name: 'expense-approval',
  state: Expense,
  durable: true,
  graph: (state) =>
    new StateGraph(state)
      .addNode('approve', (s: Expense) => {
        if (s.amount <= 100) return { approved: true };
        // Runs again when the answer comes: nothing above this line has side effects. The
        // answer's shape is checked (a 422 names a wrong field) and the inbox shows it as a form.
        const answer = interrupt<{ approved: boolean }>(
          { question: `Approve ${s.amount} EUR for ${s.employee}?` },
          { answer: Decision },
        );
        return { approved: answer.approved };
      })
      .addNode('schedule', (s: Expense) => ({
        payAt: new Date(Date.now() + s.payInSeconds * 1000).toISOString(),
      }))
      .addNode('pay', (s: Expense) => {
        sleepUntil(s.payAt as string);
        return { paid: true };
      })
      .addEdge(START, 'approve')
      // The path map names where the branch may go: without it LangGraph cannot know, and the
      // studio would draw an edge to every node.
      .addConditionalEdges('approve', (s: Expense) => (s.approved ? 'schedule' : END), [
        'schedule',
        END,
      ])
      .addEdge('schedule', 'pay')
      .addEdge('pay', END),
});
