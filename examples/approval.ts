/**
 * Human in the loop: a durable expense-approval workflow. The first run stops at the
 * `approve` node and returns an InterruptResult; `deck.pending()` lists it; `deck.answer()`
 * continues it (the `approve` node re-runs and `interrupt()` returns the answer). A second
 * thread sleeps until a time with `sleepUntil()` and is woken by `deck.tick()`.
 *
 * Threads and events are kept in ./.agentdeck/state.db, so the pause survives a restart:
 * run it twice with `-- --pause-only` first to answer in a second process.
 *
 *   npm run example:approval
 */
import { END, START, StateGraph } from '@langchain/langgraph';
import { z } from 'zod';
import { Deck, InterruptResult, interrupt, sleepUntil, Workflow } from '../src/index.js';

const Expense = z.object({
  employee: z.string(),
  amount: z.number(),
  approved: z.boolean().optional(),
  paidAt: z.string().optional(),
});
type Expense = z.infer<typeof Expense>;

const expenses = new Workflow({
  name: 'expenses',
  state: Expense,
  durable: true,
  graph: (state) =>
    new StateGraph(state)
      .addNode('approve', (s: Expense) => {
        if (s.amount < 100) return { approved: true };
        // Everything above runs again when the answer comes: keep it free of side effects.
        const answer = interrupt<{ approved: boolean }>({
          question: `Approve ${s.amount} EUR for ${s.employee}?`,
        });
        return { approved: answer.approved };
      })
      .addNode('pay', (s: Expense) => ({ paidAt: s.approved ? new Date().toISOString() : 'never' }))
      .addEdge(START, 'approve')
      .addEdge('approve', 'pay')
      .addEdge('pay', END),
});

const Reminder = z.object({ at: z.string(), sent: z.boolean().optional() });
const reminders = new Workflow({
  name: 'reminders',
  state: Reminder,
  durable: true,
  graph: (state) =>
    new StateGraph(state)
      .addNode('wait', (s: z.infer<typeof Reminder>) => {
        sleepUntil(s.at);
        return {};
      })
      .addNode('send', () => ({ sent: true }))
      .addEdge(START, 'wait')
      .addEdge('wait', 'send')
      .addEdge('send', END),
});

const pauseOnly = process.argv.includes('--pause-only');
await using deck = await new Deck({ name: 'approvals', workflows: [expenses, reminders] }).open();

const waiting = await deck.pending();
if (waiting.length === 0) {
  const thread = `expense-${Date.now()}`;
  const result = await deck.run(
    'expenses',
    { employee: 'Ada', amount: 420 },
    { sessionId: thread },
  );
  if (result instanceof InterruptResult) {
    console.log(`paused on thread ${result.threadId}: ${JSON.stringify(result.payload)}`);
  }
  if (pauseOnly) {
    console.log('stopping here; run the example again to answer from a new process');
    process.exit(0);
  }
}

for (const item of await deck.pending()) {
  console.log(
    `pending: run ${item.runId} of '${item.invocable}' asks ${JSON.stringify(item.payload)}`,
  );
  const final = await deck.answer(item.runId, { approved: true });
  console.log('answered; final state:', final);
}

const at = new Date(Date.now() + 1_000).toISOString();
await deck.run('reminders', { at }, { sessionId: `reminder-${Date.now()}` });
console.log(
  'due now:',
  (await deck.dueResumes()).length,
  '| due in 2 s:',
  (await deck.dueResumes(new Date(Date.now() + 2_000))).length,
);
const woken = await deck.tick(new Date(Date.now() + 2_000));
console.log(
  'tick woke:',
  woken.map((w) => ({ thread: w.threadId, result: w.result })),
);
