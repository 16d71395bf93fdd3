/**
 * Failures that explain themselves (#41), through the deck and the real engines: a workflow
 * node that throws records the node, the state it was given and a stack naming the node's
 * file, on a thread or not; an agent turn ended by a tool (its approval policy threw, or the
 * model called a tool the agent does not have, a workflow tool whose child run failed on its
 * context) names the tool and the call's arguments, over the real OpenAI client path (the
 * scripted model server).
 */
import { END, START, StateGraph } from '@langchain/langgraph';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { openTestDeck } from '../../test/support/decks.js';
import { useScriptedModelServer } from '../../test/support/model-server.js';
import type { EventOf } from '../core/events.js';
import { Agent, tool, typeParameter, Workflow, withContext } from '../index.js';

const modelServer = useScriptedModelServer();

const Order = z.object({ amount: z.number(), loaded: z.boolean().optional() });
type Order = z.infer<typeof Order>;

async function verifyAmount(state: Order): Promise<Partial<Order>> {
  await Promise.resolve();
  if (state.amount < 0) throw new RangeError(`amount ${state.amount} is negative`);
  return {};
}

/** load, then verify: verify throws (after an await) for a negative amount. */
const checkOrder = new Workflow({
  name: 'check-order',
  state: Order,
  graph: (state) =>
    new StateGraph(state)
      .addNode('load', () => ({ loaded: true }))
      .addNode('verify', verifyAmount)
      .addEdge(START, 'load')
      .addEdge('load', 'verify')
      .addEdge('verify', END),
});

async function failedEvent(read: (runId: string) => Promise<unknown[]>, runId: string) {
  const last = (await read(runId)).at(-1) as EventOf<'run.failed'>;
  expect(last.kind).toBe('run.failed');
  return last.payload;
}

describe('a workflow run failed by a node', () => {
  it.each([
    ['without a thread', {}],
    ['on a thread', { sessionId: 'orders-7' }],
  ])('records the node, its input state and a stack naming its file, %s', async (_how, thread) => {
    const { deck, eventStore } = await openTestDeck({ workflows: [checkOrder] });
    const runId = `r-node-${'sessionId' in thread ? 'thread' : 'none'}`;
    await expect(deck.run('check-order', { amount: -5 }, { ...thread, runId })).rejects.toThrow(
      RangeError,
    );
    const failed = await failedEvent((id) => eventStore.read(id), runId);
    expect(failed).toMatchObject({
      errorType: 'RangeError',
      message: 'amount -5 is negative',
      node: 'verify',
      input: { amount: -5, loaded: true },
    });
    expect(failed.tool).toBeUndefined();
    expect(failed.stack).toMatch(/^RangeError: amount -5 is negative\n/);
    expect(failed.stack).toMatch(/at \S*verifyAmount \(.*run-failures\.test\.ts:\d+:\d+\)/);
  });
});

const pay = tool({
  name: 'pay',
  description: 'Pay an amount',
  parameters: z.object({ payee: z.string(), amount: z.number() }),
  needsApproval: ({ amount }) => {
    if (amount < 0) throw new RangeError(`cannot pay a negative amount (${amount})`);
    return false;
  },
  execute: ({ payee, amount }) => `paid ${amount} to ${payee}`,
});

const cashier = () => new Agent({ name: 'Cashier', instructions: 'Pay.', tools: [pay] });

describe('an agent turn ended by a tool', () => {
  it('names the tool whose approval policy threw, with the arguments, and keeps the engine error type', async () => {
    const { deck, eventStore } = await openTestDeck({ agents: [cashier()] });
    modelServer().push({
      toolCalls: [{ name: 'pay', arguments: { payee: 'ACME', amount: -3 } }],
    });
    await expect(deck.run('Cashier', 'Pay ACME', { runId: 'r-tool' })).rejects.toThrow(
      /negative amount/,
    );
    const failed = await failedEvent((id) => eventStore.read(id), 'r-tool');
    expect(failed).toMatchObject({
      errorType: 'ToolCallError',
      tool: 'pay',
      input: { payee: 'ACME', amount: -3 },
    });
    expect(failed.node).toBeUndefined();
    // The engine's wrapper, then what the policy threw, in this file.
    expect(failed.stack).toContain('Caused by: RangeError: cannot pay a negative amount (-3)');
    expect(failed.stack).toMatch(/run-failures\.test\.ts:\d+:\d+/);
  });

  it('names a tool the agent does not have, with the arguments the model sent', async () => {
    const { deck, eventStore } = await openTestDeck({ agents: [cashier()] });
    modelServer().push({ toolCalls: [{ name: 'refund', arguments: { order: 'A1' } }] });
    await expect(deck.run('Cashier', 'Refund A1', { runId: 'r-missing' })).rejects.toThrow(
      /Tool refund not found/,
    );
    const failed = await failedEvent((id) => eventStore.read(id), 'r-missing');
    expect(failed).toMatchObject({
      errorType: 'ModelBehaviorError',
      tool: 'refund',
      input: { order: 'A1' },
    });
    expect(failed.stack).toMatch(/^ModelBehaviorError: Tool refund not found/);
  });

  it('names a workflow tool whose child run failed the turn, the child naming its node', async () => {
    class Calendar {}
    class Clock {}
    const Plan = z.object({ day: z.string() });
    const plan = new Workflow({
      name: 'plan',
      state: Plan,
      graph: (state) =>
        new StateGraph(state)
          .addNode(
            'book',
            withContext(typeParameter('T', Calendar), () => ({})),
          )
          .addEdge(START, 'book')
          .addEdge('book', END),
    });
    const planner = new Agent({ name: 'Planner', instructions: 'Plan.', tools: [plan] });
    const { deck, eventStore } = await openTestDeck({
      context: Clock,
      agents: [planner],
      workflows: [plan],
    });
    modelServer().push({ toolCalls: [{ name: 'plan', arguments: { day: 'friday' } }] });
    await expect(
      deck.run('Planner', 'Plan Friday', { runId: 'r-child', context: new Clock() }),
    ).rejects.toThrow(/requires a context of type parameter T extends Calendar/);
    const failed = await failedEvent((id) => eventStore.read(id), 'r-child');
    expect(failed).toMatchObject({
      errorType: 'ContextTypeError',
      tool: 'plan',
      input: { day: 'friday' },
    });
    expect(failed.node).toBeUndefined();
    const [child] = await eventStore.listRuns({ origin: 'plan' });
    const childFailed = await failedEvent((id) => eventStore.read(id), child?.runId ?? '');
    expect(childFailed).toMatchObject({ errorType: 'ContextTypeError', node: 'book' });
    expect(childFailed.tool).toBeUndefined();
  });
});
