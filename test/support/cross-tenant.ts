/**
 * The cross-tenant suite (#39, docs/tenants.md), generated from the served OpenAPI document:
 * tenant A (key `key-a`) leaves a tool call waiting for approval on session `s-a` and a
 * workflow question on thread `t-a`; then, for EVERY documented route whose path names a run,
 * thread, session, chat or schedule, tenant B's request for A's id must answer exactly as B's
 * request for an id that never existed (same status, same body but for the id), never a 422
 * (a route this suite cannot call yet fails it, rather than passing unexamined); every GET
 * route without such an id (the listings, the inbox) must show B none of A's ids; B cannot
 * start a run on A's session or thread (409); and A's runs are still waiting afterwards,
 * untouched by B's answers, pauses and cancels. A new route that reaches a run without going
 * through the tenant's scope (surfaces/http/tenancy.ts) fails this suite the day it is added.
 * Run through a real server on a real port, once per event store backend.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { z } from 'zod';
import { Agent, Deck, type EventStore, Schedule, tool } from '../../src/index.js';
import { type RunningServer, serve } from '../../src/surfaces/http/index.js';
import { type ScriptedModelServer, scriptedModelServer } from '../../src/testing/index.js';
import { approval } from './workflows.js';

// Every role, so that what B meets is the tenant's scope and never a missing role's 403.
const KEYS = [
  { key: 'key-a', tenant: 'acme' },
  { key: 'key-b', tenant: 'globex' },
];

/** A's ids, and the ids B asks for instead to see what "unknown" looks like. */
interface Ids {
  run: string;
  workflowRun: string;
  thread: string;
  session: string;
}

/** Path parameters that name something a tenant owns, with A's value and an unknown one. */
function ownedParam(path: string, param: string, a: Ids): { mine: string; unknown: string } | null {
  const unknown = `unknown-${randomUUID()}`;
  if (param === 'run_id') return { mine: a.run, unknown };
  if (param === 'response_id') return { mine: `resp_${a.run}`, unknown: `resp_${unknown}` };
  if (param === 'thread_id') return { mine: a.thread, unknown };
  if (param === 'session_id' || param === 'chat_id') return { mine: a.session, unknown };
  if (param.endsWith('_id')) throw new Error(`${path}: no value for {${param}}: add one here`);
  if (param === 'name' && path.startsWith('/schedules/')) return { mine: 'nightly', unknown };
  return null;
}

/** A catalog parameter (not owned by a tenant): the same for A and B. */
function catalogParam(path: string, param: string): string {
  if (path.startsWith('/workflows/') || param === 'workflow') return 'approval';
  // An experiment: tenants' datasets and experiments are kept apart by the store (the evals
  // contract, src/testing/event-store-evals.ts); here it is probed as a listing is.
  if (param === 'id' && path.startsWith('/evals/experiments/')) return 'exp_probe';
  if (param === 'name' || param === 'model') return 'Mailer'; // an agent (a model on /v1)
  throw new Error(`${path}: no value for {${param}}: add one here`);
}

/** Bodies and queries for the routes that take them (a route missing here gets a 422: fails). */
const BODIES: Record<string, unknown> = {
  'post /runs/{run_id}/answer': { value: { approved: true } },
  'post /workflows/{name}/{thread_id}/resume': { value: { approved: true } },
  'post /runs/{run_id}/pause': { reason: 'probe' },
  'post /runs/{run_id}/cancel': { reason: 'probe' },
};
const QUERIES: Record<string, string> = { 'get /runs/{run_id}/events': '?follow=false' };

/** A store of the backend under test, and how to remove it once the server has closed. */
export interface TenantStore {
  store: EventStore;
  close(): Promise<void>;
}

