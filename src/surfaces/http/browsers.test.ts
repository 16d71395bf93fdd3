/**
 * What browsers and API clients get beyond 1.2.1's bodies: a body that is not JSON is 415 and
 * starts nothing; a state-changing request a browser sent from an origin that is not allowed
 * is 403; CORS answers preflights for allowed origins only and exposes `X-Run-Id`; every
 * answer that starts or continues a run names it in `X-Run-Id`; a chat stream stopped by a
 * pause ends with `event: paused`; an ended run's events read from past its end are 204.
 * In-process; the same in a real browser is test/browser/.
 */
import { describe, expect, it } from 'vitest';
import { openTestDeck } from '../../../test/support/decks.js';
import { parseSse, postJson } from '../../../test/support/http.js';
import { approval } from '../../../test/support/workflows.js';
import { Agent, ConfigError } from '../../index.js';
import { MemoryEventStore } from '../../stores/memory/index.js';
import { ScriptedModel } from '../../testing/index.js';
import { checkOrigins } from './options.js';

const FRONT_END = 'http://localhost:3000';

async function deckWith(steps: ConstructorParameters<typeof ScriptedModel>[0] = []) {
  const eventStore = new MemoryEventStore();
  const { deck } = await openTestDeck({
    agents: [new Agent({ name: 'Greeter', model: new ScriptedModel(steps) })],
    workflows: [approval()],
    eventStore,
  });
  return { deck, eventStore };
}

/** A POST as a page on `origin` sends it from another site. */
function crossSite(origin: string, body: unknown, type = 'application/json'): RequestInit {
  return {
    method: 'POST',
    headers: { 'content-type': type, origin, 'sec-fetch-site': 'same-site' },
    body: JSON.stringify(body),
  };
}

describe('requests a browser page could forge', () => {
  it('refuses a body that is not JSON with 415, and starts nothing', async () => {
    const { deck, eventStore } = await deckWith([{ text: 'hi' }]);
    const response = await deck.app().request('/agents/Greeter/chat', {
      method: 'POST',
      headers: { 'content-type': 'text/plain;charset=UTF-8' },
      body: JSON.stringify({ session_id: 's-1', message: 'hello' }),
    });
    expect(response.status).toBe(415);
    expect(await response.json()).toEqual({
      detail:
        "the request body must be JSON sent with Content-Type: application/json, got 'text/plain'",
    });
    expect(await eventStore.listRuns()).toEqual([]);
  });

  it('reads a body sent with no content type as JSON, as 1.2.1 did', async () => {
    const { deck } = await deckWith([{ text: 'hi' }]);
    // Bytes, not a string: a string body would get fetch's own `text/plain` type.
    const body = new TextEncoder().encode(JSON.stringify({ session_id: 's-1', message: 'hello' }));
    const response = await deck.app().request('/agents/Greeter/chat', { method: 'POST', body });
    expect(response.status).toBe(200);
  });

  it('refuses a state-changing request from an origin that is not allowed (403), even without a body', async () => {
    const { deck, eventStore } = await deckWith();
    const app = deck.app();
    const start = await app.request(
      '/workflows/approval?thread_id=t-1',
      crossSite(FRONT_END, { amount: 5 }),
    );
    expect(start.status).toBe(403);
    expect(((await start.json()) as { detail: string }).detail).toContain(
      "cross-origin request from 'http://localhost:3000' refused",
    );
    const cancel = await app.request('/runs/some-run/cancel', {
      method: 'POST',
      headers: { origin: 'https://evil.example', 'sec-fetch-site': 'cross-site' },
    });
    expect(cancel.status).toBe(403);
    expect(await eventStore.listRuns()).toEqual([]);
    // Reads are not refused: a GET changes nothing (its answer stays the page's only with CORS).
    expect((await app.request('/health', { headers: { origin: FRONT_END } })).status).toBe(200);
  });

  it('lets through the same origin, a browser address bar, and clients that are not browsers', async () => {
    const { deck } = await deckWith();
    const app = deck.app();
    const same = { ...crossSite('http://localhost', { amount: 1 }) };
    (same.headers as Record<string, string>)['sec-fetch-site'] = 'same-origin';
    expect((await app.request('/workflows/approval?thread_id=a', same)).status).toBe(200);
    expect(
      (await app.request('/workflows/approval?thread_id=b', postJson({ amount: 1 }))).status,
    ).toBe(200);
  });
});

