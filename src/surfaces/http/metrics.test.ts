/**
 * `GET /metrics` over `app.request()`: a deck with an agent on the scripted model and three
 * workflows plays a few runs over HTTP, and the scrape says what happened, with the right
 * labels: runs by origin and status, events by kind (as many as the store holds), requests by
 * route pattern, live and waiting runs, store operations by backend. Plus the gate (API key,
 * 503 before open) and a store that fails while Prometheus scrapes.
 */
import { END, START, StateGraph } from '@langchain/langgraph';
import { describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import { openTestDeck, testDeck } from '../../../test/support/decks.js';
import { postJson } from '../../../test/support/http.js';
import { parseExposition } from '../../../test/support/prometheus.js';
import { approval, threeSteps } from '../../../test/support/workflows.js';
import type { ListRunsFilter, RunSummary } from '../../core/store.js';
import { Agent, type Observer, Workflow } from '../../index.js';
import { MemoryEventStore } from '../../stores/memory/index.js';
import { ScriptedModel } from '../../testing/index.js';

const CONTENT_TYPE = 'text/plain; version=0.0.4; charset=utf-8';

const broken = new Workflow({
  name: 'broken',
  state: z.object({ n: z.number() }),
  graph: (state) =>
    new StateGraph(state)
      .addNode('boom', () => {
        throw new Error('node failed');
      })
      .addEdge(START, 'boom')
      .addEdge('boom', END),
});

async function scrape(
  app: { request(path: string, init?: RequestInit): Promise<Response> | Response },
  init?: RequestInit,
) {
  const response = await app.request('/metrics', init);
  expect(response.status).toBe(200);
  expect(response.headers.get('content-type')).toBe(CONTENT_TYPE);
  return parseExposition(await response.text());
}

/** The deck under test: its HTTP app, and the store it writes to. */
async function open(options: { eventStore?: MemoryEventStore; observers?: Observer[] } = {}) {
  const model = new ScriptedModel([
    { text: 'Hello.' },
    { text: ['Hi ', 'there.'] },
    { error: 'upstream overloaded' },
  ]);
  const greeter = new Agent({ name: 'Greeter', instructions: 'Greet.', model });
  const { deck, eventStore } = await openTestDeck({
    agents: [greeter],
    workflows: [threeSteps(), approval({ durable: true }), broken], // durable: the deck's checkpointer
    eventStore: options.eventStore ?? new MemoryEventStore(),
    observers: options.observers ?? [],
  });
  return { deck, eventStore, model, app: deck.app({ log: () => {} }) };
}

describe('GET /metrics', () => {
  it('counts runs, events, requests, and reads live and waiting runs', async () => {
    const { app, eventStore, model } = await open();
    const chat = (query = '') =>
      app.request(`/agents/Greeter/chat${query}`, postJson({ session_id: 's-1', message: 'hi' }));
    expect((await chat()).status).toBe(200);
    const streamed = await chat('?stream=true');
    expect(await streamed.text()).toContain('event: done');
    expect((await chat()).status).toBe(500); // the model call fails: run.failed
    model.assertConsumed();
    const post = (path: string, body: unknown) => app.request(path, postJson(body));
    expect((await post('/workflows/three-steps?thread_id=t-1', { n: 0 })).status).toBe(200);
    const asked = await post('/workflows/approval?thread_id=t-2', { amount: 5 });
    expect(await asked.json()).toMatchObject({ type: 'interrupt', thread_id: 't-2' });
    expect((await post('/workflows/broken', { n: 0 })).status).toBe(500);
    expect((await app.request('/runs/no-such-run')).status).toBe(404);
    expect((await app.request('/no/such/path')).status).toBe(404);

    const m = await scrape(app);
    const started = (origin: string, kind: string) =>
      m.value('agentdeck_runs_started_total', { origin, kind });
    expect(started('Greeter', 'agent')).toBe(3);
    expect(started('three-steps', 'workflow')).toBe(1);
    expect(started('approval', 'workflow')).toBe(1);
    expect(started('broken', 'workflow')).toBe(1);
    const ended = (origin: string, status: string) =>
      m.value('agentdeck_runs_ended_total', { origin, status });
    expect(ended('Greeter', 'completed')).toBe(2);
    expect(ended('Greeter', 'failed')).toBe(1);
    expect(ended('three-steps', 'completed')).toBe(1);
    expect(ended('broken', 'failed')).toBe(1);
    expect(m.value('agentdeck_runs_ended_total', { origin: 'approval' })).toBe(0);
    const durations = 'agentdeck_run_duration_seconds_count';
    expect(m.value(durations, { origin: 'Greeter', status: 'completed' })).toBe(2);
    expect(m.value(durations, { origin: 'broken', status: 'failed' })).toBe(1);
    expect(m.types.get('agentdeck_run_duration_seconds')).toBe('histogram');

    // Every event in the store was counted once, under its own kind.
    const stored = [];
    for (const run of await eventStore.listRuns({ limit: 100 })) {
      stored.push(...(await eventStore.read(run.runId)));
    }
    expect(m.value('agentdeck_events_appended_total')).toBe(stored.length);
    for (const kind of new Set(stored.map((e) => e.kind))) {
      const count = stored.filter((e) => e.kind === kind).length;
      expect(m.value('agentdeck_events_appended_total', { kind }), kind).toBe(count);
    }

    const requests = (method: string, route: string, status: string) =>
      m.value('agentdeck_http_requests_total', { method, route, status });
    expect(requests('POST', '/agents/:name/chat', '200')).toBe(2);
    expect(requests('POST', '/agents/:name/chat', '500')).toBe(1);
    expect(requests('POST', '/workflows/:name', '200')).toBe(2);
    expect(requests('POST', '/workflows/:name', '500')).toBe(1);
    expect(requests('GET', '/runs/:run_id', '404')).toBe(1);
    expect(requests('GET', 'unmatched', '404')).toBe(1);
    expect(
      m.value('agentdeck_http_request_duration_seconds_count', {
        method: 'POST',
        route: '/agents/:name/chat',
      }),
    ).toBe(3);
    expect(m.samples.some((s) => s.labels.route?.includes('no-such'))).toBe(false);

    expect(m.value('agentdeck_live_runs')).toBe(0);
    expect(m.value('agentdeck_runs_waiting', { status: 'waiting_human' })).toBe(1);
    expect(m.value('agentdeck_runs_waiting', { status: 'paused' })).toBe(0);

    const ops = 'agentdeck_store_operation_duration_seconds_count';
    expect(m.value(ops, { store: 'events', backend: 'memory', operation: 'claimAndAppend' })).toBe(
      6,
    );
    expect(m.value(ops, { store: 'sessions', backend: 'sqlite' })).toBeGreaterThan(0);
    expect(m.value(ops, { store: 'checkpoints', backend: 'memory' })).toBeGreaterThan(0);
    expect(m.value('agentdeck_store_operation_errors_total')).toBe(0);

    // The scrape itself is a request like any other.
    const again = await scrape(app);
    expect(again.value('agentdeck_http_requests_total', { method: 'GET', route: '/metrics' })).toBe(
      1,
    );
  });

  it('needs the bearer key when API keys are set, and answers 503 before the deck opens', async () => {
    const { deck } = testDeck({ workflows: [threeSteps()] });
    const app = deck.app({ apiKeys: ['k-1'] });
    expect((await app.request('/metrics')).status).toBe(503);
    await deck.open();
    const refused = await app.request('/metrics');
    expect(refused.status).toBe(401);
    expect(await refused.json()).toEqual({
      detail: 'missing or invalid API key: send Authorization: Bearer <key>',
    });
    const m = await scrape(app, { headers: { authorization: 'Bearer k-1' } });
    // The refusal was counted, under the route it was refused on.
    expect(
      m.value('agentdeck_http_requests_total', {
        method: 'GET',
        route: '/metrics',
        status: '401',
      }),
    ).toBe(1);
  });

  it('serves a scrape when the store fails meanwhile, counting the error and keeping the last count', async () => {
    const store = new FlakyStore();
    const { app } = await open({ eventStore: store });
    await app.request('/workflows/approval?thread_id=t-1', postJson({ amount: 1 }));
    const first = await scrape(app);
    expect(first.value('agentdeck_runs_waiting', { status: 'waiting_human' })).toBe(1);
    store.failLists = true;
    const second = await scrape(app);
    expect(second.value('agentdeck_runs_waiting', { status: 'waiting_human' })).toBe(1);
    expect(
      second.value('agentdeck_store_operation_errors_total', {
        store: 'events',
        backend: 'memory',
        operation: 'listRuns',
      }),
    ).toBe(2); // paused and waiting_human
  });

  it('shows each observer queue, and the events a disabled observer missed', async () => {
    vi.spyOn(console, 'warn').mockImplementation(() => {});
    const failing: Observer = {
      name: 'failing',
      emit() {
        throw new Error('collector down');
      },
    };
    const { app, eventStore } = await open({ observers: [failing] });
    await app.request('/workflows/three-steps', postJson({ n: 0 }));
    await new Promise((resolve) => setTimeout(resolve, 20)); // the queue delivers on later turns
    const m = await scrape(app);
    const [run] = await eventStore.listRuns();
    const events = await eventStore.read(run?.runId ?? '');
    // Five failures in a row disable it; every later event is dropped.
    expect(m.value('agentdeck_observer_events_dropped_total', { observer: 'failing' })).toBe(
      events.length - 5,
    );
    expect(m.has('agentdeck_observer_queue_backlog', { observer: 'failing' })).toBe(true);
  });
});

/** A memory store whose `listRuns` can be made to fail, as a store that lost its connection. */
class FlakyStore extends MemoryEventStore {
  failLists = false;

  override async listRuns(filter?: ListRunsFilter): Promise<RunSummary[]> {
    if (this.failLists) throw new Error('connection lost');
    return super.listRuns(filter);
  }
}
