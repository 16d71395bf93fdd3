/**
 * Roles through a real server (`serve()` on a port, keys mapped to roles): every operation of
 * the OpenAPI document lists its role as a `security` scope, and a caller holding every role
 * but that one gets 403 naming it (in OpenAI's shape under `/v1`; an MCP tool call needs the
 * role of what it does). A reader reads but cannot start, answer, control or tick; an
 * operator answers and cancels; with no authentication every caller has every role.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { testDeck } from '../../../test/support/decks.js';
import { approval } from '../../../test/support/workflows.js';
import { ROLES, type Role } from '../../core/identity.js';
import { Agent } from '../../index.js';
import { ScriptedModel } from '../../testing/index.js';
import { type RunningServer as Server, serve } from './serve.js';

const servers: Server[] = [];
afterEach(async () => {
  while (servers.length > 0) await servers.pop()?.close();
});

const KEYS = [
  { key: 'reader', roles: ['read'] as Role[] },
  { key: 'operator', roles: ['read', 'answer', 'control'] as Role[] },
  { key: 'runner', roles: ['read', 'run'] as Role[] },
  ...ROLES.map((role) => ({ key: `all-but-${role}`, roles: ROLES.filter((r) => r !== role) })),
];

async function started(apiKeys?: typeof KEYS) {
  const { deck } = testDeck({
    agents: [new Agent({ name: 'Greeter', model: new ScriptedModel([]) })],
    workflows: [approval()],
  });
  const server = await serve(deck, {
    host: '127.0.0.1',
    port: 0,
    app: apiKeys ? { apiKeys } : {},
  });
  servers.push(server);
  const call = (method: string, path: string, key?: string, body?: unknown) =>
    fetch(`${server.url}${path}`, {
      method,
      headers: {
        ...(key ? { authorization: `Bearer ${key}` } : {}),
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
  return { deck, server, call };
}

interface Operation {
  security?: { bearer?: string[] }[];
  'x-role'?: string;
}

/** The role each operation needs: a new route must be added here, by a deliberate choice. */
const EXPECTED: Record<string, Role | null> = {
  'get /health': null,
  'get /health/ready': null,
  'get /whoami': 'read',
  'post /runs/{run_id}/events-token': 'read',
  'post /agents/{name}/chat': 'run',
  'post /workflows/{name}': 'run',
  'get /workflows/{name}/pending': 'read',
  'post /workflows/{name}/{thread_id}/resume': 'answer',
  'post /runs/{run_id}/pause': 'control',
  'post /runs/{run_id}/cancel': 'control',
  'post /runs/{run_id}/resume': 'control',
  'get /pending': 'read',
  'post /runs': 'run',
  'post /runs/{run_id}/answer': 'answer',
  'get /runs': 'read',
  'get /runs/{run_id}': 'read',
  'get /runs/{run_id}/events': 'read',
  'get /runs/{run_id}/model-calls': 'read',
  'post /runs/{run_id}/replay': 'run',
  'get /workflows/{name}/threads/{thread_id}/checkpoints': 'read',
  'post /workflows/{name}/threads/{thread_id}/fork': 'run',
  'post /timers/tick': 'admin',
  'get /schedules': 'read',
  'post /schedules/{name}/pause': 'admin',
  'post /schedules/{name}/resume': 'admin',
  'post /schedules/{name}/trigger': 'admin',
  'get /evals/datasets': 'read',
  'post /evals/datasets': 'run',
  'get /evals/datasets/{name}': 'read',
  'post /evals/datasets/{name}/items': 'run',
  'delete /evals/datasets/{name}': 'run',
  'get /evals/experiments': 'read',
  'post /evals/experiments': 'run',
  'get /evals/experiments/{id}': 'read',
  'get /evals/scorers': 'read',
  'get /catalog': 'read',
  'get /threads/{workflow}/{thread_id}': 'read',
  'get /sessions/{session_id}': 'read',
  'post /agents/{name}/ui-chat': 'run',
  'get /agents/{name}/ui-chat/{chat_id}/stream': 'read',
  'post /workflows/{name}/ui-chat': 'run',
  'get /metrics': 'admin',
  'get /v1/models': 'read',
  'get /v1/models/{model}': 'read',
  'post /v1/chat/completions': 'run',
  'post /v1/responses': 'run',
  'get /v1/responses/{response_id}': 'read',
  'post /mcp': 'read',
  'get /.well-known/agent-card.json': 'read',
  'get /a2a/{name}/.well-known/agent-card.json': 'read',
  'post /a2a/{name}': 'run',
  'get /openapi.json': 'read',
};

