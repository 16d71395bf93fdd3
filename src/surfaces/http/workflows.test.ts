/**
 * WIRE.md's workflow examples over `app.request()`: final states and interrupt objects as
 * JSON and SSE, threads, pending, resume, and the 404/409/422/500 rows.
 */
import { END, type LangGraphRunnableConfig, START, StateGraph } from '@langchain/langgraph';
import { describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import { openTestDeck } from '../../../test/support/decks.js';
import { headersOf, parseSse, postJson, SSE_HEADERS } from '../../../test/support/http.js';
import { threeSteps } from '../../../test/support/workflows.js';
import { interrupt, Workflow } from '../../index.js';
import { MemoryEventStore } from '../../stores/memory/index.js';

const RUN_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const Text = z.object({
  text: z.string(),
  upper: z.string().optional(),
  length: z.number().optional(),
});
type TextState = z.infer<typeof Text>;

/** shout -> notify (no update; writes a custom value) -> measure. */
const shout = new Workflow({
  name: 'shout',
  state: Text,
  graph: (state) =>
    new StateGraph(state)
      .addNode('shout', (s: TextState) => ({ upper: s.text.toUpperCase() }))
      .addNode('notify', (_s: TextState, config: LangGraphRunnableConfig) => {
        config.writer?.({ sent: true });
        return {}; // no update
      })
      .addNode('measure', (s: TextState) => ({ length: s.text.length }))
      .addEdge(START, 'shout')
      .addEdge('shout', 'notify')
      .addEdge('notify', 'measure')
      .addEdge('measure', END),
});

const Ask = z.object({ amount: z.number(), approved: z.boolean().optional() });
function approvalFlow(durable = false) {
  return new Workflow({
    name: 'approve',
    state: Ask,
    durable,
    graph: (state) =>
      new StateGraph(state)
        .addNode('ask', () => ({ approved: interrupt<boolean>({ question: 'approve?' }) }))
        .addEdge(START, 'ask')
        .addEdge('ask', END),
  });
}

const broken = new Workflow({
  name: 'broken',
  state: Text,
  graph: (state) =>
    new StateGraph(state)
      .addNode('boom', () => {
        throw new TypeError('secret: connection string postgres://u:pw@db');
      })
      .addEdge(START, 'boom')
      .addEdge('boom', END),
});

async function open(workflows: Workflow[]) {
  const { deck, eventStore } = await openTestDeck({
    workflows,
    eventStore: new MemoryEventStore(),
  });
  return { deck, eventStore, app: deck.app({ log: () => {} }) };
}

describe('POST /workflows/{name}', () => {
  it('answers the final state as JSON', async () => {
    const { app } = await open([shout]);
    const response = await app.request(
      '/workflows/shout?thread_id=t-1',
      postJson({ text: 'hello' }),
    );
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ text: 'hello', upper: 'HELLO', length: 5 });
  });

  it('streams one frame per completed node, custom writes, then done with the final state', async () => {
    const { app } = await open([shout]);
    const response = await app.request('/workflows/shout?stream=true', postJson({ text: 'hello' }));
    // WIRE.md's headers, and the additive X-Run-Id of the run the request started.
    expect(headersOf(response)).toEqual({
      ...SSE_HEADERS,
      'x-run-id': expect.stringMatching(RUN_ID),
    });
    expect(parseSse(await response.text())).toEqual([
      { data: { type: 'node_update', node: 'shout', delta: { upper: 'HELLO' } } },
      { data: { type: 'custom', data: { sent: true } } },
      { data: { type: 'node_update', node: 'notify', delta: null } },
      { data: { type: 'node_update', node: 'measure', delta: { length: 5 } } },
      { event: 'done', data: { text: 'hello', upper: 'HELLO', length: 5 } },
    ]);
  });

  it('answers the interrupt object when a node paused the run, as JSON and as event: interrupt', async () => {
    const { app } = await open([approvalFlow()]);
    const json = await app.request('/workflows/approve?thread_id=t-1', postJson({ amount: 5 }));
    expect(await json.json()).toEqual({
      type: 'interrupt',
      payload: { question: 'approve?' },
      thread_id: 't-1',
    });
    const sse = await app.request(
      '/workflows/approve?thread_id=t-2&stream=true',
      postJson({ amount: 5 }),
    );
    expect(parseSse(await sse.text())).toEqual([
      {
        event: 'interrupt',
        data: { type: 'interrupt', payload: { question: 'approve?' }, thread_id: 't-2' },
      },
    ]);
  });

  it('uses the run id as the thread when there is no thread_id', async () => {
    const { app, eventStore } = await open([approvalFlow()]);
    const body = (await (
      await app.request('/workflows/approve', postJson({ amount: 1 }))
    ).json()) as { thread_id: string };
    const [run] = await eventStore.listRuns();
    expect(body.thread_id).toBe(run?.runId);
  });

  it('answers the interrupt when one branch of a fan-out interrupts and a sibling completes', async () => {
    const Fan = z.object({ done: z.array(z.string()).default([]), answer: z.string().optional() });
    const fan = new Workflow({
      name: 'fan',
      state: Fan,
      graph: (state) =>
        new StateGraph(state)
          .addNode('quick', () => ({ done: ['quick'] }))
          .addNode('asks', () => ({ answer: interrupt<string>({ question: 'which?' }) }))
          .addEdge(START, 'quick')
          .addEdge(START, 'asks')
          .addEdge('quick', END)
          .addEdge('asks', END),
    });
    const { app } = await open([fan]);
    const response = await app.request('/workflows/fan?thread_id=f', postJson({}));
    expect(await response.json()).toEqual({
      type: 'interrupt',
      payload: { question: 'which?' },
      thread_id: 'f',
    });
  });

  it('answers 409 while the thread waits for an answer', async () => {
    const { app } = await open([approvalFlow()]);
    await app.request('/workflows/approve?thread_id=t-1', postJson({ amount: 5 }));
    for (const path of [
      '/workflows/approve?thread_id=t-1',
      '/workflows/approve?thread_id=t-1&stream=true',
    ]) {
      const again = await app.request(path, postJson({ amount: 6 }));
      expect(again.status).toBe(409);
      expect(((await again.json()) as { detail: string }).detail).toMatch(
        /'approve:t-1' is busy: run '/,
      );
    }
  });

  it('answers 422 for a durable workflow without thread_id, a bad state, or a body that is not an object', async () => {
    const { app } = await open([approvalFlow(true)]);
    const cases: Array<[string, string, RegExp]> = [
      ['/workflows/approve', '{"amount": 1}', /durable: pass sessionId/],
      ['/workflows/approve?thread_id=t', '{"amount": "ten"}', /amount/],
      ['/workflows/approve?thread_id=t', '[1]', /must be a JSON object, got array/],
      ['/workflows/approve?thread_id=t', 'nope', /not valid JSON/],
    ];
    for (const [path, body, detail] of cases) {
      const response = await app.request(path, postJson(body));
      expect(response.status).toBe(422);
      expect(((await response.json()) as { detail: string }).detail).toMatch(detail);
    }
  });

  it('answers 500 internal error for a failing node over JSON, event: error with the type name over SSE', async () => {
    const log = vi.fn();
    const { deck } = await open([broken]);
    const app = deck.app({ log });
    const json = await app.request('/workflows/broken', postJson({ text: 'x' }));
    expect(json.status).toBe(500);
    // 1.2.1's body, to which #41 adds the failed run's id (and its X-Run-Id header).
    const runId = json.headers.get('x-run-id');
    expect(runId).toMatch(RUN_ID);
    expect(await json.json()).toEqual({ detail: 'internal error', run_id: runId });
    const sse = await app.request('/workflows/broken?stream=true', postJson({ text: 'x' }));
    const text = await sse.text();
    expect(parseSse(text)).toEqual([{ event: 'error', data: { error: 'TypeError' } }]);
    expect(text).not.toContain('postgres://');
    expect(log.mock.calls.join('\n')).toContain('postgres://u:pw@db');
  });

  it('answers 404 for an unknown workflow', async () => {
    const { app } = await open([shout, threeSteps()]);
    const response = await app.request('/workflows/nope', postJson({}));
    expect(response.status).toBe(404);
    expect(await response.json()).toEqual({
      detail: "No workflow named 'nope'. Available: ['shout', 'three-steps'].",
    });
  });
});

