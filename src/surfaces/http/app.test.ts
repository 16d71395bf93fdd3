/**
 * The app as a whole: health and the 503 gate, API keys, the body-size limit, unknown
 * paths, and the OpenAPI document generated from the same schemas that check requests.
 */
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { openTestDeck, testDeck } from '../../../test/support/decks.js';
import { postJson } from '../../../test/support/http.js';
import { approval, threeSteps } from '../../../test/support/workflows.js';
import { Agent } from '../../index.js';
import { ScriptedModel } from '../../testing/index.js';
import { SchemaComponents } from './openapi-components.js';
import { ChatBody, ResumeBody } from './schemas.js';

const agents = () => [
  new Agent({ name: 'Zed', model: new ScriptedModel([]) }),
  new Agent({ name: 'Greeter', model: new ScriptedModel([]) }),
];

afterEach(() => {
  vi.unstubAllEnvs();
});

describe('GET /health', () => {
  it('answers 503 {"status":"starting"} until the deck is open, every other route 503 too', async () => {
    const { deck } = testDeck({ agents: agents() });
    const app = deck.app();
    const health = await app.request('/health');
    expect(health.status).toBe(503);
    expect(await health.json()).toEqual({ status: 'starting' });
    for (const [path, init] of [
      ['/agents/Greeter/chat', postJson({ session_id: 's', message: 'hi' })],
      ['/runs', {}],
      ['/openapi.json', {}],
    ] as const) {
      const response = await app.request(path, init);
      expect(response.status).toBe(503);
      expect(await response.json()).toEqual({ detail: "deck 'agentdeck' not started" });
    }
  });

  it('answers the sorted catalog once open, skills included', async () => {
    const skills = mkdtempSync(join(tmpdir(), 'agentdeck-skills-'));
    for (const name of ['pdf', 'csv']) {
      mkdirSync(join(skills, name));
      writeFileSync(
        join(skills, name, 'SKILL.md'),
        `---\nname: ${name}\ndescription: ${name} files\n---\nbody`,
      );
    }
    const { deck } = await openTestDeck({
      agents: agents(),
      workflows: [threeSteps(), approval()],
      skills,
    });
    const response = await deck.app().request('/health');
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({
      status: 'ok',
      agents: ['Greeter', 'Zed'],
      workflows: ['approval', 'three-steps'],
      skills: ['csv', 'pdf'],
    });
  });
});

describe('API keys', () => {
  it.each([
    ['option', { apiKeys: ['key-one', 'key-two'] }],
    ['SERVICE_API_KEYS', {}],
  ])(
    'from the %s: every route but /health needs Authorization: Bearer <key>',
    async (_, options) => {
      vi.stubEnv('SERVICE_API_KEYS', ' key-one , key-two ');
      const { deck } = await openTestDeck({ agents: agents() });
      const app = deck.app(options);
      expect((await app.request('/health')).status).toBe(200);
      for (const authorization of [undefined, 'Bearer nope', 'key-one', 'Bearer key-on']) {
        const headers: Record<string, string> = authorization ? { authorization } : {};
        const response = await app.request('/runs', { headers });
        expect(response.status).toBe(401);
        // RFC 6750: no error code without credentials; a wrong one says invalid_token.
        expect(response.headers.get('www-authenticate')).toBe(
          authorization
            ? 'Bearer error="invalid_token", error_description="missing or invalid API key: send Authorization: Bearer <key>"'
            : 'Bearer',
        );
        expect(await response.json()).toEqual({
          detail: 'missing or invalid API key: send Authorization: Bearer <key>',
        });
      }
      for (const key of ['key-one', 'key-two']) {
        const response = await app.request('/runs', {
          headers: { authorization: `Bearer ${key}` },
        });
        expect(response.status).toBe(200);
      }
    },
  );

  it('leaves every route open when no key is configured', async () => {
    const { deck } = await openTestDeck({ agents: agents() });
    expect((await deck.app().request('/runs')).status).toBe(200);
  });
});

describe('limits and unknown paths', () => {
  it('answers 413 for a body over the limit (option or SERVICE_MAX_BODY_BYTES), before reading it as JSON', async () => {
    vi.stubEnv('SERVICE_MAX_BODY_BYTES', '64');
    const { deck } = await openTestDeck({ agents: agents() });
    const big = postJson({ session_id: 's', message: 'x'.repeat(100) });
    for (const app of [deck.app(), deck.app({ maxBodyBytes: 64 })]) {
      const response = await app.request('/agents/Greeter/chat', big);
      expect(response.status).toBe(413);
      expect(await response.json()).toEqual({
        detail: 'the request body is over the 64-byte limit',
      });
    }
    const small = await deck
      .app({ maxBodyBytes: 64 })
      .request('/agents/Greeter/chat', postJson({ message: 1 }));
    expect(small.status).toBe(422);
  });

  it('judges a body by its content-length when it has one, and counts a chunked body as it reads', async () => {
    const { deck } = await openTestDeck({ agents: agents() });
    const app = deck.app({ maxBodyBytes: 64 });
    const body = JSON.stringify({ session_id: 's', message: 'x'.repeat(100) });
    const declared = await app.request(
      '/agents/Greeter/chat',
      postJson(body, { 'content-length': String(Buffer.byteLength(body)) }),
    );
    expect(declared.status).toBe(413);
    const chunked = await app.request('/agents/Greeter/chat', {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'transfer-encoding': 'chunked' },
      body: new ReadableStream({
        start(controller) {
          for (let i = 0; i < 4; i++)
            controller.enqueue(new TextEncoder().encode(body.slice(i * 40, i * 40 + 40)));
          controller.close();
        },
      }),
      duplex: 'half',
    } as RequestInit);
    expect(chunked.status).toBe(413);
    const fits = JSON.stringify({ message: 1 });
    const small = await app.request(
      '/agents/Greeter/chat',
      postJson(fits, { 'content-length': String(Buffer.byteLength(fits)) }),
    );
    expect(small.status).toBe(422); // read and checked, not refused for its size
  });

  it('answers 404 {"detail":"Not Found"} for an unknown path', async () => {
    const { deck } = await openTestDeck({ agents: agents() });
    const response = await deck.app().request('/nowhere');
    expect(response.status).toBe(404);
    expect(await response.json()).toEqual({ detail: 'Not Found' });
  });
});