describe('CORS', () => {
  it('is off by default: a preflight is not answered with an allowed origin', async () => {
    const { deck } = await deckWith();
    const preflight = await deck.app().request('/agents/Greeter/chat', {
      method: 'OPTIONS',
      headers: { origin: FRONT_END, 'access-control-request-method': 'POST' },
    });
    expect(preflight.headers.get('access-control-allow-origin')).toBeNull();
  });

  it('answers the preflights of an allowed origin, accepts its requests and exposes X-Run-Id', async () => {
    const { deck, eventStore } = await deckWith();
    const app = deck.app({ corsOrigins: [FRONT_END] });
    const preflight = await app.request('/workflows/approval', {
      method: 'OPTIONS',
      headers: {
        origin: FRONT_END,
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'content-type',
      },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('access-control-allow-origin')).toBe(FRONT_END);
    const started = await app.request(
      '/workflows/approval?thread_id=t-1',
      crossSite(FRONT_END, { amount: 5 }),
    );
    expect(started.status).toBe(200);
    expect(started.headers.get('access-control-allow-origin')).toBe(FRONT_END);
    expect(started.headers.get('access-control-expose-headers')).toBe(
      'x-run-id,Retry-After,Mcp-Session-Id',
    );
    const [run] = await eventStore.listRuns();
    expect(started.headers.get('x-run-id')).toBe(run?.runId);
    const other = await app.request(
      '/workflows/approval?thread_id=t-2',
      crossSite('https://evil.example', { amount: 5 }),
    );
    expect(other.status).toBe(403);
  });

  it("lets an allowed origin's page send what the MCP and A2A clients send", async () => {
    const { deck } = await deckWith();
    const app = deck.app({ corsOrigins: [FRONT_END] });
    const asked = 'authorization,content-type,mcp-protocol-version,mcp-method,mcp-name,a2a-version';
    const preflight = await app.request('/mcp', {
      method: 'OPTIONS',
      headers: {
        origin: FRONT_END,
        'access-control-request-method': 'POST',
        'access-control-request-headers': asked,
      },
    });
    expect(preflight.status).toBe(204);
    const allowed = (preflight.headers.get('access-control-allow-headers') ?? '').toLowerCase();
    for (const header of asked.split(',')) expect(allowed.split(',')).toContain(header);
  });

  it('refuses an allowed origin that is not an origin, saying how to write one', () => {
    expect(() => checkOrigins(['http://localhost:3000/'])).toThrow(ConfigError);
    expect(() => checkOrigins(['localhost:3000'], 'SERVICE_CORS_ORIGINS')).toThrow(
      "SERVICE_CORS_ORIGINS: 'localhost:3000' is not an origin",
    );
    expect(checkOrigins(['*', 'https://app.example.com'])).toEqual([
      '*',
      'https://app.example.com',
    ]);
  });
});

describe('the run behind an answer', () => {
  it('names it in X-Run-Id on chat, workflow and both resume answers', async () => {
    const { deck, eventStore } = await deckWith([{ text: 'hi' }]);
    const app = deck.app();
    const chat = await app.request(
      '/agents/Greeter/chat',
      postJson({ session_id: 's-1', message: 'x' }),
    );
    const [chatRun] = await eventStore.listRuns({ origin: 'Greeter' });
    expect(chat.headers.get('x-run-id')).toBe(chatRun?.runId);
    const asked = await app.request('/workflows/approval?thread_id=t-1', postJson({ amount: 5 }));
    const [flowRun] = await eventStore.listRuns({ origin: 'approval' });
    expect(asked.headers.get('x-run-id')).toBe(flowRun?.runId);
    const answered = await app.request(
      '/workflows/approval/t-1/resume',
      postJson({ value: { approved: true } }),
    );
    expect(answered.status).toBe(200);
    expect(answered.headers.get('x-run-id')).toBe(flowRun?.runId);
  });

  it('ends a chat stream stopped by a pause with event: paused, then 204 past the end of an ended run', async () => {
    const { deck } = await deckWith([{ text: ['Tues', 'day'], delayMs: 30 }, { text: 'Tuesday' }]);
    const app = deck.app();
    const response = await app.request(
      '/agents/Greeter/chat?stream=true',
      postJson({ session_id: 's-2', message: 'when?' }),
    );
    const runId = response.headers.get('x-run-id') as string;
    await deck.pause(runId, { reason: 'lunch' });
    const frames = parseSse(await response.text());
    expect(frames.at(-1)).toEqual({
      event: 'paused',
      data: { run_id: runId, status: 'paused', reason: 'lunch' },
    });
    await deck.resume(runId);
    const all = parseSse(await (await app.request(`/runs/${runId}/events`)).text());
    const last = Number(all.at(-1)?.id);
    const past = await app.request(`/runs/${runId}/events`, {
      headers: { 'last-event-id': String(last) },
    });
    expect(past.status).toBe(204);
    const before = await app.request(`/runs/${runId}/events`, {
      headers: { 'last-event-id': String(last - 1) },
    });
    expect(before.status).toBe(200);
    expect(parseSse(await before.text()).map((frame) => frame.id)).toEqual([String(last)]);
  });
});
