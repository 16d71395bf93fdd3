/**
 * `deck.replay()` (#41) through the real engine and the scripted model server: a turn
 * replayed with another model, instructions and settings reaches the model with them and with
 * the conversation as it stood before the turn (its tool call included), as a new run linked
 * to its source on a new session, the source's session untouched; a failed turn replays too;
 * an unknown run, a workflow run, a turn still waiting and a bad variant are refused.
 */

import { END, START, StateGraph } from '@langchain/langgraph';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { collect, openTestDeck } from '../../test/support/decks.js';
import { useScriptedModelServer } from '../../test/support/model-server.js';
import { Agent, TextBlock, tool, Workflow } from '../index.js';

const modelServer = useScriptedModelServer();

const add = tool({
  name: 'add',
  description: 'Add two numbers',
  parameters: z.object({ a: z.number(), b: z.number() }),
  execute: ({ a, b }) => String(a + b),
});

const refund = tool({
  name: 'refund',
  description: 'Refund an order',
  parameters: z.object({ order: z.string() }),
  needsApproval: true,
  execute: () => 'refunded',
});

const clerk = () =>
  new Agent({ name: 'Clerk', instructions: 'Count.', model: 'gpt-source', tools: [add, refund] });

const noop = new Workflow({
  name: 'noop',
  state: z.object({ n: z.number().optional() }),
  graph: (state) =>
    new StateGraph(state)
      .addNode('one', () => ({ n: 1 }))
      .addEdge(START, 'one')
      .addEdge('one', END),
});

/** The text of every input item of a recorded model request, in order. */
function inputTexts(body: unknown): string[] {
  const input = (body as { input?: unknown[] }).input ?? [];
  return input.map((item) => {
    const it = item as { content?: unknown; type?: string; output?: unknown; name?: string };
    if (it.type === 'function_call') return `call ${it.name}`;
    if (it.type === 'function_call_output') return `result ${JSON.stringify(it.output)}`;
    if (typeof it.content === 'string') return it.content;
    return (it.content as Array<{ text?: string }>).map((p) => p.text ?? '').join('');
  });
}

