/**
 * A failed run over HTTP (#41): the 500 of a JSON workflow run, of an answer that failed the
 * run and of a JSON agent turn names the run (`X-Run-Id` and `run_id`, the run recorded), and
 * its body holds neither the message nor the stack, which the server log has; an SSE stream's
 * error frame stays `{"error": "<Type>"}` and its response names the run in `X-Run-Id`.
 */
import { END, START, StateGraph } from '@langchain/langgraph';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { openTestDeck } from '../../../test/support/decks.js';
import { parseSse, postJson } from '../../../test/support/http.js';
import { useScriptedModelServer } from '../../../test/support/model-server.js';
import type { EventOf } from '../../core/events.js';
import type { EventStore } from '../../core/store.js';
import { Agent, interrupt, tool, Workflow } from '../../index.js';

const modelServer = useScriptedModelServer();

const SECRET = 'vault token s3cr3t-77';
const Claim = z.object({ amount: z.number(), approved: z.boolean().optional() });
type Claim = z.infer<typeof Claim>;

function settleClaim(state: Claim): Partial<Claim> {
  throw new Error(`ledger refused ${state.amount} with ${SECRET}`);
}

/** ask (a question), then settle, which always throws. */
const claims = new Workflow({
  name: 'claims',
  state: Claim,
  graph: (state) =>
    new StateGraph(state)
      .addNode('ask', () => ({ approved: interrupt<boolean>({ question: 'approve?' }) }))
      .addNode('settle', settleClaim)
      .addConditionalEdges(START, (s: Claim) => (s.amount > 100 ? 'ask' : 'settle'), [
        'ask',
        'settle',
      ])
      .addEdge('ask', 'settle')
      .addEdge('settle', END),
});

const pay = tool({
  name: 'pay',
  description: 'Pay an amount',
  parameters: z.object({ amount: z.number() }),
  needsApproval: () => {
    throw new Error(`policy store unreachable with ${SECRET}`);
  },
  execute: ({ amount }) => `paid ${amount}`,
});

async function served() {
  const logged: string[] = [];
  const { deck, eventStore } = await openTestDeck({
    workflows: [claims],
    agents: [new Agent({ name: 'Cashier', instructions: 'Pay.', tools: [pay] })],
  });
  return { app: deck.app({ log: (line) => logged.push(line) }), eventStore, logged };
}

/** The run the 500 names, checked against the store; its recorded `run.failed`. */
async function expectNamedFailure(response: Response, eventStore: EventStore) {
  expect(response.status).toBe(500);
  const runId = response.headers.get('x-run-id') ?? '';
  const text = await response.text();
  expect(JSON.parse(text)).toEqual({ detail: 'internal error', run_id: runId });
  expect(text).not.toContain(SECRET);
  expect(text).not.toMatch(/\bat \S/); // no stack frame
  const failed = (await eventStore.read(runId)).at(-1) as EventOf<'run.failed'>;
  expect(failed.kind).toBe('run.failed');
  return { runId, failed: failed.payload };
}

describe('a failed run over HTTP', () => {
  it('a JSON workflow run: 500 naming the run, the stack in the log', async () => {
    const { app, eventStore, logged } = await served();
    const response = await app.request('/workflows/claims', postJson({ amount: 5 }));
    const { runId, failed } = await expectNamedFailure(response, eventStore);
    expect(failed).toMatchObject({ node: 'settle', input: { amount: 5 } });
    const line = logged.find((l) => l.includes(runId)) ?? '';
    expect(line).toContain(`run '${runId}' of 'claims' failed in node 'settle' with Error`);
    expect(line).toMatch(/\n\s+at \S*settleClaim \(.*failed-runs\.test\.ts:\d+:\d+\)/);
  });

  it('an answer that fails the run: 500 naming the answered run', async () => {
    const { app, eventStore, logged } = await served();
    const asked = await app.request('/workflows/claims?thread_id=c-1', postJson({ amount: 500 }));
    expect(asked.status).toBe(200);
    const waiting = asked.headers.get('x-run-id');
    const answered = await app.request('/workflows/claims/c-1/resume', postJson({ value: true }));
    const { runId, failed } = await expectNamedFailure(answered, eventStore);
    expect(runId).toBe(waiting);
    expect(failed).toMatchObject({ node: 'settle', input: { amount: 500, approved: true } });
    expect(logged.join('\n')).toMatch(/settleClaim \(.*failed-runs\.test\.ts/);
    // The same through POST /runs/{run_id}/answer.
    const again = await app.request('/workflows/claims?thread_id=c-2', postJson({ amount: 700 }));
    const second = again.headers.get('x-run-id') ?? '';
    const viaRuns = await app.request(`/runs/${second}/answer`, postJson({ value: false }));
    expect((await expectNamedFailure(viaRuns, eventStore)).runId).toBe(second);
  });

  it('a JSON agent turn ended by a tool: 500 naming the run, the tool and stack in the log', async () => {
    const { app, eventStore, logged } = await served();
    modelServer().push({ toolCalls: [{ name: 'pay', arguments: { amount: 12 } }] });
    const response = await app.request(
      '/agents/Cashier/chat',
      postJson({ session_id: 's-1', message: 'Pay 12' }),
    );
    const { runId, failed } = await expectNamedFailure(response, eventStore);
    expect(failed).toMatchObject({
      errorType: 'ToolCallError',
      tool: 'pay',
      input: { amount: 12 },
    });
    const line = logged.find((l) => l.includes(runId)) ?? '';
    expect(line).toContain("failed in tool 'pay' with ToolCallError");
    expect(line).toMatch(/Caused by: Error: policy store unreachable[\s\S]*failed-runs\.test\.ts/);
  });

  it('a stream: the error frame is the type alone, and the response names the run', async () => {
    const { app, eventStore } = await served();
    const response = await app.request('/workflows/claims?stream=true', postJson({ amount: 5 }));
    expect(response.status).toBe(200);
    const runId = response.headers.get('x-run-id') ?? '';
    expect(parseSse(await response.text())).toEqual([{ event: 'error', data: { error: 'Error' } }]);
    expect((await eventStore.read(runId)).at(-1)?.kind).toBe('run.failed');
  });
});
