/**
 * Answers with a shape (#41): `interrupt(payload, { answer })` with a zod schema or a JSON
 * Schema object, and a tool's `approvalReason`. The schema is recorded on `run.interrupted`
 * and listed by `pending()` and `GET /pending`; a malformed answer is refused naming the field
 * (InvalidInputError embedded, 422 over `POST /runs/{id}/answer` and
 * `POST /workflows/{name}/{thread}/resume`), nothing is recorded, and the run still waits and
 * takes a good answer afterwards; MCP's `answer_run` too (it answers through `deck.answer`).
 * `GET /workflows/{name}/pending` keeps its 1.2.1 body.
 */
import { END, START, StateGraph } from '@langchain/langgraph';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { openTestDeck, testDeck } from '../../test/support/decks.js';
import { postJson } from '../../test/support/http.js';
import { useScriptedModelServer } from '../../test/support/model-server.js';
import { toWire } from '../core/events.js';
import { Agent, InterruptResult, InvalidInputError, interrupt, tool, Workflow } from '../index.js';
import { serve } from '../surfaces/http/serve.js';

const modelServer = useScriptedModelServer();

const Expense = z.object({
  amount: z.number(),
  approved: z.boolean().optional(),
  paid: z.number().optional(),
  note: z.string().optional(),
});

const Decision = z.object({
  approved: z.boolean(),
  amount: z.number(),
  note: z.string().optional(),
});

/** The JSON Schema form of {@link Decision}, as an author without zod writes it. */
const DECISION_JSON = {
  type: 'object',
  properties: {
    approved: { type: 'boolean' },
    amount: { type: 'number' },
    note: { type: 'string' },
  },
  required: ['approved', 'amount'],
};

function expense(name: string, answer: z.ZodType | Record<string, unknown>) {
  return new Workflow({
    name,
    state: Expense,
    graph: (state) =>
      new StateGraph(state)
        .addNode('ask', (s: z.infer<typeof Expense>) => {
          const decision = interrupt<z.infer<typeof Decision>>(
            { question: 'Pay this expense?', amount: s.amount },
            { answer },
          );
          return { approved: decision.approved, paid: decision.amount, note: decision.note ?? '' };
        })
        .addEdge(START, 'ask')
        .addEdge('ask', END),
  });
}

const paid: string[] = [];
const pay = tool({
  name: 'pay',
  description: 'Pay an invoice',
  parameters: z.object({ invoice: z.string() }),
  needsApproval: true,
  approvalReason: z.object({ code: z.enum(['too_expensive', 'wrong_vendor']), note: z.string() }),
  execute: ({ invoice }) => {
    paid.push(invoice);
    return `paid ${invoice}`;
  },
});

async function shapedDeck() {
  const workflows = [expense('expense', Decision), expense('expense-json', DECISION_JSON)];
  const payer = new Agent({ name: 'Payer', tools: [pay] });
  const made = await openTestDeck({ workflows, agents: [payer] });
  return { ...made, app: made.deck.app() };
}

describe.each([
  ['a zod schema', 'expense'],
  ['a JSON Schema object', 'expense-json'],
])('interrupt(payload, { answer }) with %s', (_label, name) => {
  it('records the schema, refuses a malformed answer on every surface, then takes a good one', async () => {
    const { deck, eventStore, app } = await shapedDeck();
    const first = await deck.run(name, { amount: 120 }, { sessionId: `t-${name}` });
    expect(first).toBeInstanceOf(InterruptResult);
    const { runId } = first as InterruptResult;
    if (runId === null) throw new Error('the run has an id');
    expect((first as InterruptResult).answerSchema).toEqual(DECISION_JSON);

    const events = await eventStore.read(runId);
    const asked = events.at(-1);
    expect(asked?.kind).toBe('run.interrupted');
    if (asked) expect(toWire(asked).payload).toMatchObject({ answer_schema: DECISION_JSON });
    const [item] = await deck.pending();
    expect(item).toMatchObject({ runId, payload: { amount: 120 }, answerSchema: DECISION_JSON });

    // Embedded: the field is named, and nothing is recorded.
    const refused = deck.answer(runId, { approved: true, amount: '120' });
    await expect(refused).rejects.toThrow(InvalidInputError);
    await expect(refused).rejects.toThrow(/answer\.amount: expected number, got string/);
    await expect(deck.answer(runId, { amount: 120 })).rejects.toThrow(
      /answer\.approved: missing \(expected boolean\)/,
    );
    await expect(deck.answer(runId, 'yes')).rejects.toThrow(/answer: expected object, got string/);

    // Over HTTP: both answer routes are a 422 naming the field.
    const byRun = await app.request(
      `/runs/${runId}/answer`,
      postJson({ value: { approved: 'yes', amount: 120 } }),
    );
    expect(byRun.status).toBe(422);
    expect(((await byRun.json()) as { detail: string }).detail).toMatch(
      /answer\.approved: expected boolean, got string/,
    );
    const byThread = await app.request(
      `/workflows/${name}/t-${name}/resume`,
      postJson({ value: { approved: true, amount: null } }),
    );
    expect(byThread.status).toBe(422);
    expect(((await byThread.json()) as { detail: string }).detail).toMatch(
      /answer\.amount: expected number, got null/,
    );

    // The inbox carries the schema; the 1.2.1 route keeps its exact body.
    const inbox = (await (await app.request('/pending')).json()) as { items: unknown[] };
    expect(inbox.items).toEqual([expect.objectContaining({ answer_schema: DECISION_JSON })]);
    const legacy = await (await app.request(`/workflows/${name}/pending`)).json();
    expect(legacy).toEqual([
      {
        type: 'interrupt',
        payload: { question: 'Pay this expense?', amount: 120 },
        thread_id: `t-${name}`,
      },
    ]);

    // Still waiting, nothing recorded by the refusals, and a good answer goes through.
    expect(await deck.status(runId)).toBe('waiting_human');
    expect(await eventStore.read(runId)).toHaveLength(events.length);
    const answered = await app.request(
      `/runs/${runId}/answer`,
      postJson({ value: { approved: true, amount: 100, note: 'capped' } }),
    );
    expect(answered.status).toBe(200);
    expect(await answered.json()).toMatchObject({
      status: 'completed',
      result: { amount: 120, approved: true, paid: 100, note: 'capped' },
    });
  });
});