export function describeCrossTenant(open: () => Promise<TenantStore>): void {
  let model: ScriptedModelServer;
  let opened: TenantStore | undefined;
  let server: RunningServer;
  const saved = { base: process.env.OPENAI_BASE_URL, key: process.env.OPENAI_API_KEY };
  const call = (key: string, method: string, path: string, body?: unknown) =>
    fetch(`${server.url}${path}`, {
      method: method.toUpperCase(),
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      ...(method === 'post' ? { body: JSON.stringify(body ?? {}) } : {}),
      signal: AbortSignal.timeout(10_000),
    });
  const a: Ids = {
    run: '',
    workflowRun: '',
    thread: `thread-a-${randomUUID()}`,
    session: `session-a-${randomUUID()}`,
  };

  beforeAll(async () => {
    model = await scriptedModelServer([]);
    process.env.OPENAI_BASE_URL = model.url;
    process.env.OPENAI_API_KEY = 'sk-test';
    const send = tool({
      name: 'send_email',
      description: 'Send an email',
      parameters: z.object({ to: z.string() }),
      needsApproval: true,
      execute: ({ to }) => `sent to ${to}`,
    });
    opened = await open();
    const { store } = opened;
    const deck = new Deck({
      agents: [new Agent({ name: 'Mailer', tools: [send] })],
      workflows: [approval()],
      schedules: [
        new Schedule({ name: 'nightly', target: 'approval', cron: '0 3 1 1 *', input: {} }),
      ],
      eventStore: store,
    });
    server = await serve(deck, {
      host: '127.0.0.1',
      port: 0,
      wakeTimers: false,
      handleSignals: false,
      app: { apiKeys: KEYS },
    });
    model.push({ toolCalls: [{ name: 'send_email', arguments: { to: 'ann' } }] });
    const chat = await call('key-a', 'post', '/agents/Mailer/chat', {
      session_id: a.session,
      message: 'Email ann',
    });
    expect(chat.status).toBe(200);
    a.run = chat.headers.get('x-run-id') ?? '';
    const asked = await call('key-a', 'post', `/workflows/approval?thread_id=${a.thread}`, {
      amount: 5,
    });
    expect(asked.status).toBe(200);
    a.workflowRun = asked.headers.get('x-run-id') ?? '';
    expect(a.run).not.toBe('');
    expect(a.workflowRun).not.toBe('');
  });

  afterAll(async () => {
    await server?.close();
    await opened?.close();
    await model?.close();
    for (const [name, value] of [
      ['OPENAI_BASE_URL', saved.base],
      ['OPENAI_API_KEY', saved.key],
    ] as const) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
  });

  it("answers tenant B for each of A's runs, threads, sessions and schedules as for an unknown id", async () => {
    const document = (await (await call('key-b', 'get', '/openapi.json')).json()) as {
      paths: Record<string, Record<string, unknown>>;
    };
    const probed: string[] = [];
    const mineIds = () => [a.run, a.workflowRun, a.thread, a.session];
    for (const [path, operations] of Object.entries(document.paths)) {
      for (const method of Object.keys(operations)) {
        const route = `${method} ${path}`;
        const params = [...path.matchAll(/\{(\w+)\}/g)].map((m) => m[1] as string);
        const owned = params.flatMap((p) => {
          const found = ownedParam(path, p, a);
          return found ? [{ param: p, ...found }] : [];
        });
        const fill = (which: 'mine' | 'unknown') =>
          path.replace(/\{(\w+)\}/g, (_, p: string) => {
            const found = owned.find((o) => o.param === p);
            return encodeURIComponent(found ? found[which] : catalogParam(path, p));
          }) + (QUERIES[route] ?? '');
        if (owned.length === 0) {
          // A listing (or a route that names nothing of A's): B sees none of A's ids in it.
          if (method !== 'get') continue;
          const text = await (await call('key-b', method, fill('mine'))).text();
          for (const id of mineIds()) expect(text, `${route} shows B ${id}`).not.toContain(id);
          probed.push(route);
          continue;
        }
        const body = BODIES[route];
        const theirs = await call('key-b', method, fill('mine'), body);
        const unknown = await call('key-b', method, fill('unknown'), body);
        let expected = await unknown.text();
        for (const o of owned) expected = expected.replaceAll(o.unknown, o.mine);
        const got = await theirs.text();
        expect(theirs.status, `${route}: ${got}`).not.toBe(422);
        expect({ status: theirs.status, body: got }, route).toEqual({
          status: unknown.status,
          body: expected,
        });
        if (method === 'get' && !path.endsWith('/stream')) {
          // The route does read A's id: A's own request gets something else.
          const own = await call('key-a', method, fill('mine'));
          const ownText = await own.text();
          // A route refused for the workflow itself, before any id is read (this suite's
          // workflow is not durable, so it has no checkpoints to list), answers A as B.
          const refusedForWorkflow = own.status === 409 && ownText.includes('is not durable');
          if (!refusedForWorkflow) {
            expect(`${own.status} ${ownText}`, `${route} for A`).not.toEqual(
              `${theirs.status} ${got}`,
            );
          }
        }
        probed.push(route);
      }
    }
    // The routes this suite must have reached (a renamed one would silently drop out).
    for (const route of [
      'get /runs',
      'get /pending',
      'get /workflows/{name}/pending',
      'get /schedules',
      'get /runs/{run_id}',
      'get /runs/{run_id}/events',
      'post /runs/{run_id}/answer',
      'post /runs/{run_id}/pause',
      'post /runs/{run_id}/cancel',
      'post /runs/{run_id}/resume',
      'post /workflows/{name}/{thread_id}/resume',
      'get /threads/{workflow}/{thread_id}',
      'get /sessions/{session_id}',
      'get /agents/{name}/ui-chat/{chat_id}/stream',
      'post /schedules/{name}/trigger',
    ]) {
      expect(probed).toContain(route);
    }
    // A still sees its own, and B's answers, pauses and cancels changed nothing of A's.
    const listed = await (await call('key-a', 'get', '/runs')).text();
    for (const id of [a.run, a.workflowRun]) expect(listed).toContain(id);
    const inbox = (await (await call('key-a', 'get', '/pending')).json()) as {
      items: { run_id: string }[];
    };
    expect(inbox.items.map((item) => item.run_id).sort()).toEqual([a.run, a.workflowRun].sort());
    const events = await (await call('key-a', 'get', `/runs/${a.run}/events?follow=false`)).text();
    expect(events).not.toContain('control.requested');
  });

  it("refuses tenant B a run on A's session or thread id (409), and lets A go on", async () => {
    const chat = await call('key-b', 'post', '/agents/Mailer/chat', {
      session_id: a.session,
      message: 'what did ann say?',
    });
    expect(chat.status).toBe(409);
    expect(await chat.text()).not.toContain('ann');
    const thread = await call('key-b', 'post', `/workflows/approval?thread_id=${a.thread}`, {
      amount: 1,
    });
    expect(thread.status).toBe(409);
    // The same through the other front ends that take a session id in their body.
    const completions = await call('key-b', 'post', '/v1/chat/completions', {
      model: 'Mailer',
      messages: [{ role: 'user', content: 'what did ann say?' }],
      session_id: a.session,
    });
    expect(completions.status).toBe(409);
    const uiChat = await call('key-b', 'post', '/agents/Mailer/ui-chat', {
      id: a.session,
      messages: [{ id: 'm1', role: 'user', parts: [{ type: 'text', text: 'what did ann say?' }] }],
    });
    expect(`${uiChat.status} ${await uiChat.text()}`).toMatch(/^409 .*already in use/);
    // Regenerating A's chat would first take A's last turn out of its history: nothing goes.
    const history = () => call('key-a', 'get', `/sessions/${a.session}`).then((r) => r.text());
    const before = await history();
    const regenerate = await call('key-b', 'post', '/agents/Mailer/ui-chat', {
      id: a.session,
      trigger: 'regenerate-message',
      messages: [{ id: 'm1', role: 'user', parts: [{ type: 'text', text: 'again' }] }],
    });
    expect(regenerate.status).toBe(409);
    expect(await history()).toBe(before);
    expect(before).toContain('Email ann');
    model.push({ text: 'Hi B.' });
    const own = await call('key-b', 'post', '/agents/Mailer/chat', {
      session_id: `s-b-${randomUUID()}`,
      message: 'hello',
    });
    expect(own.status).toBe(200);
    const listed = (await (await call('key-b', 'get', '/runs')).json()) as {
      runs: { namespace: string }[];
    };
    expect(listed.runs.map((run) => run.namespace)).toEqual(['globex']);
  });
  it("answers tenant B's protocol calls naming A's run (MCP, A2A, OpenAI) as for an unknown one", async () => {
    const rpc = (path: string, method: string, params: unknown) =>
      fetch(`${server.url}${path}`, {
        method: 'POST',
        headers: {
          authorization: 'Bearer key-b',
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          'a2a-version': '1.0',
        },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
        signal: AbortSignal.timeout(10_000),
      });
    const mcp = (name: string, args: Record<string, unknown>) =>
      rpc('/mcp', 'tools/call', { name, arguments: args });
    const calls: [string, (id: string) => Promise<Response>][] = [
      ['mcp get_run', (id) => mcp('get_run', { run_id: id })],
      ['mcp answer_run', (id) => mcp('answer_run', { run_id: id, value: { approved: true } })],
      ['a2a GetTask', (id) => rpc('/a2a/Mailer', 'GetTask', { id })],
      ['a2a CancelTask', (id) => rpc('/a2a/Mailer', 'CancelTask', { id })],
      [
        'openai previous_response_id',
        (id) =>
          call('key-b', 'post', '/v1/responses', {
            model: 'Mailer',
            input: 'and then?',
            previous_response_id: `resp_${id}`,
          }),
      ],
    ];
    for (const [name, send] of calls) {
      const unknownId = randomUUID();
      const theirs = await send(a.run);
      const unknown = await send(unknownId);
      const got = await theirs.text();
      const expected = (await unknown.text()).replaceAll(unknownId, a.run);
      expect(got, name).not.toBe('');
      expect({ status: theirs.status, body: got }, name).toEqual({
        status: unknown.status,
        body: expected,
      });
    }
    // A chunked body (no Content-Length: the body limit wraps the request) keeps B's tenant.
    const chunked = await fetch(`${server.url}/runs/${a.run}/cancel`, {
      method: 'POST',
      headers: { authorization: 'Bearer key-b', 'content-type': 'application/json' },
      body: new Blob(['{"reason": "chunked"}']).stream(),
      duplex: 'half',
    } as RequestInit);
    expect(chunked.status).toBe(404);
    const events = await (await call('key-a', 'get', `/runs/${a.run}/events?follow=false`)).text();
    expect(events).not.toContain('control.requested');
    const pending = await (await mcp('list_pending', {})).text();
    for (const id of [a.run, a.workflowRun]) expect(pending).not.toContain(id);
    const inbox = (await (await call('key-a', 'get', '/pending')).json()) as { items: unknown[] };
    expect(inbox.items).toHaveLength(2);
  });
}
