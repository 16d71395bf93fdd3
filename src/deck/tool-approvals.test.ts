/**
 * Tool approvals (#19) through the deck and the real OpenAI client path (the scripted HTTP
 * model server), on both APIs: a call that needs approval stops the turn before it runs
 * (`run.interrupted`, reason `approval`, status `waiting_human`, listed by `pending()`); an
 * approval runs it once and the turn goes on in the same run; a rejection never runs it and
 * the model is told; several calls of one turn are answered one at a time; bad answers are
 * refused and change nothing.
 */
import { END, START, StateGraph } from '@langchain/langgraph';
import { describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import { openTestDeck } from '../../test/support/decks.js';
import { heldShipping } from '../../test/support/held-tool.js';
import { useScriptedModelServer } from '../../test/support/model-server.js';
import { Agent, InterruptResult, modelCallsOf, tool, Workflow } from '../index.js';

const modelServer = useScriptedModelServer();

/** Every refund that really happened. */
const refunded: string[] = [];

const refund = tool({
  name: 'refund',
  description: 'Refund an order',
  parameters: z.object({ order: z.string(), amount: z.number() }),
  needsApproval: ({ amount }) => amount > 50,
  execute: ({ order, amount }) => {
    refunded.push(order);
    return `refunded ${amount} on ${order}`;
  },
});

const lookUp = tool({
  name: 'look_up',
  description: 'Look an order up',
  parameters: z.object({ order: z.string() }),
  execute: ({ order }) => `order ${order} is paid`,
});

const clerk = () =>
  new Agent({ name: 'Clerk', instructions: 'Handle refunds.', tools: [refund, lookUp] });

describe.each([
  ['Responses', 'true'],
  ['chat completions', 'false'],
])('tool approvals, over the %s API', (_api, useResponses) => {
  it('stops before a call that needs approval, lists it, and an approval runs it once', async () => {
    vi.stubEnv('OPENAI_USE_RESPONSES', useResponses);
    refunded.length = 0;
    const { deck, eventStore } = await openTestDeck({ agents: [clerk()] });
    modelServer().push(
      { toolCalls: [{ name: 'refund', arguments: { order: 'A1', amount: 80 } }] },
      { text: 'Refunded 80 on A1.' },
    );
    const first = await deck.run('Clerk', 'Refund A1', { sessionId: 's-approve' });
    expect(first.output).toBeNull();
    expect(first.interrupt).toBeInstanceOf(InterruptResult);
    expect(first.interrupt?.payload).toMatchObject({
      tool: 'refund',
      arguments: { order: 'A1', amount: 80 },
    });
    expect(refunded).toEqual([]);
    expect(await deck.status(first.runId)).toBe('waiting_human');

    const [item] = await deck.pending();
    expect(item).toMatchObject({
      runId: first.runId,
      invocable: 'Clerk',
      kind: 'agent',
      reason: 'approval',
      sessionId: 's-approve',
      threadId: 's-approve',
    });
    const callId = (item?.payload as { call_id?: string } | undefined)?.call_id;
    expect(callId).toEqual(expect.any(String));

    // The session stays claimed while the call waits.
    await expect(deck.run('Clerk', 'hello?', { sessionId: 's-approve' })).rejects.toThrow(
      /s-approve/,
    );

    const answered = await deck.answer(first.runId, { approved: true });
    expect(answered).toMatchObject({ output: 'Refunded 80 on A1.', runId: first.runId });
    expect(refunded).toEqual(['A1']);
    expect(await deck.status(first.runId)).toBe('completed');
    expect(await deck.pending()).toEqual([]);

    const kinds = (await eventStore.read(first.runId)).map((e) => e.kind);
    expect(kinds.filter((k) => k === 'run.interrupted')).toHaveLength(1);
    expect(kinds.filter((k) => k === 'tool.call.completed')).toHaveLength(1);
    expect(kinds.at(-1)).toBe('run.completed');
    const resumed = (await eventStore.read(first.runId)).find((e) => e.kind === 'run.resumed');
    expect(resumed?.payload).toMatchObject({ answer: { approved: true, reason: null } });
    // What the model saw, across the approval: the continued segment's request is recorded
    // as sent, numbered after the first, its values resolved from the first segment's events.
    const calls = modelCallsOf(await eventStore.read(first.runId));
    expect(calls.map((c) => c.callId)).toEqual([`${first.runId}:c0`, `${first.runId}:c1`]);
    const body = modelServer().requests[1]?.body;
    expect(calls[1]?.tools).toEqual(body.tools);
    expect(calls[1]?.messages).toEqual(
      useResponses === 'true' ? body.input : body.messages.slice(1),
    );
    modelServer().assertConsumed();
  });

  it('a rejected call never runs; the model is told why and answers on', async () => {
    vi.stubEnv('OPENAI_USE_RESPONSES', useResponses);
    refunded.length = 0;
    const { deck, eventStore } = await openTestDeck({ agents: [clerk()] });
    modelServer().push(
      { toolCalls: [{ name: 'refund', arguments: { order: 'B2', amount: 500 } }] },
      { text: 'The refund was not approved.' },
    );
    const first = await deck.run('Clerk', 'Refund B2', { sessionId: 's-reject' });
    const answered = await deck.answer(first.runId, { approved: false, reason: 'over the limit' });
    expect(answered).toMatchObject({ output: 'The refund was not approved.' });
    expect(refunded).toEqual([]);
    const sent = JSON.stringify(modelServer().requests.at(-1)?.body);
    expect(sent).toContain("A person rejected this call of tool 'refund'");
    expect(sent).toContain('over the limit');
    const completed = (await eventStore.read(first.runId)).find(
      (e) => e.kind === 'tool.call.completed',
    );
    expect(completed?.payload).toMatchObject({ name: 'refund', output: null });
    expect(JSON.stringify(completed?.payload)).toContain('over the limit');
    modelServer().assertConsumed();
  });

  it('a call the policy lets through runs without asking', async () => {
    vi.stubEnv('OPENAI_USE_RESPONSES', useResponses);
    refunded.length = 0;
    const { deck } = await openTestDeck({ agents: [clerk()] });
    modelServer().push(
      { toolCalls: [{ name: 'refund', arguments: { order: 'C3', amount: 10 } }] },
      { text: 'Done.' },
    );
    const result = await deck.run('Clerk', 'Refund C3', { sessionId: 's-small' });
    expect(result.output).toBe('Done.');
    expect(result.interrupt).toBeUndefined();
    expect(refunded).toEqual(['C3']);
    modelServer().assertConsumed();
  });

  it('several calls of one turn are answered one at a time; none runs twice or unapproved', async () => {
    vi.stubEnv('OPENAI_USE_RESPONSES', useResponses);
    refunded.length = 0;
    const { deck, eventStore } = await openTestDeck({ agents: [clerk()] });
    modelServer().push(
      {
        toolCalls: [
          { name: 'refund', arguments: { order: 'D1', amount: 60 } },
          { name: 'look_up', arguments: { order: 'D2' } },
          { name: 'refund', arguments: { order: 'D3', amount: 70 } },
        ],
      },
      { text: 'One refunded, one not.' },
    );
    const first = await deck.run('Clerk', 'Refund D1 and D3', { sessionId: 's-many' });
    expect(first.interrupt?.payload).toMatchObject({ arguments: { order: 'D1' } });
    const second = await deck.answer(first.runId, { approved: true });
    expect(second).toBeInstanceOf(InterruptResult);
    expect((second as InterruptResult).payload).toMatchObject({ arguments: { order: 'D3' } });
    expect(refunded).toEqual(['D1']);
    const [waiting] = await deck.pending();
    expect(waiting?.payload).toMatchObject({ arguments: { order: 'D3' } });
    const last = await deck.answer(first.runId, { approved: false });
    expect(last).toMatchObject({ output: 'One refunded, one not.' });
    expect(refunded).toEqual(['D1']);
    const events = await eventStore.read(first.runId);
    const completed = events.filter((e) => e.kind === 'tool.call.completed');
    expect(completed.map((e) => (e.payload as { name: string }).name).sort()).toEqual([
      'look_up',
      'refund',
      'refund',
    ]);
    expect(events.filter((e) => e.kind === 'run.interrupted')).toHaveLength(2);
    modelServer().assertConsumed();
  });
});

describe('tool approvals: a repeated answer (#36)', () => {
  it('replays the first outcome by its key; refuses another answer, and one still playing', async () => {
    const { agent, running, release, shipped } = heldShipping();
    const { deck, eventStore } = await openTestDeck({ agents: [agent] });
    modelServer().push(
      { toolCalls: [{ name: 'ship', arguments: { order: 'H1' } }] },
      { text: 'Shipped H1.' },
    );
    const first = await deck.run('Dispatcher', 'Ship H1', { sessionId: 's-again' });
    const key = { idempotencyKey: 'k-1' };
    const answering = deck.answer(first.runId, { approved: true }, key);
    await running;
    await expect(deck.answer(first.runId, { approved: true }, key)).rejects.toMatchObject({
      code: 'conflict',
    });
    release();
    const answered = await answering;
    expect(answered).toMatchObject({ output: 'Shipped H1.', runId: first.runId });
    expect(await deck.answer(first.runId, { approved: true }, key)).toEqual(answered);
    await expect(
      deck.answer(first.runId, { approved: false }, { idempotencyKey: 'k-2' }),
    ).rejects.toThrow(/not waiting/);
    // Without a key the deck does not replay (the same value may be a new answer).
    await expect(deck.answer(first.runId, { approved: true })).rejects.toThrow(/not waiting/);
    expect(shipped).toEqual(['H1']);
    const events = await eventStore.read(first.runId);
    const resumed = events.find((e) => e.kind === 'run.resumed');
    expect(resumed?.payload).toMatchObject({ answer: { approved: true }, answerId: 'key:k-1' });
    modelServer().assertConsumed();
  });
});

describe('tool approvals: bad answers and other tools', () => {
  it('refuses a malformed answer, an unknown run, and a run that does not wait; nothing changes', async () => {
    refunded.length = 0;
    const { deck } = await openTestDeck({ agents: [clerk()] });
    modelServer().push(
      { toolCalls: [{ name: 'refund', arguments: { order: 'E1', amount: 90 } }] },
      { text: 'ok' },
    );
    const first = await deck.run('Clerk', 'Refund E1', { sessionId: 's-bad' });
    await expect(deck.answer(first.runId, { approved: 'yes' })).rejects.toThrow(/approved/);
    await expect(deck.answer(first.runId, 'ok')).rejects.toMatchObject({ code: 'invalid_input' });
    await expect(deck.answer('nope', { approved: true })).rejects.toMatchObject({
      code: 'not_found',
    });
    expect(await deck.status(first.runId)).toBe('waiting_human');
    await deck.answer(first.runId, { approved: true });
    await expect(deck.answer(first.runId, { approved: true })).rejects.toThrow(/not waiting/);
    expect(refunded).toEqual(['E1']);
  });

  it('cancel of a waiting run ends it, and the call never runs', async () => {
    refunded.length = 0;
    const { deck } = await openTestDeck({ agents: [clerk()] });
    modelServer().push({ toolCalls: [{ name: 'refund', arguments: { order: 'F1', amount: 99 } }] });
    const first = await deck.run('Clerk', 'Refund F1', { sessionId: 's-cancel' });
    await deck.cancel(first.runId, { reason: 'customer left' });
    expect(await deck.status(first.runId)).toBe('cancelled');
    expect(await deck.pending()).toEqual([]);
    await expect(deck.answer(first.runId, { approved: true })).rejects.toThrow(/not waiting/);
    expect(refunded).toEqual([]);
    // The session is free again.
    modelServer().push({ text: 'hi' });
    expect((await deck.run('Clerk', 'hello', { sessionId: 's-cancel' })).output).toBe('hi');
  });

  it('a workflow listed as a tool, named in needsApproval, waits for approval', async () => {
    const ran: string[] = [];
    const ship = new Workflow({
      name: 'ship-order',
      state: z.object({ order: z.string(), shipped: z.boolean().optional() }),
      graph: (state) =>
        new StateGraph(state)
          .addNode('ship', (s: { order: string }) => {
            ran.push(s.order);
            return { shipped: true };
          })
          .addEdge(START, 'ship')
          .addEdge('ship', END),
    });
    const shipper = new Agent({
      name: 'Shipper',
      tools: [ship],
      needsApproval: ['ship-order'],
    });
    const { deck } = await openTestDeck({ agents: [shipper], workflows: [ship] });
    modelServer().push(
      { toolCalls: [{ name: 'ship_order', arguments: { order: 'G1' } }] },
      { text: 'Shipped.' },
    );
    const first = await deck.run('Shipper', 'Ship G1', { sessionId: 's-wf' });
    expect(first.interrupt?.payload).toMatchObject({
      tool: 'ship_order',
      arguments: { order: 'G1' },
    });
    expect(ran).toEqual([]);
    expect(await deck.answer(first.runId, { approved: true })).toMatchObject({
      output: 'Shipped.',
    });
    expect(ran).toEqual(['G1']);
  });

  it('refuses at construction a needsApproval name that no tool has', async () => {
    const agent = new Agent({ name: 'Typo', tools: [lookUp], needsApproval: ['lookup'] });
    await expect(openTestDeck({ agents: [agent] })).rejects.toThrow(/'lookup' in needsApproval/);
  });
});
