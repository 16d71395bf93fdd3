/**
 * Agents calling other invocables: a workflow of the same deck listed as a tool (its run
 * recorded as its own run, linked to the turn) and `agent.asTool()` (headless, nothing
 * recorded); and the build() checks on workflow tools.
 */
import { END, START, StateGraph } from '@langchain/langgraph';
import { describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import { openTestDeck, testDeck } from '../../test/support/decks.js';
import { Agent, interrupt, Workflow, withContext } from '../index.js';
import { ScriptedModel } from '../testing/index.js';

const Order = z.object({
  item: z.string(),
  quantity: z.number(),
  total: z.number().optional(),
});

function pricing(options: { durable?: boolean } = {}) {
  return new Workflow({
    name: 'priceOrder',
    state: Order,
    ...options,
    graph: (state) =>
      new StateGraph(state)
        .addNode('price', (s: z.infer<typeof Order>) => ({ total: s.quantity * 2.5 }))
        .addEdge(START, 'price')
        .addEdge('price', END),
  });
}

describe('workflows as tools', () => {
  it('runs the workflow as its own recorded run, linked to the turn, and returns its final state', async () => {
    const workflow = pricing();
    const model = new ScriptedModel([
      { toolCalls: [{ name: 'price_order', arguments: { item: 'pens', quantity: 4 } }] },
      { text: '4 pens cost 10.' },
    ]);
    const clerk = new Agent({ name: 'Clerk', model, tools: [workflow] });
    const { deck, eventStore } = await openTestDeck({ agents: [clerk], workflows: [workflow] });
    const result = await deck.run('Clerk', 'Price 4 pens');
    expect(result.output).toBe('4 pens cost 10.');

    const tools = (model.calls[0]?.tools ?? []) as Array<{ name: string; parameters?: unknown }>;
    expect(tools.map((t) => t.name)).toEqual(['price_order']);
    expect(JSON.stringify(tools[0])).toContain('quantity');

    const turn = await eventStore.read(result.runId);
    const completed = turn.find((e) => e.kind === 'tool.call.completed');
    expect(completed?.payload).toMatchObject({
      name: 'price_order',
      output: JSON.stringify({ item: 'pens', quantity: 4, total: 10 }),
      error: null,
    });
    const runs = await eventStore.listRuns();
    const child = runs.find((r) => r.origin === 'priceOrder');
    expect(child?.status).toBe('completed');
    const childEvents = await eventStore.read(child?.runId as string);
    expect(childEvents[0]).toMatchObject({
      kind: 'run.started',
      payload: { invocableType: 'workflow', parentRunId: result.runId },
    });
    expect(childEvents.at(-1)?.kind).toBe('run.completed');
  });

  it('passes the turn context on to the workflow run by reference', async () => {
    class Ledger {
      readonly entries: string[] = [];
    }
    const State = z.object({ note: z.string() });
    const record = new Workflow({
      name: 'record',
      state: State,
      graph: (state) =>
        new StateGraph(state)
          .addNode(
            'write',
            withContext(Ledger, (s: z.infer<typeof State>, ctx) => {
              ctx.data.entries.push(s.note);
              return {};
            }),
          )
          .addEdge(START, 'write')
          .addEdge('write', END),
    });
    const model = new ScriptedModel([
      { toolCalls: [{ name: 'record', arguments: { note: 'paid' } }] },
      { text: 'Recorded.' },
    ]);
    const { deck } = await openTestDeck({
      context: Ledger,
      agents: [new Agent({ name: 'Bookkeeper', model, tools: [record] })],
      workflows: [record],
    });
    const ledger = new Ledger();
    await deck.run('Bookkeeper', 'Record the payment', { context: ledger });
    expect(ledger.entries).toEqual(['paid']);
  });

  it('returns a workflow failure to the model as a tool error, and the child run is failed', async () => {
    const failing = new Workflow({
      name: 'explode',
      state: z.object({ why: z.string() }),
      graph: (state) =>
        new StateGraph(state)
          .addNode('boom', () => {
            throw new Error('out of stock');
          })
          .addEdge(START, 'boom')
          .addEdge('boom', END),
    });
    const model = new ScriptedModel([
      { toolCalls: [{ name: 'explode', arguments: { why: 'test' } }] },
      { text: 'It failed.' },
    ]);
    const { deck, eventStore } = await openTestDeck({
      agents: [new Agent({ name: 'A', model, tools: [failing] })],
      workflows: [failing],
    });
    const result = await deck.run('A', 'go');
    expect(result.output).toBe('It failed.');
    const completed = (await eventStore.read(result.runId)).find(
      (e) => e.kind === 'tool.call.completed',
    );
    expect(completed?.payload).toMatchObject({
      name: 'explode',
      output: null,
      error: 'out of stock',
    });
    const child = (await eventStore.listRuns()).find((r) => r.origin === 'explode');
    expect(child?.status).toBe('failed');
  });

  it('cancels the workflow run when the turn that called it stops', async () => {
    let nodeSignal: AbortSignal | undefined;
    const slow = new Workflow({
      name: 'slow',
      state: z.object({ n: z.number() }),
      graph: (state) =>
        new StateGraph(state)
          .addNode('wait', async (s: { n: number }, config?: { signal?: AbortSignal }) => {
            nodeSignal = config?.signal;
            await new Promise((resolve) => setTimeout(resolve, 5_000));
            return { n: s.n + 1 };
          })
          .addEdge(START, 'wait')
          .addEdge('wait', END),
    });
    const model = new ScriptedModel([{ toolCalls: [{ name: 'slow', arguments: { n: 1 } }] }]);
    const { deck, eventStore } = await openTestDeck({
      agents: [new Agent({ name: 'A', model, tools: [slow] })],
      workflows: [slow],
    });
    const started = Date.now();
    for await (const event of deck.stream('A', 'go')) {
      if (event.kind === 'tool.call.started') {
        await new Promise((resolve) => setTimeout(resolve, 100)); // the child is running
        break;
      }
    }
    await vi.waitFor(async () => {
      const child = (await eventStore.listRuns()).find((r) => r.origin === 'slow');
      expect(child?.status).toBe('cancelled');
    });
    expect(Date.now() - started).toBeLessThan(2_500);
    expect(nodeSignal?.aborted).toBe(true);
    const child = (await eventStore.listRuns()).find((r) => r.origin === 'slow');
    const last = (await eventStore.read(child?.runId as string)).at(-1);
    expect(last?.kind).toBe('run.cancelled');
    expect(JSON.stringify(last?.payload)).toContain('that called it stopped');
  });

  it('hands the model an interrupt with the run id to answer', async () => {
    const ask = new Workflow({
      name: 'ask',
      state: z.object({ q: z.string(), a: z.string().optional() }),
      graph: (state) =>
        new StateGraph(state)
          .addNode('ask', (s: { q: string }) => ({ a: interrupt<string>({ question: s.q }) }))
          .addEdge(START, 'ask')
          .addEdge('ask', END),
    });
    const model = new ScriptedModel([
      { toolCalls: [{ name: 'ask', arguments: { q: 'ok?' } }] },
      { text: 'Waiting for a person.' },
    ]);
    const { deck, eventStore } = await openTestDeck({
      agents: [new Agent({ name: 'A', model, tools: [ask] })],
      workflows: [ask],
    });
    const result = await deck.run('A', 'go');
    const [pending] = await deck.pending();
    const completed = (await eventStore.read(result.runId)).find(
      (e) => e.kind === 'tool.call.completed',
    );
    expect(JSON.parse(completed?.payload.output as string)).toMatchObject({
      type: 'interrupt',
      payload: { question: 'ok?' },
      run_id: pending?.runId,
    });
    expect(await deck.answer(pending?.runId as string, 'yes')).toEqual({ q: 'ok?', a: 'yes' });
  });

  it('fails build() on a workflow the deck does not have, or a durable one', () => {
    const workflow = pricing();
    const unknown = testDeck({ agents: [new Agent({ name: 'Clerk', tools: [workflow] })] });
    expect(() => unknown.deck.build()).toThrow(
      "invalid catalog: agent 'Clerk' lists workflow 'priceOrder' as a tool, but the deck has no workflow of that name; add it to the deck's workflows. Available: none",
    );
    unknown.deck.close();
    const durable = pricing({ durable: true });
    const { deck } = testDeck({
      agents: [new Agent({ name: 'Clerk', tools: [durable] })],
      workflows: [durable],
    });
    expect(() => deck.build()).toThrow(
      "invalid catalog: agent 'Clerk' lists workflow 'priceOrder' as a tool, but it is durable: a tool call has no thread to come back to. Use a non-durable workflow, or run it with deck.run()",
    );
  });
});

describe('agent.asTool()', () => {
  it('runs the wrapped agent headless: its answer reaches the caller, nothing of it is recorded', async () => {
    const researcherModel = new ScriptedModel([{ text: 'Paris is the capital of France.' }]);
    const researcher = new Agent({ name: 'Researcher', model: researcherModel });
    const leadModel = new ScriptedModel([
      { toolCalls: [{ name: 'researcher', arguments: { input: 'Capital of France?' } }] },
      { text: 'Paris.' },
    ]);
    const lead = new Agent({
      name: 'Lead',
      model: leadModel,
      tools: [researcher.asTool({ description: 'Ask the researcher a question' })],
    });
    const { deck, eventStore } = await openTestDeck({ agents: [lead] });
    const result = await deck.run('Lead', 'What is the capital of France?');
    expect(result.output).toBe('Paris.');
    expect(researcherModel.calls[0]?.input).toEqual(
      expect.arrayContaining([expect.objectContaining({ content: 'Capital of France?' })]),
    );
    const completed = (await eventStore.read(result.runId)).find(
      (e) => e.kind === 'tool.call.completed',
    );
    expect(completed?.payload).toMatchObject({
      name: 'researcher',
      output: 'Paris is the capital of France.',
    });
    expect((await eventStore.listRuns()).map((r) => r.origin)).toEqual(['Lead']);
    researcherModel.assertConsumed();
  });

  it("records a failure of the wrapped agent as the tool call's error", async () => {
    const researcher = new Agent({
      name: 'Researcher',
      model: new ScriptedModel([{ error: 'model overloaded' }]),
    });
    const leadModel = new ScriptedModel([
      { toolCalls: [{ name: 'researcher', arguments: { input: 'anything' } }] },
      { text: 'It failed.' },
    ]);
    const lead = new Agent({ name: 'Lead', model: leadModel, tools: [researcher.asTool()] });
    const { deck, eventStore } = await openTestDeck({ agents: [lead] });
    const result = await deck.run('Lead', 'go');
    const completed = (await eventStore.read(result.runId)).find(
      (e) => e.kind === 'tool.call.completed',
    );
    expect(completed?.payload).toMatchObject({ name: 'researcher', output: null });
    expect(JSON.stringify(completed?.payload)).toContain('model overloaded');
  });
});