/** A concrete path for an OpenAPI path template. */
const concrete = (path: string) =>
  path
    .replace('{name}', path.startsWith('/workflows') ? 'approval' : 'Greeter')
    .replace('{workflow}', 'approval')
    .replace(/\{\w+\}/g, 'some-id');

describe('roles', () => {
  it('lists every operation with its role as a security scope, and refuses a caller without it with 403 naming the role', async () => {
    const { call } = await started(KEYS);
    const document = (await (await call('GET', '/openapi.json', 'reader')).json()) as {
      paths: Record<string, Record<string, Operation>>;
    };
    const listed: Record<string, Role | null> = {};
    for (const [path, item] of Object.entries(document.paths)) {
      for (const [method, operation] of Object.entries(item)) {
        const scopes = operation.security?.[0]?.bearer;
        listed[`${method} ${path}`] = (scopes?.[0] as Role | undefined) ?? null;
        if (scopes) expect(operation['x-role'], `${method} ${path}`).toBe(scopes[0]);
      }
    }
    expect(listed).toEqual(EXPECTED);
    expect(document.paths['/runs/{run_id}/events']?.get?.security).toEqual([
      { bearer: ['read'] },
      { eventsToken: [] },
    ]);
    for (const [at, role] of Object.entries(EXPECTED)) {
      if (role === null) continue;
      const [method = '', path = ''] = at.split(' ');
      const body = method === 'post' ? {} : undefined;
      const response = await call(method.toUpperCase(), concrete(path), `all-but-${role}`, body);
      expect(response.status, at).toBe(403);
      const text = await response.text();
      expect(text, at).toContain(`'${role}' role is needed`);
      if (path.startsWith('/v1/')) {
        expect(JSON.parse(text).error, at).toMatchObject({ type: 'permission_error' });
      }
    }
  });

  it('a reader reads but cannot start, answer, cancel or tick; an operator answers and cancels; a runner starts', async () => {
    const { call } = await started(KEYS);
    const first = await call('POST', '/workflows/approval', 'runner', { amount: 5 });
    expect(first.status).toBe(200);
    const runId = first.headers.get('x-run-id') ?? '';
    expect((await call('GET', '/runs', 'reader')).status).toBe(200);
    expect((await call('GET', `/runs/${runId}`, 'reader')).status).toBe(200);
    expect((await call('GET', '/pending', 'reader')).status).toBe(200);
    const refused = {
      start: await call('POST', '/workflows/approval', 'reader', { amount: 1 }),
      answer: await call('POST', `/runs/${runId}/answer`, 'reader', { value: { approved: true } }),
      cancel: await call('POST', `/runs/${runId}/cancel`, 'reader', {}),
      tick: await call('POST', '/timers/tick', 'operator', {}),
    };
    expect(Object.values(refused).map((r) => r.status)).toEqual([403, 403, 403, 403]);
    expect(await refused.answer.json()).toEqual({
      detail: `the 'answer' role is needed for POST /runs/${runId}/answer; the credentials sent do not grant it`,
    });
    const answered = await call('POST', `/runs/${runId}/answer`, 'operator', {
      value: { approved: true },
    });
    expect(answered.status).toBe(200);
    const second = await call('POST', '/workflows/approval', 'runner', { amount: 7 });
    const cancelled = await call(
      'POST',
      `/runs/${second.headers.get('x-run-id')}/cancel`,
      'operator',
      {},
    );
    expect(await cancelled.json()).toMatchObject({ verb: 'cancel', recorded: true });
  });

  it('an MCP tool call needs the role of what it does: 403 with insufficient_scope, a reader may get_run', async () => {
    const { call } = await started(KEYS);
    const mcp = (key: string, name: string, args: Record<string, unknown>) =>
      fetch(`${(servers[0] as Server).url}/mcp`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${key}`,
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          'mcp-protocol-version': '2025-11-25',
        },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 1,
          method: 'tools/call',
          params: { name, arguments: args, _meta: {} },
        }),
      });
    const start = await mcp('reader', 'approval', { amount: 1 });
    expect(start.status).toBe(403);
    expect(start.headers.get('www-authenticate')).toBe(
      'Bearer error="insufficient_scope", scope="run"',
    );
    expect((await start.json()).detail).toContain("'run' role is needed to call tool 'approval'");
    const answer = await mcp('runner', 'answer_run', { run_id: 'x', value: 1 });
    expect(answer.status).toBe(403);
    const run = await call('POST', '/workflows/approval', 'runner', { amount: 2 });
    const read = await mcp('reader', 'get_run', { run_id: run.headers.get('x-run-id') });
    expect(read.status).toBe(200);
  });

  it('an A2A call needs control to cancel a task and answer to answer one, beyond run', async () => {
    const { server } = await started(KEYS);
    const rpc = (key: string, method: string, params: unknown) =>
      fetch(`${server.url}/a2a/Greeter`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${key}`,
          'content-type': 'application/json',
          'a2a-version': '1.0',
        },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
      });
    const cancel = await rpc('all-but-control', 'CancelTask', { id: 'run-1' });
    expect(cancel.status).toBe(403);
    expect((await cancel.json()).detail).toContain("'control' role is needed");
    const message = { messageId: 'm-1', role: 'ROLE_USER', taskId: 'run-1', parts: [] };
    const answer = await rpc('all-but-answer', 'SendMessage', { message });
    expect(answer.status).toBe(403);
    expect((await answer.json()).detail).toContain("'answer' role is needed");
    // With the role, the call reaches the A2A handler: an unknown task is its JSON-RPC error.
    const unknown = await rpc('all-but-admin', 'CancelTask', { id: 'run-1' });
    expect(unknown.status).toBe(200);
    expect(await unknown.json()).toMatchObject({ error: { message: expect.any(String) } });
  });

  it('an AI SDK chat message that approves a held call needs answer as well as run', async () => {
    const { call } = await started(KEYS);
    const part = {
      type: 'tool-ship',
      toolCallId: 'call_1',
      state: 'approval-responded',
      approval: { id: 'a-1', approved: true },
    };
    const body = {
      id: 'chat-1',
      trigger: 'submit-message',
      messages: [{ id: 'm-1', role: 'assistant', parts: [part] }],
    };
    const refused = await call('POST', '/agents/Greeter/ui-chat', 'runner', body);
    expect(refused.status).toBe(403);
    expect((await refused.json()).detail).toContain("'answer' role is needed");
    // With it, the message goes on to the chat: nothing waits in this one (not a 403).
    const through = await call('POST', '/agents/Greeter/ui-chat', 'all-but-admin', body);
    expect(through.status).not.toBe(403);
  });

  it('with no authentication configured, every caller has every role; a mapped key only its own', async () => {
    const { call } = await started();
    const who = await call('GET', '/whoami');
    expect(await who.json()).toEqual({ tenant: null, user: null, roles: [...ROLES] });
    expect((await call('POST', '/workflows/approval', undefined, { amount: 1 })).status).toBe(200);
    await servers.pop()?.close();
    const mapped = await started(KEYS);
    const reader = await mapped.call('GET', '/whoami', 'operator');
    expect(await reader.json()).toEqual({
      tenant: null,
      user: null,
      roles: ['read', 'answer', 'control'],
    });
  });
});