describe('deck.replay()', () => {
  it('plays a turn again with a variant, on a new session seeded with the history before it', async () => {
    // Without recorded model requests, the history comes from the session's earlier runs.
    const { deck, eventStore } = await openTestDeck({
      agents: [clerk()],
      workflows: [noop],
      recordModelCalls: 'off',
    });
    modelServer().push(
      { toolCalls: [{ name: 'add', arguments: { a: 2, b: 2 } }] },
      { text: 'It is 4.' },
      { text: 'It is 6.' },
    );
    await deck.run('Clerk', 'What is 2+2?', { sessionId: 's-replay' });
    const source = await deck.run('Clerk', 'And 3+3?', { sessionId: 's-replay' });
    const session = deck.sessionFor('s-replay');
    const before = await session.getItems();
    const sent = modelServer().requests.length;

    modelServer().push({ text: 'six' });
    const variant = {
      model: 'gpt-other',
      instructions: 'Be terse.',
      modelSettings: { temperature: 0.25 },
    };
    const replay = await deck.replay(source.runId, { variant });

    expect(replay).toMatchObject({
      status: 'completed',
      output: 'six',
      history: 'event-log',
      derivedFrom: { run: source.runId, how: 'replay', changes: variant },
    });
    expect(replay.runId).not.toBe(source.runId);
    expect(replay.sessionId).toMatch(/^s-replay~replay-[0-9a-f]{8}$/);
    const [request] = modelServer().requests.slice(sent);
    expect(request?.body).toMatchObject({
      model: 'gpt-other',
      instructions: 'Be terse.',
      temperature: 0.25,
    });
    expect(inputTexts(request?.body)).toEqual([
      'What is 2+2?',
      'call add',
      'result "4"',
      'It is 4.',
      'And 3+3?',
    ]);
    const [started] = await eventStore.read(replay.runId, { limit: 1 });
    expect(started).toMatchObject({
      kind: 'run.started',
      sessionId: replay.sessionId,
      payload: { derivedFrom: { run: source.runId, how: 'replay', changes: variant } },
    });
    // The source's session is as it was; the replay's holds the history, the turn and its reply.
    expect(await session.getItems()).toEqual(before);
    expect(await deck.sessionFor(replay.sessionId as string).getItems()).toHaveLength(6);
  });

  it("sends the history the source turn's recorded model request held, when it was recorded", async () => {
    const { deck, eventStore } = await openTestDeck({ agents: [clerk()], workflows: [noop] });
    // A turn as the model-request recording keeps it: its first request's items, by digest.
    const sent = [
      { role: 'system', content: 'Count.' },
      { role: 'user', content: 'What is 2+2?' },
      { type: 'function_call', call_id: 'c1', name: 'add', arguments: '{"a":2,"b":2}' },
      { type: 'function_call_output', call_id: 'c1', output: '4' },
      { role: 'assistant', content: 'It is 4.' },
      { role: 'user', content: 'And 3+3?' },
    ];
    const values = Object.fromEntries(sent.map((item, i) => [`v:${i}`, item]));
    const identity = {
      runId: 'run-recorded',
      sessionId: 's-rec',
      namespace: null,
      origin: 'Clerk',
    };
    await eventStore.append([
      {
        ...identity,
        kind: 'run.started',
        payload: { invocableType: 'agent', input: [new TextBlock('And 3+3?')] },
      },
      {
        ...identity,
        kind: 'model.call.started',
        payload: {
          callId: 'm1',
          model: 'gpt-source',
          settings: {},
          instructions: null,
          tools: [],
          messages: Object.keys(values),
          values,
          detail: 'full',
        },
      },
      {
        ...identity,
        kind: 'run.completed',
        payload: { output: [new TextBlock('6')], usage: null },
      },
    ]);
    modelServer().push({ text: 'six' });
    const replay = await deck.replay('run-recorded', { variant: { model: 'gpt-other' } });
    expect(replay).toMatchObject({ status: 'completed', output: 'six', history: 'model-request' });
    expect(inputTexts(modelServer().requests.at(-1)?.body)).toEqual([
      'What is 2+2?',
      'call add',
      'result "4"',
      'It is 4.',
      'And 3+3?',
    ]);
  });

  it('replays a failed turn, and refuses what it cannot replay, naming why', async () => {
    const { deck, eventStore } = await openTestDeck({ agents: [clerk()], workflows: [noop] });
    modelServer().push({ error: 'model broke' });
    await expect(deck.run('Clerk', 'Hi', { sessionId: 's-failed' })).rejects.toThrow();
    const [failedRun] = await eventStore.listRuns({ sessionId: 's-failed' });
    expect(failedRun?.status).toBe('failed');
    const failed = failedRun?.runId as string;
    modelServer().push({ text: 'Hello.' });
    const replay = await deck.replay(failed, { variant: { model: 'gpt-fixed' } });
    // The failed turn's one model request was recorded: it held no history before the turn.
    expect(replay).toMatchObject({
      status: 'completed',
      output: 'Hello.',
      history: 'model-request',
    });

    await expect(deck.replay('run-unknown')).rejects.toMatchObject({
      code: 'not_found',
      message: expect.stringMatching(/no run 'run-unknown'/),
    });
    await expect(
      deck.replay(failed, { variant: { model: 'x', colour: 'red' } as never }),
    ).rejects.toMatchObject({ message: expect.stringMatching(/variant\.colour/) });
    await expect(deck.replay(failed, { namespace: 'other' })).rejects.toMatchObject({
      code: 'not_found',
    });

    const [workflowStarted] = await collect(deck.stream('noop', {}));
    await expect(deck.replay(workflowStarted?.runId as string)).rejects.toMatchObject({
      code: 'invalid_input',
      message: expect.stringMatching(/workflow 'noop'.*fork its thread/),
    });

    modelServer().push({ toolCalls: [{ name: 'refund', arguments: { order: 'A1' } }] });
    const waiting = await deck.run('Clerk', 'Refund A1', { sessionId: 's-waiting' });
    await expect(deck.replay(waiting.runId)).rejects.toMatchObject({
      message: expect.stringMatching(/still waiting_human/),
    });
  });
});
