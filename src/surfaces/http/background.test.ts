/**
 * `POST /runs` (background runs): 202 with the queued run and its `Location`, its place in
 * `GET /runs/{run_id}`, its events to its end, every bad body a 422 naming the field with
 * nothing queued, a busy session's `multitask`, and a synchronous start over its rate: 429.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { openTestDeck } from '../../../test/support/decks.js';
import { parseSse, postJson } from '../../../test/support/http.js';
import { parseExposition } from '../../../test/support/prometheus.js';
import { approval } from '../../../test/support/workflows.js';
import { Agent } from '../../index.js';
import { MemoryEventStore } from '../../stores/memory/index.js';
import { ScriptedModel } from '../../testing/index.js';

afterEach(() => vi.unstubAllEnvs());

async function served(options: { rate?: { limit: number; perSeconds: number } } = {}) {
  const eventStore = new MemoryEventStore();
  const model = new ScriptedModel(Array.from({ length: 8 }, (_, i) => ({ text: `reply ${i}` })));
  const queue = options.rate ? { rate: options.rate } : undefined;
  const { deck } = await openTestDeck({
    agents: [new Agent({ name: 'helper', model, ...(queue ? { queue } : {}) })],
    workflows: [approval()],
    eventStore,
  });
  return { deck, eventStore, app: deck.app() };
}

describe('POST /runs', () => {
  it('queues a run: 202 with its id and Location, its place while it waits, its events to its end', async () => {
    vi.stubEnv('SERVICE_QUEUE_CONCURRENCY', '0'); // it waits until a worker is there
    const { app, deck, eventStore } = await served();
    const response = await app.request(
      '/runs',
      postJson({ agent: 'helper', input: 'hello', session_id: 's-1', key: 'acme', priority: 2 }),
    );
    expect(response.status).toBe(202);
    const body = (await response.json()) as { run_id: string };
    expect(body).toEqual({ run_id: body.run_id, status: 'queued', key: 'acme', priority: 2 });
    expect(response.headers.get('location')).toBe(`/runs/${body.run_id}`);
    const detail = await (await app.request(`/runs/${body.run_id}`)).json();
    expect(detail).toMatchObject({
      status: 'queued',
      queue: { key: 'acme', priority: 2, position: 0, attempts: 0 },
    });
    const listed = await (await app.request('/runs?status=queued')).json();
    expect(listed.runs.map((r: { run_id: string }) => r.run_id)).toEqual([body.run_id]);
    expect((await eventStore.listQueue(10)).map((e) => e.runId)).toEqual([body.run_id]);
    await deck.close();
  });

  it('plays it, and its events stream from /runs/{run_id}/events', async () => {
    const { app, deck } = await served();
    const response = await app.request(
      '/runs',
      postJson({ workflow: 'approval', input: { amount: 4 } }),
    );
    const { run_id } = (await response.json()) as { run_id: string };
    for (let i = 0; i < 200 && (await deck.status(run_id)) !== 'waiting_human'; i++) {
      await new Promise((done) => setTimeout(done, 10));
    }
    // A run waiting for a person has not ended: read what is stored so far.
    const events = await app.request(`/runs/${run_id}/events?follow=false`);
    const frames = parseSse(await events.text());
    const kinds = frames.map((f) => (f.data as { kind: string }).kind);
    expect(kinds[0]).toBe('run.queued');
    expect(kinds).toContain('run.started');
    expect(kinds.at(-1)).toBe('run.interrupted');
    const detail = await (await app.request(`/runs/${run_id}`)).json();
    expect(detail.status).toBe('waiting_human');
    expect(detail.queue).toBeUndefined();
  });

  it('shows the queue in GET /metrics: depth by key while runs wait, their wait once started', async () => {
    vi.stubEnv('SERVICE_QUEUE_CONCURRENCY', '0');
    const waiting = await served();
    for (const key of ['acme', 'acme', 'beta']) {
      await waiting.app.request('/runs', postJson({ agent: 'helper', input: 'hi', key }));
    }
    let m = parseExposition(await (await waiting.app.request('/metrics')).text());
    const depth = 'agentdeck_queue_depth';
    expect(m.value(depth, { origin: 'helper', key: 'acme', state: 'waiting' })).toBe(2);
    expect(m.value(depth, { origin: 'helper', key: 'beta', state: 'waiting' })).toBe(1);
    expect(m.has('agentdeck_queue_oldest_wait_seconds', { origin: 'helper' })).toBe(true);
    await waiting.deck.close();

    vi.unstubAllEnvs();
    const { app, deck } = await served();
    const response = await app.request(
      '/runs',
      postJson({ agent: 'helper', input: 'hi', key: 'acme' }),
    );
    const { run_id } = (await response.json()) as { run_id: string };
    for (let i = 0; i < 200 && (await deck.status(run_id)) !== 'completed'; i++) {
      await new Promise((done) => setTimeout(done, 10));
    }
    m = parseExposition(await (await app.request('/metrics')).text());
    expect(m.value('agentdeck_queue_runs_started_total', { origin: 'helper', key: 'acme' })).toBe(
      1,
    );
    expect(m.value('agentdeck_queue_wait_seconds_count', { origin: 'helper' })).toBe(1);
    expect(m.has(depth)).toBe(false);
    await deck.close();
  });

  it('refuses a bad body with a 422 naming what was wrong, and queues nothing', async () => {
    const { app, eventStore } = await served();
    const cases: [unknown, number, RegExp][] = [
      [{ input: 'hi' }, 422, /exactly one of 'agent' and 'workflow'/],
      [{ agent: 'helper', workflow: 'approval', input: 'hi' }, 422, /exactly one/],
      [{ agent: 'helper' }, 422, /input/],
      [{ agent: 'nobody', input: 'hi' }, 404, /No agent or workflow named 'nobody'/],
      [{ agent: 'approval', input: {} }, 422, /'approval' is a workflow: name it as 'workflow'/],
      [{ workflow: 'approval', input: { amount: 'x' } }, 422, /amount/],
      [{ agent: 'helper', input: 'hi', priority: 1.5 }, 422, /priority/],
      [{ agent: 'helper', input: 'hi', priority: 5000 }, 422, /priority/],
      [{ agent: 'helper', input: 'hi', key: '' }, 422, /key/],
      [{ agent: 'helper', input: 'hi', multitask: 'later' }, 422, /multitask/],
      [{ agent: 'helper', input: 'hi', sesion_id: 's-1' }, 422, /^unknown field: sesion_id$/],
      [
        { agent: 'helper', input: 'hi', thread_id: 't' },
        422,
        /takes 'session_id', not 'thread_id'/,
      ],
    ];
    for (const [body, status, detail] of cases) {
      const response = await app.request('/runs', postJson(body));
      expect(response.status, JSON.stringify(body)).toBe(status);
      expect(((await response.json()) as { detail: string }).detail).toMatch(detail);
    }
    expect(await eventStore.listRuns()).toEqual([]);
  });

  it('answers 409 for a busy thread unless multitask says enqueue or interrupt', async () => {
    const { app, deck } = await served();
    const first = await deck.run('approval', { amount: 1 }, { sessionId: 'order-1' });
    expect(first).toMatchObject({ threadId: 'order-1' });
    const body = { workflow: 'approval', input: { amount: 2 }, thread_id: 'order-1' };
    const refused = await app.request('/runs', postJson(body));
    expect(refused.status).toBe(409);
    expect(((await refused.json()) as { detail: string }).detail).toMatch(
      /thread 'order-1' is busy: run '.+' is waiting_human there; pass multitask 'enqueue'/,
    );
    const interrupted = await app.request('/runs', postJson({ ...body, multitask: 'interrupt' }));
    expect(interrupted.status).toBe(202);
    const { run_id } = (await interrupted.json()) as { run_id: string };
    const [earlier] = (await deck.pending()).filter((item) => item.runId !== run_id);
    expect(earlier).toBeUndefined();
    for (let i = 0; i < 100 && (await deck.status(run_id)) !== 'waiting_human'; i++) {
      await new Promise((done) => setTimeout(done, 10));
    }
    expect(await deck.status(run_id)).toBe('waiting_human');
  });

  it('refuses a synchronous start over its rate with 429 and Retry-After; nothing is recorded', async () => {
    const { app, eventStore } = await served({ rate: { limit: 2, perSeconds: 60 } });
    for (let i = 0; i < 2; i++) {
      const ok = await app.request(
        '/agents/helper/chat',
        postJson({ session_id: `s-${i}`, message: 'hi' }),
      );
      expect(ok.status).toBe(200);
    }
    const over = await app.request(
      '/agents/helper/chat',
      postJson({ session_id: 's-9', message: 'hi' }),
    );
    expect(over.status).toBe(429);
    expect(Number(over.headers.get('retry-after'))).toBeGreaterThan(20);
    expect(((await over.json()) as { detail: string }).detail).toMatch(
      /'helper' is over its rate limit for key 'default' \(2 starts per 60 s\)/,
    );
    expect(await eventStore.listRuns({ sessionId: 's-9' })).toEqual([]);
  });
});
