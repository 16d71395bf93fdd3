/**
 * A workflow whose state is a LangGraph `StateSchema` (issue 22: LangGraph checks its updates
 * field by field, about 30% less CPU per run than a zod object), through a deck on SQLite:
 * runs, a reducer field, interrupts answered from the durable thread, initial states checked
 * before anything is recorded (HTTP 422 naming the field), a node's invalid update failing the
 * run, and the state's JSON schema in the catalog and in the workflow's tool for a model.
 */
import { END, ReducedValue, START, StateGraph, StateSchema } from '@langchain/langgraph';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { openTestDeck } from '../../test/support/decks.js';
import { tempStateFile } from '../../test/support/sqlite-files.js';
import { Agent, InterruptResult, InvalidInputError, interrupt, Workflow } from '../index.js';
import { ScriptedModel } from '../testing/index.js';

const Order = new StateSchema({
  amount: z.number().positive(),
  approved: z.boolean().optional(),
  log: new ReducedValue(
    z.array(z.string()).default(() => []),
    {
      inputSchema: z.string(),
      reducer: (all: string[], line: string) => [...all, line],
    },
  ),
});

const approval = new Workflow({
  name: 'approval',
  state: Order,
  durable: true,
  graph: (state) =>
    new StateGraph(state)
      .addNode('prepare', (s: { amount: number }) => ({ log: `amount ${s.amount}` }))
      .addNode('ask', () => ({ approved: interrupt<boolean>({ question: 'approve?' }) }))
      .addNode('finish', (s: { approved?: boolean }) => ({
        log: s.approved ? 'approved' : 'rejected',
      }))
      .addEdge(START, 'prepare')
      .addEdge('prepare', 'ask')
      .addEdge('ask', 'finish')
      .addEdge('finish', END),
});

const broken = new Workflow({
  name: 'broken',
  state: new StateSchema({ n: z.number() }),
  graph: (state) =>
    new StateGraph(state)
      // A node returning what its types did not promise (parsed JSON, say).
      .addNode('bad', () => JSON.parse('{"n": "not a number"}') as { n: number })
      .addEdge(START, 'bad')
      .addEdge('bad', END),
});

async function openDeck() {
  const file = tempStateFile('state-schema');
  return openTestDeck({
    workflows: [approval, broken],
    checkpoints: `sqlite://${file}`,
  });
}

describe('a workflow whose state is a LangGraph StateSchema', () => {
  it('runs to its interrupt, is answered from the durable thread, and reduces its log', async () => {
    const { deck } = await openDeck();
    const paused = await deck.run('approval', { amount: 40 }, { sessionId: 't1' });
    expect(paused).toBeInstanceOf(InterruptResult);
    expect((paused as InterruptResult).payload).toEqual({ question: 'approve?' });
    const done = await deck.answer((paused as InterruptResult).runId as string, true);
    expect(done).toEqual({ amount: 40, approved: true, log: ['amount 40', 'approved'] });
  });

  it('refuses an invalid initial state before anything is recorded, naming the field', async () => {
    const { deck, eventStore } = await openDeck();
    await expect(deck.run('approval', { amount: -5 }, { sessionId: 't2' })).rejects.toThrow(
      InvalidInputError,
    );
    await expect(deck.run('approval', { amount: 'ten' }, { sessionId: 't2' })).rejects.toThrow(
      /invalid initial state for workflow 'approval': amount: /,
    );
    await expect(deck.run('approval', { log: 7 }, { sessionId: 't2' })).rejects.toThrow(/log: /);
    expect((await eventStore.listRuns({ limit: 10 })).length).toBe(0);

    const response = await deck.app().request('/workflows/approval?thread_id=t3', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ amount: 'ten' }),
    });
    expect(response.status).toBe(422);
    expect(await response.text()).toMatch(/amount: /);
  });

  it("fails the run when a node's update is invalid for its field", async () => {
    const { deck, eventStore } = await openDeck();
    await expect(deck.run('broken', {})).rejects.toThrow(/Validation failed for field "n"/);
    const [run] = await eventStore.listRuns({ limit: 1 });
    expect(run?.status).toBe('failed');
  });

  it("describes the state's JSON schema in the catalog", async () => {
    const { deck } = await openDeck();
    const response = await deck.app().request('/catalog');
    const catalog = (await response.json()) as {
      workflows: Array<{ name: string; state_schema: Record<string, unknown> }>;
    };
    const schema = catalog.workflows.find((w) => w.name === 'approval')?.state_schema;
    expect(schema).toMatchObject({
      type: 'object',
      properties: { amount: { type: 'number' }, approved: { type: 'boolean' } },
      required: ['amount'],
    });
  });

  it("gives a model the state's JSON schema as the workflow tool's parameters", async () => {
    const pricing = new Workflow({
      name: 'priceOrder',
      state: new StateSchema({ quantity: z.number(), total: z.number().optional() }),
      graph: (state) =>
        new StateGraph(state)
          .addNode('price', (s: { quantity: number }) => ({ total: s.quantity * 2.5 }))
          .addEdge(START, 'price')
          .addEdge('price', END),
    });
    const model = new ScriptedModel([
      { toolCalls: [{ name: 'price_order', arguments: { quantity: 4 } }] },
      { text: '4 cost 10.' },
    ]);
    const clerk = new Agent({ name: 'Clerk', model, tools: [pricing] });
    const { deck } = await openTestDeck({ agents: [clerk], workflows: [pricing] });
    expect((await deck.run('Clerk', 'Price 4')).output).toBe('4 cost 10.');
    const [tool] = (model.calls[0]?.tools ?? []) as Array<{ parameters?: unknown }>;
    expect(tool?.parameters).toMatchObject({
      type: 'object',
      properties: { quantity: { type: 'number' }, total: { type: 'number' } },
      additionalProperties: true,
    });
  });
});
