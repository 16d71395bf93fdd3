/**
 * Deploying while runs are in flight (#42), agents: a session's history outlives the catalog
 * that wrote it. Deck v1 has tool `lookup`; deck v2 (same event store, same sessions) drops it
 * or makes its schema stricter. A new turn on the old session plays and the model sees the old
 * call and its output as recorded; a run paused in v1 resumes on v2 by the rules in
 * docs/agents-and-tools.md (sessions and history).
 */
import { describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import { openTestDeck } from '../../test/support/decks.js';
import { useScriptedModelServer } from '../../test/support/model-server.js';
import { ListSession } from '../../test/support/runtimes.js';
import { Agent, tool } from '../index.js';
import { MemoryEventStore } from '../stores/memory/index.js';

const modelServer = useScriptedModelServer();

/** One event store and one conversation store for both decks, as two deploys would share. */
function sharedStores() {
  const eventStore = new MemoryEventStore();
  const sessions = new Map<string, ListSession>();
  const sessionFactory = (id: string) => {
    const session = sessions.get(id) ?? new ListSession(id);
    sessions.set(id, session);
    return session;
  };
  return { eventStore, sessions, sessionFactory };
}

const lookupV1 = (needsApproval = false) =>
  tool({
    name: 'lookup',
    description: 'Look an order up',
    parameters: z.object({ order: z.string() }),
    needsApproval,
    execute: ({ order }) => `order ${order} is paid`,
  });

/** v2's `lookup`: the old arguments (`{ order: 'A1' }`) no longer parse. */
const lookupV2 = tool({
  name: 'lookup',
  description: 'Look an order up',
  parameters: z.object({ orderId: z.number().int() }),
  execute: ({ orderId }) => `order #${orderId} is paid`,
});

const other = tool({
  name: 'other',
  description: 'Something else',
  parameters: z.object({}),
  execute: () => 'other',
});

const clerk = (tools: ReturnType<typeof tool>[]) =>
  new Agent({ name: 'Clerk', instructions: 'Answer about orders.', tools });

describe.each([
  ['Responses', 'true'],
  ['chat completions', 'false'],
])('agents after a catalog change, over the %s API', (_api, useResponses) => {
  it.each([
    ['is gone', [other]],
    ['takes other arguments', [lookupV2]],
  ])(
    'a session whose old tool %s still plays; the model sees the old call as recorded',
    async (_case, v2Tools) => {
      vi.stubEnv('OPENAI_USE_RESPONSES', useResponses);
      const { eventStore, sessions, sessionFactory } = sharedStores();
      const v1 = await openTestDeck({ agents: [clerk([lookupV1()])], eventStore, sessionFactory });
      modelServer().push(
        { toolCalls: [{ name: 'lookup', arguments: { order: 'A1' }, callId: 'call_old' }] },
        { text: 'A1 is paid.' },
      );
      const first = await v1.deck.run('Clerk', 'Is A1 paid?', { sessionId: 's-deploy' });
      expect(first.output).toBe('A1 is paid.');
      await v1.deck.close();

      const v2 = await openTestDeck({ agents: [clerk(v2Tools)], eventStore, sessionFactory });
      modelServer().push({ text: 'Still paid.' });
      const second = await v2.deck.run('Clerk', 'And now?', { sessionId: 's-deploy' });
      expect(second.output).toBe('Still paid.');
      const sent = JSON.stringify(modelServer().requests.at(-1)?.body);
      expect(sent).toContain('call_old');
      expect(sent).toContain('lookup');
      expect(sent).toContain('order A1 is paid');
      expect(sent).toMatch(/\\"order\\":\\"A1\\"/);
      expect(sessions.get('s-deploy')?.items.length).toBeGreaterThan(4);
      modelServer().assertConsumed();
    },
  );

  it('a run waiting for approval of a tool v2 dropped is refused and fails, naming the tool', async () => {
    vi.stubEnv('OPENAI_USE_RESPONSES', useResponses);
    const { eventStore, sessionFactory } = sharedStores();
    const v1 = await openTestDeck({
      agents: [clerk([lookupV1(true)])],
      eventStore,
      sessionFactory,
    });
    modelServer().push({ toolCalls: [{ name: 'lookup', arguments: { order: 'A1' } }] });
    const first = await v1.deck.run('Clerk', 'Is A1 paid?', { sessionId: 's-held' });
    expect(first.interrupt?.payload).toMatchObject({ tool: 'lookup' });
    await v1.deck.close();

    const v2 = await openTestDeck({ agents: [clerk([other])], eventStore, sessionFactory });
    await expect(v2.deck.answer(first.runId, { approved: true })).rejects.toThrow(
      /holds a call of tool 'lookup', which agent 'Clerk' no longer has/,
    );
    // The run ends failed, the error naming the tool; the held call never ran; the session is free.
    expect(await v2.deck.status(first.runId)).toBe('failed');
    const failed = (await eventStore.read(first.runId)).at(-1);
    expect(failed?.kind).toBe('run.failed');
    expect(JSON.stringify(failed?.payload)).toContain(
      "tool 'lookup', which agent 'Clerk' no longer has",
    );
    expect(await v2.deck.pending()).toEqual([]);
    modelServer().push({ text: 'Hello again.' });
    const next = await v2.deck.run('Clerk', 'hello?', { sessionId: 's-held' });
    expect(next.output).toBe('Hello again.');
    modelServer().assertConsumed();
  });

  it('a run waiting for approval of a tool whose arguments changed goes on; the model is told the call failed', async () => {
    vi.stubEnv('OPENAI_USE_RESPONSES', useResponses);
    const { eventStore, sessionFactory } = sharedStores();
    const v1 = await openTestDeck({
      agents: [clerk([lookupV1(true)])],
      eventStore,
      sessionFactory,
    });
    modelServer().push({ toolCalls: [{ name: 'lookup', arguments: { order: 'A1' } }] });
    const first = await v1.deck.run('Clerk', 'Is A1 paid?', { sessionId: 's-changed' });
    await v1.deck.close();

    const v2 = await openTestDeck({ agents: [clerk([lookupV2])], eventStore, sessionFactory });
    modelServer().push({ text: 'I could not look it up.' });
    const answered = await v2.deck.answer(first.runId, { approved: true });
    expect(answered).toMatchObject({ output: 'I could not look it up.' });
    const sent = JSON.stringify(modelServer().requests.at(-1)?.body);
    expect(sent).toContain("Error: tool 'lookup' failed");
    expect(sent).not.toContain('is paid');
    expect(await v2.deck.status(first.runId)).toBe('completed');
    modelServer().assertConsumed();
  });
});
