/**
 * Tool approvals (#19) where answers meet other things: a cancel recorded while the turn
 * stops for approval, a tool whose policy changed between a pause and its resume, a retried
 * answer naming a call that was answered already, a losing concurrent answer over HTTP, a
 * pause asked while a call waits; and the streamed path records each call once.
 */
import { describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import { collect, openTestDeck } from '../../test/support/decks.js';
import { postJson } from '../../test/support/http.js';
import { useScriptedModelServer } from '../../test/support/model-server.js';
import { Agent, tool } from '../index.js';
import { requestControl } from '../runtime/control/requests.js';
import { MemoryEventStore } from '../stores/memory/index.js';

const modelServer = useScriptedModelServer();
const ran: string[] = [];

function payTool(needsApproval: boolean, onPolicy?: () => Promise<void>) {
  return tool({
    name: 'pay',
    description: 'Pay',
    parameters: z.object({ to: z.string() }),
    needsApproval: async () => {
      await onPolicy?.();
      return needsApproval;
    },
    execute: ({ to }) => {
      ran.push(to);
      return `paid ${to}`;
    },
  });
}

const payer = (needsApproval = true, onPolicy?: () => Promise<void>) =>
  new Agent({ name: 'Payer', tools: [payTool(needsApproval, onPolicy)] });

describe('tool approvals meeting other requests', () => {
  it('a cancel recorded while the turn stops for approval ends the run; the call never runs', async () => {
    ran.length = 0;
    const store = new MemoryEventStore();
    const { deck } = await openTestDeck({ eventStore: store, agents: [payer()] });
    modelServer().push({ toolCalls: [{ name: 'pay', arguments: { to: 'x' } }] }, { text: 'done' });
    // Another process (the `service` command: no runtime) cancels while the run still runs.
    const append = store.append.bind(store);
    let cancelled = false;
    store.append = async (events) => {
      const first = events[0];
      if (!cancelled && first?.kind === 'run.interrupted') {
        cancelled = true;
        await requestControl(store, null, first.runId, 'cancel', 'stop');
      }
      return append(events);
    };
    const held = await deck.run('Payer', 'pay x', { sessionId: 's-cancel-race' });
    expect(cancelled).toBe(true);
    await vi.waitFor(async () => expect(await deck.status(held.runId)).toBe('cancelled'));
    expect(await deck.pending()).toEqual([]);
    await expect(deck.answer(held.runId, { approved: true })).rejects.toThrow(/not waiting/);
    expect(ran).toEqual([]);
  });

  it('a call held for a pause is asked again on resume: a policy that now wants a person holds it', async () => {
    ran.length = 0;
    const store = new MemoryEventStore();
    let runId = '';
    let pauseNow: (() => Promise<unknown>) | null = null;
    // First deployment: no approval; a pause arrives while the call is being dispatched.
    const first = await openTestDeck({
      eventStore: store,
      agents: [payer(false, async () => void (await pauseNow?.()))],
    });
    pauseNow = () => first.deck.pause(runId, { reason: 'deploy' });
    modelServer().push({ toolCalls: [{ name: 'pay', arguments: { to: 'y' } }] }, { text: 'done' });
    for await (const event of first.deck.stream('Payer', 'pay y', { sessionId: 's-drift' })) {
      runId = event.runId;
    }
    expect(await first.deck.status(runId)).toBe('paused');
    await first.deck.close();
    // Second deployment: the tool now needs a person. The resumed turn asks instead of paying.
    const second = await openTestDeck({ eventStore: store, agents: [payer(true)] });
    await second.deck.resume(runId);
    expect(ran).toEqual([]);
    expect(await second.deck.status(runId)).toBe('waiting_human');
    await second.deck.answer(runId, { approved: true });
    expect(ran).toEqual(['y']);
    expect(await second.deck.status(runId)).toBe('completed');
  });

  it('an answer naming a call answered already is refused: a retry never approves the next call unseen', async () => {
    ran.length = 0;
    const { deck } = await openTestDeck({ agents: [payer()] });
    modelServer().push(
      {
        toolCalls: [
          { name: 'pay', arguments: { to: 'alice' } },
          { name: 'pay', arguments: { to: 'mallory' } },
        ],
      },
      { text: 'done' },
    );
    const held = await deck.run('Payer', 'pay', { sessionId: 's-retry' });
    const callId = (held.interrupt?.payload as { call_id?: string } | undefined)?.call_id;
    const app = deck.app();
    const answer = { value: { approved: true, call_id: callId } };
    const first = await app.request(`/runs/${held.runId}/answer`, postJson(answer));
    const retry = await app.request(`/runs/${held.runId}/answer`, postJson(answer));
    expect([first.status, retry.status]).toEqual([200, 409]);
    expect(((await retry.json()) as { detail: string }).detail).toContain('answered meanwhile');
    expect(ran).toEqual(['alice']);
    expect((await deck.pending())[0]?.payload).toMatchObject({ arguments: { to: 'mallory' } });
  });

  it('the loser of two answers over HTTP gets 409, even when it passed the status check', async () => {
    ran.length = 0;
    const { deck, eventStore } = await openTestDeck({ agents: [payer()] });
    modelServer().push({ toolCalls: [{ name: 'pay', arguments: { to: 'z' } }] }, { text: 'done' });
    const held = await deck.run('Payer', 'pay z', { sessionId: 's-loser' });
    const app = deck.app();
    const store = eventStore as MemoryEventStore;
    const claimAndAppend = store.claimAndAppend.bind(store);
    const getRun = store.getRun.bind(store);
    let second: Promise<Response> | Response | null = null;
    store.claimAndAppend = (async (...args: Parameters<typeof claimAndAppend>) => {
      const event = (args as unknown as [unknown, { kind?: string }[]])[1][0];
      if (!second && event?.kind === 'run.resumed') {
        // The second answer's status check runs before the first records run.resumed.
        let checked!: () => void;
        const precheck = new Promise<void>((resolve) => {
          checked = resolve;
        });
        store.getRun = async (id) => {
          const run = await getRun(id);
          store.getRun = getRun;
          checked();
          return run;
        };
        second = app.request(`/runs/${held.runId}/answer`, postJson({ value: { approved: true } }));
        await precheck;
      }
      return claimAndAppend(...args);
    }) as typeof claimAndAppend;
    const winner = await app.request(
      `/runs/${held.runId}/answer`,
      postJson({ value: { approved: true } }),
    );
    const loser = await (second as Promise<Response> | Response | null);
    if (!loser) throw new Error('the second answer never started');
    expect([winner.status, loser.status]).toEqual([200, 409]);
    expect(ran).toEqual(['z']);
  });

  it('a pause asked while a call waits is observed by the answered turn', async () => {
    ran.length = 0;
    const { deck, eventStore } = await openTestDeck({ agents: [payer()] });
    modelServer().push({ toolCalls: [{ name: 'pay', arguments: { to: 'p' } }] }, { text: 'done' });
    const held = await deck.run('Payer', 'pay p', { sessionId: 's-pause-waiting' });
    await deck.pause(held.runId, { reason: 'lunch' });
    await deck.answer(held.runId, { approved: true });
    expect(ran).toEqual(['p']);
    expect(await deck.status(held.runId)).toBe('paused');
    const kinds = (await eventStore.read(held.runId)).map((e) => e.kind);
    expect(kinds.slice(-2)).toEqual(['control.observed', 'run.paused']);
    await deck.resume(held.runId);
    expect(await deck.status(held.runId)).toBe('completed');
  });

  it.each([true, false])(
    'a streamed turn records each call once (approved: %s)',
    async (approved) => {
      vi.stubEnv('OPENAI_USE_RESPONSES', 'true');
      ran.length = 0;
      const { deck, eventStore } = await openTestDeck({ agents: [payer()] });
      modelServer().push(
        { toolCalls: [{ name: 'pay', arguments: { to: 'q' } }] },
        { text: 'done' },
      );
      const events = await collect(
        deck.stream('Payer', 'pay q', { sessionId: `s-live-${approved}` }),
      );
      const runId = events[0]?.runId ?? '';
      expect(events.at(-1)?.kind).toBe('run.interrupted');
      await deck.answer(runId, approved ? { approved: true } : { approved: false, reason: 'no' });
      const kinds = (await eventStore.read(runId)).map((e) => e.kind);
      expect(kinds.filter((k) => k === 'tool.call.started')).toHaveLength(1);
      expect(kinds.filter((k) => k === 'tool.call.completed')).toHaveLength(1);
      expect(ran).toEqual(approved ? ['q'] : []);
    },
  );
});