describe('interrupt answer schemas that cannot be used', () => {
  it('fails the run naming interrupt() when the JSON Schema cannot check anything', async () => {
    const { deck } = await openTestDeck({ workflows: [expense('broken', { type: 'money' })] });
    await expect(deck.run('broken', { amount: 1 })).rejects.toThrow(
      /interrupt\(payload, \{ answer \}\): the JSON Schema cannot be used/,
    );
  });

  it('refuses a tool whose approvalReason is neither zod nor JSON Schema', () => {
    const bad = () =>
      tool({
        name: 'bad',
        description: 'bad',
        parameters: z.object({}),
        approvalReason: 'a reason' as never,
        execute: () => 'done',
      });
    expect(bad).toThrow(
      /tool 'bad': approvalReason: expected a zod schema or a JSON Schema object/,
    );
  });

  it('checks a headless resume too', async () => {
    const workflow = expense('headless', Decision);
    const first = (await workflow.run({ amount: 5 }, { threadId: 'h-1' })) as InterruptResult;
    expect(first.answerSchema).toEqual(DECISION_JSON);
    await expect(workflow.resume('h-1', { approved: 1, amount: 5 })).rejects.toThrow(
      /answer\.approved: expected boolean, got number/,
    );
    expect(await workflow.resume('h-1', { approved: false, amount: 0 })).toMatchObject({
      approved: false,
      paid: 0,
    });
  });
});

describe('a tool approval with a reason schema', () => {
  it('records the schema, refuses a rejection without a matching reason, then tells the model the reason', async () => {
    paid.length = 0;
    const { deck, eventStore, app } = await shapedDeck();
    const server = modelServer();
    server.push(
      { toolCalls: [{ name: 'pay', arguments: { invoice: 'INV-7' } }] },
      { text: 'Not paid.' },
    );
    const first = await deck.run('Payer', 'Pay INV-7', { sessionId: 'pay-1' });
    const runId = first.runId;
    const reasonSchema = {
      type: 'object',
      properties: {
        code: { type: 'string', enum: ['too_expensive', 'wrong_vendor'] },
        note: { type: 'string' },
      },
      required: ['code', 'note'],
    };
    expect(first.interrupt?.answerSchema).toEqual(reasonSchema);
    const [item] = await deck.pending();
    expect(item).toMatchObject({ reason: 'approval', answerSchema: reasonSchema });
    const callId = (item?.payload as { call_id?: string } | undefined)?.call_id;
    const before = (await eventStore.read(runId)).length;

    await expect(deck.answer(runId, { approved: false, call_id: callId })).rejects.toThrow(
      /answer\.reason: missing \(expected object\)/,
    );
    const http = await app.request(
      `/runs/${runId}/answer`,
      postJson({ value: { approved: false, reason: { code: 'too_cheap', note: 'x' } } }),
    );
    expect(http.status).toBe(422);
    expect(((await http.json()) as { detail: string }).detail).toMatch(
      /answer\.reason\.code: expected one of "too_expensive", "wrong_vendor", got "too_cheap"/,
    );
    expect(await deck.status(runId)).toBe('waiting_human');
    expect(await eventStore.read(runId)).toHaveLength(before);

    const reason = { code: 'wrong_vendor', note: 'not ours' };
    const done = await deck.answer(runId, { approved: false, reason, call_id: callId });
    expect(done).toMatchObject({ output: 'Not paid.' });
    expect(paid).toEqual([]);
    const told = JSON.stringify(server.requests.at(-1)?.body);
    expect(told).toContain('wrong_vendor');
    const resumed = (await eventStore.read(runId)).find((e) => e.kind === 'run.resumed');
    expect(resumed?.payload).toMatchObject({
      answer: { approved: false, reason: JSON.stringify(reason) },
    });
  });
});

describe('answer_run, the MCP surface', () => {
  it('is refused naming the field, through deck.answer, and the run still waits', async () => {
    const { deck } = testDeck({ workflows: [expense('expense', Decision)] });
    await using server = await serve(deck, { host: '127.0.0.1', port: 0, handleSignals: false });
    const first = (await deck.run(
      'expense',
      { amount: 7 },
      { sessionId: 'mcp-1' },
    )) as InterruptResult;
    const client = new Client({ name: 'shaped-answers', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL('/mcp', server.url)));
    try {
      const listed = await client.callTool({ name: 'list_pending', arguments: {} });
      expect(JSON.stringify(listed.structuredContent)).toContain('"answer_schema"');
      const refused = await client
        .callTool({
          name: 'answer_run',
          arguments: { run_id: first.runId, value: { approved: true, amount: 'seven' } },
        })
        .then(
          (result) => JSON.stringify(result.content),
          (error: Error) => error.message,
        );
      expect(refused).toMatch(/answer\.amount: expected number, got string/);
      expect(await deck.status(first.runId ?? '')).toBe('waiting_human');
    } finally {
      await client.close();
    }
  });
});
