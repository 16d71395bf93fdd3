/**
 * `?multitask=` on the synchronous start routes (#40, additive: without it, 1.2.1's answers):
 * `POST /agents/{name}/chat` and `POST /workflows/{name}` reject, wait for, or cancel the
 * run on a busy session or thread (deck/multitask.ts).
 */
import { describe, expect, it } from 'vitest';
import { collect, openTestDeck } from '../../../test/support/decks.js';
import { postJson } from '../../../test/support/http.js';
import { approval } from '../../../test/support/workflows.js';
import { Agent, type Event } from '../../index.js';
import { ScriptedModel } from '../../testing/index.js';

/** An open deck whose agent plays a slow turn (`totalMs`) on session `s-1`, run `r-first`. */
async function busyDeck(totalMs: number) {
  const chunks = Array.from({ length: 10 }, (_, i) => `slow${i} `);
  const model = new ScriptedModel([
    { text: chunks, delayMs: totalMs / 10 },
    { text: 'quick reply' },
  ]);
  const { deck } = await openTestDeck({
    agents: [new Agent({ name: 'helper', model })],
    workflows: [approval({ durable: true })],
  });
  const first = deck.stream('helper', 'first message', { sessionId: 's-1', runId: 'r-first' });
  for (let step = await first.next(); !step.done && step.value.kind !== 'text.delta'; ) {
    step = await first.next();
  }
  return { deck, app: deck.app(), rest: collect(first as AsyncIterable<Event>) };
}

const chat = (message: string) => postJson({ session_id: 's-1', message });

describe('?multitask= on POST /agents/{name}/chat', () => {
  it('without it, and with reject, a busy session is a 409', async () => {
    const { app, rest } = await busyDeck(200);
    expect((await app.request('/agents/helper/chat', chat('second'))).status).toBe(409);
    const refused = await app.request('/agents/helper/chat?multitask=reject', chat('second'));
    expect(refused.status).toBe(409);
    expect((await refused.json()).detail).toMatch(/run 'r-first' is running/);
    await rest;
  });

  it('enqueue answers once the run there ended', async () => {
    const { deck, app, rest } = await busyDeck(150);
    const response = await app.request('/agents/helper/chat?multitask=enqueue', chat('second'));
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ output: 'quick reply' });
    await rest;
    expect(await deck.status('r-first')).toBe('completed');
  });

  it('interrupt cancels the run there, then answers (JSON and SSE)', async () => {
    const { deck, app, rest } = await busyDeck(2_000);
    const response = await app.request(
      '/agents/helper/chat?multitask=interrupt&stream=true',
      chat('second'),
    );
    expect(response.status).toBe(200);
    expect(await response.text()).toContain('event: done');
    await rest;
    expect(await deck.status('r-first')).toBe('cancelled');
  });

  it('rollback takes the stopped turn out of the session', async () => {
    const { deck, app, rest } = await busyDeck(2_000);
    const response = await app.request('/agents/helper/chat?multitask=rollback', chat('second'));
    expect(await response.json()).toEqual({ output: 'quick reply' });
    await rest;
    const items = JSON.stringify(await deck.sessionFor('s-1').getItems());
    expect(items).not.toContain('first message');
    expect(items).toContain('second');
  });

  it('an unknown value is a 422 naming the parameter', async () => {
    const { app, rest } = await busyDeck(0);
    await rest;
    const response = await app.request('/agents/helper/chat?multitask=later', chat('x'));
    expect(response.status).toBe(422);
    expect((await response.json()).detail).toMatch(/multitask/);
  });
});

describe('?multitask= on POST /workflows/{name}', () => {
  it('interrupt cancels the run waiting on the thread; rollback is a 422', async () => {
    const { deck, app, rest } = await busyDeck(0);
    await rest;
    const start = (query: string) =>
      app.request(`/workflows/approval?thread_id=t-1${query}`, postJson({ amount: 5 }));
    const paused = await start('');
    expect(await paused.json()).toMatchObject({ type: 'interrupt', thread_id: 't-1' });
    const waiting = paused.headers.get('x-run-id') as string;
    expect((await start('')).status).toBe(409);
    expect((await start('&multitask=rollback')).status).toBe(422);
    const again = await start('&multitask=interrupt');
    expect(again.status).toBe(200);
    expect(await again.json()).toMatchObject({ type: 'interrupt', thread_id: 't-1' });
    expect(await deck.status(waiting)).toBe('cancelled');
  });
});
