/**
 * Tenants through the embedded API (#39, docs/tenants.md): a run started with `{ namespace }`
 * belongs to that tenant, and so do the child runs and answers that continue it; another
 * tenant's `pending`, `status`, `answer`, `pause`, `cancel` and `resume` meet it as an unknown
 * run; its session or thread id is a ConflictError for another tenant; a call without a
 * namespace (no tenants) reaches every run, as before.
 */
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { openTestDeck } from '../../test/support/decks.js';
import { approval } from '../../test/support/workflows.js';
import { ConflictError, NotFoundError } from '../core/errors.js';
import { Agent, InterruptResult, tool } from '../index.js';
import { ScriptedModel } from '../testing/index.js';

const acme = { namespace: 'acme' };
const globex = { namespace: 'globex' };

async function tenantDeck() {
  const send = tool({
    name: 'send_email',
    description: 'Send an email',
    parameters: z.object({ to: z.string() }),
    needsApproval: true,
    execute: ({ to }) => `sent to ${to}`,
  });
  const model = new ScriptedModel([
    { toolCalls: [{ name: 'send_email', arguments: { to: 'ann' }, callId: 'c1' }] },
    { text: 'Sent.' },
    { text: 'Hello.' },
  ]);
  return openTestDeck({
    agents: [new Agent({ name: 'Mailer', model, tools: [send] })],
    workflows: [approval()],
  });
}

describe('tenants through the embedded API', () => {
  it("keeps a tenant's runs, inbox and controls from another tenant, and every run for none", async () => {
    const { deck, eventStore } = await tenantDeck();
    const asked = await deck.run('approval', { amount: 5 }, { ...acme, sessionId: 'thread-1' });
    expect(asked).toBeInstanceOf(InterruptResult);
    const flow = (asked as InterruptResult).runId as string;
    const held = await deck.run('Mailer', 'Email ann', { ...acme, sessionId: 'chat-1' });
    expect(held.output).toBeNull(); // the call waits for approval
    const turn = held.runId;

    expect((await deck.pending(acme)).map((p) => p.runId).sort()).toEqual([flow, turn].sort());
    expect(await deck.pending(globex)).toEqual([]);
    expect(await deck.pending()).toHaveLength(2);
    expect(await deck.status(flow, globex)).toBeNull();
    expect(await deck.status(flow, acme)).toBe('waiting_human');
    for (const refused of [
      deck.answer(flow, { approved: true }, globex),
      deck.pause(turn, globex),
      deck.cancel(turn, { ...globex, reason: 'mine now' }),
    ]) {
      await expect(refused).rejects.toBeInstanceOf(NotFoundError);
    }
    await expect(deck.answer(flow, { approved: true }, globex)).rejects.toThrow(
      `no run '${flow}' in the event log; pass a run id that pending() listed`,
    );
    // The same words as for a run that never was.
    const never = await deck.cancel('never-was', globex).then(String, (e: Error) => e.message);
    await expect(deck.cancel(turn, globex)).rejects.toThrow(never.replace('never-was', turn));
    expect(await deck.resume(turn, globex)).toEqual([]);
    expect(await eventStore.readControl(turn)).toEqual([]);

    // The owner answers; the continuation stays in its tenant.
    expect(await deck.answer(turn, { approved: true }, acme)).toMatchObject({ output: 'Sent.' });
    expect(await deck.answer(flow, { approved: true }, acme)).toMatchObject({ approved: true });
    const runs = await eventStore.listRuns();
    expect(runs.map((r) => r.runId).sort()).toEqual([flow, turn].sort());
    expect(runs.every((r) => r.namespace === 'acme')).toBe(true);
    expect(runs.every((r) => r.status === 'completed')).toBe(true);
  });

  it("refuses another tenant's session or thread id, before anything is recorded", async () => {
    const { deck, eventStore } = await tenantDeck();
    await deck.run('approval', { amount: 1 }, { ...acme, sessionId: 'thread-1' });
    await expect(
      deck.run('approval', { amount: 2 }, { ...globex, sessionId: 'thread-1' }),
    ).rejects.toBeInstanceOf(ConflictError);
    await expect(
      deck.run('Mailer', 'who is ann?', { ...globex, sessionId: 'thread-1' }),
    ).rejects.toThrow("session (or thread) id 'thread-1' is already in use");
    expect(await eventStore.listRuns()).toMatchObject([{ namespace: 'acme' }]);
  });
});