describe('pending and resume', () => {
  it('lists waiting threads sorted by thread id, [] when none, 404 for an unknown workflow', async () => {
    const { app } = await open([approvalFlow()]);
    expect(await (await app.request('/workflows/approve/pending')).json()).toEqual([]);
    for (const t of ['t-b', 't-a']) {
      await app.request(`/workflows/approve?thread_id=${t}`, postJson({ amount: 1 }));
    }
    expect(await (await app.request('/workflows/approve/pending')).json()).toEqual([
      { type: 'interrupt', payload: { question: 'approve?' }, thread_id: 't-a' },
      { type: 'interrupt', payload: { question: 'approve?' }, thread_id: 't-b' },
    ]);
    expect((await app.request('/workflows/nope/pending')).status).toBe(404);
  });

  it('resumes a paused thread with {"value"} and answers the final state; 404 once it is not paused', async () => {
    const { app } = await open([approvalFlow()]);
    await app.request('/workflows/approve?thread_id=t-1', postJson({ amount: 5 }));
    const resumed = await app.request('/workflows/approve/t-1/resume', postJson({ value: true }));
    expect(resumed.status).toBe(200);
    expect(resumed.headers.get('content-type')).toBe('application/json');
    expect(await resumed.json()).toEqual({ amount: 5, approved: true });
    const again = await app.request('/workflows/approve/t-1/resume', postJson({ value: true }));
    expect(again.status).toBe(404);
    expect(await again.json()).toEqual({ detail: "No paused run of 'approve' on thread 't-1'." });
    const never = await app.request('/workflows/approve/t-9/resume', postJson({ value: false }));
    expect(await never.json()).toEqual({ detail: "No paused run of 'approve' on thread 't-9'." });
  });

  it('answers the next interrupt object when the resumed run asks again; null is an answer', async () => {
    const Two = z.object({ a: z.unknown().optional(), b: z.unknown().optional() });
    const twice = new Workflow({
      name: 'twice',
      state: Two,
      graph: (state) =>
        new StateGraph(state)
          .addNode('first', () => ({ a: interrupt({ q: 1 }) }))
          .addNode('second', () => ({ b: interrupt({ q: 2 }) }))
          .addEdge(START, 'first')
          .addEdge('first', 'second')
          .addEdge('second', END),
    });
    const { app } = await open([twice]);
    await app.request('/workflows/twice?thread_id=t', postJson({}));
    const next = await app.request('/workflows/twice/t/resume', postJson({ value: null }));
    expect(await next.json()).toEqual({ type: 'interrupt', payload: { q: 2 }, thread_id: 't' });
    const done = await app.request('/workflows/twice/t/resume', postJson({ value: 'yes' }));
    expect(await done.json()).toEqual({ a: null, b: 'yes' });
  });

  it('answers 422 missing field: value', async () => {
    const { app } = await open([approvalFlow()]);
    await app.request('/workflows/approve?thread_id=t-1', postJson({ amount: 5 }));
    const response = await app.request('/workflows/approve/t-1/resume', postJson({ answer: 1 }));
    expect(response.status).toBe(422);
    expect(await response.json()).toEqual({ detail: 'missing field: value' });
  });
});