describe('GET /openapi.json', () => {
  it('describes every mounted route, with the request schemas the app validates with', async () => {
    const { deck } = await openTestDeck({ agents: agents() });
    const app = deck.app();
    const doc = (await (await app.request('/openapi.json')).json()) as {
      openapi: string;
      components: { schemas: Record<string, unknown> };
      paths: Record<
        string,
        Record<
          string,
          {
            requestBody?: { content: Record<string, { schema: unknown }> };
            responses?: Record<string, unknown>;
          }
        >
      >;
    };
    expect(doc.openapi).toBe('3.1.0');
    // The inspector's files (/ui) are pages, not API routes: the description names them.
    // `GET /mcp` only says 405 to MCP clients that try it (routes.ts `undocumented`).
    const mounted = app.routes
      .filter((r) => r.method !== 'ALL' && !r.path.startsWith('/ui'))
      .filter((r) => !(r.method === 'GET' && r.path === '/mcp'))
      .map((r) => `${r.method.toLowerCase()} ${r.path.replace(/:(\w+)/g, '{$1}')}`)
      .sort();
    const documented = Object.entries(doc.paths)
      .flatMap(([path, ops]) => Object.keys(ops).map((method) => `${method} ${path}`))
      .sort();
    expect(documented).toEqual(mounted);
    expect(documented).toEqual(
      [
        'get /health',
        'get /health/ready',
        'get /whoami',
        'post /runs/{run_id}/events-token',
        'post /agents/{name}/chat',
        'post /workflows/{name}',
        'get /workflows/{name}/pending',
        'post /workflows/{name}/{thread_id}/resume',
        'post /runs/{run_id}/pause',
        'post /runs/{run_id}/cancel',
        'post /runs/{run_id}/resume',
        'get /pending',
        'post /runs',
        'post /runs/{run_id}/answer',
        'get /runs',
        'get /runs/{run_id}',
        'get /runs/{run_id}/events',
        'get /runs/{run_id}/model-calls',
        'post /runs/{run_id}/replay',
        'get /workflows/{name}/threads/{thread_id}/checkpoints',
        'post /workflows/{name}/threads/{thread_id}/fork',
        'post /timers/tick',
        'get /schedules',
        'post /schedules/{name}/pause',
        'post /schedules/{name}/resume',
        'post /schedules/{name}/trigger',
        'get /catalog',
        'get /threads/{workflow}/{thread_id}',
        'get /sessions/{session_id}',
        'get /evals/datasets',
        'post /evals/datasets',
        'get /evals/datasets/{name}',
        'post /evals/datasets/{name}/items',
        'delete /evals/datasets/{name}',
        'get /evals/experiments',
        'post /evals/experiments',
        'get /evals/experiments/{id}',
        'get /evals/scorers',
        'get /metrics',
        'get /.well-known/agent-card.json',
        'get /a2a/{name}/.well-known/agent-card.json',
        'post /a2a/{name}',
        'get /openapi.json',
        'get /v1/models',
        'get /v1/models/{model}',
        'post /v1/chat/completions',
        'post /v1/responses',
        'get /v1/responses/{response_id}',
        'post /agents/{name}/ui-chat',
        'get /agents/{name}/ui-chat/{chat_id}/stream',
        'post /workflows/{name}/ui-chat',
        'post /mcp',
      ].sort(),
    );
    // A request body is a reference to the named schema the app validates it with.
    const expected = new SchemaComponents();
    const chat = doc.paths['/agents/{name}/chat']?.post?.requestBody?.content['application/json'];
    expect(chat?.schema).toEqual(expected.use(ChatBody));
    expect(chat?.schema).toEqual({ $ref: '#/components/schemas/ChatBody' });
    expect(doc.components.schemas.ChatBody).toEqual(expected.schemas.ChatBody);
    expect(doc.components.schemas.ChatBody).toMatchObject({ required: ['session_id', 'message'] });
    const resume = doc.paths['/workflows/{name}/{thread_id}/resume']?.post?.requestBody;
    expect(resume?.content['application/json']?.schema).toEqual(expected.use(ResumeBody));
    expect(doc.components.schemas.ResumeBody).toEqual(expected.schemas.ResumeBody);
    expect(doc.components.schemas.ResumeBody).toMatchObject({ required: ['value'] });
    expect(doc.paths['/metrics']?.get?.responses?.[200]).toEqual({
      description: expect.any(String),
      content: { 'text/plain; version=0.0.4; charset=utf-8': { schema: { type: 'string' } } },
    });
  });
});
