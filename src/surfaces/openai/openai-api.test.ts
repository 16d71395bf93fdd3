/**
 * The OpenAI API under `/v1` through the `openai` package's own client, against `serve()` on
 * a real port and the scripted model server (the agent's model calls take the real client
 * path): the agents as models, chat completions JSON and streamed (with and without usage),
 * a stateless history and the request's system message reaching the model next to the
 * agent's own instructions, a session, responses streamed (checked event by event by the
 * client's `responses.stream()`), `previous_response_id`, a tool call held for approval and
 * answered in the inbox, and the errors in OpenAI's shape (404 `model_not_found`, 400 for
 * `tools`, 409 for a busy session, 401 from the key gate). One server for the file.
 */
import OpenAI, {
  AuthenticationError,
  BadRequestError,
  ConflictError,
  InternalServerError,
  NotFoundError,
} from 'openai';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import { threeSteps } from '../../../test/support/workflows.js';
import { Agent, Deck, tool } from '../../index.js';
import { MemoryEventStore } from '../../stores/memory/index.js';
import { type ScriptedModelServer, scriptedModelServer } from '../../testing/index.js';
import { createApp } from '../http/app.js';
import { type RunningServer, serve } from '../http/serve.js';
import type { DeckGrants, ServedDeck } from '../http/served-deck.js';

const KEY = 'sk-deck';
const INSTRUCTIONS = 'You are the concierge of the Grand Hotel.';

const booked: string[] = [];
const book = tool({
  name: 'book',
  description: 'Book a table',
  parameters: z.object({ table: z.string() }),
  execute: ({ table }) => {
    booked.push(table);
    return `booked ${table}`;
  },
});

let model: ScriptedModelServer;
let server: RunningServer;
let client: OpenAI;

beforeAll(async () => {
  model = await scriptedModelServer([]);
  // Read when the deck builds (serve() opens it): the agent's model calls go to the script.
  vi.stubEnv('OPENAI_BASE_URL', model.url);
  vi.stubEnv('OPENAI_API_KEY', 'sk-model');
  vi.stubEnv('OPENAI_USE_RESPONSES', 'false');
  vi.stubEnv('SERVICE_API_KEYS', KEY);
  vi.stubEnv('SERVICE_CORS_ORIGINS', 'https://chat.example');
  const deck = new Deck({
    eventStore: new MemoryEventStore(),
    agents: [
      new Agent({
        name: 'Concierge',
        instructions: INSTRUCTIONS,
        tools: [book],
        needsApproval: ['book'],
      }),
    ],
    workflows: [threeSteps()],
  });
  server = await serve(deck, { host: '127.0.0.1', port: 0 });
  // No retries: a 409 or a 503 is what the test looks at, not something to wait out.
  client = new OpenAI({ baseURL: `${server.url}/v1`, apiKey: KEY, maxRetries: 0 });
});

afterAll(async () => {
  await server?.close();
  await model?.close();
});

/** The messages of the model request `index` received (chat completions path), as text. */
function modelMessages(index: number): { role: string; content: string }[] {
  const messages: { role: string; content: string | { text: string }[] | null }[] =
    model.requests[index]?.body.messages ?? [];
  return messages.map(({ role, content }) => ({
    role,
    content:
      typeof content === 'string' ? content : (content ?? []).map((part) => part.text).join(''),
  }));
}

async function runOf(runId: string | null) {
  const response = await fetch(`${server.url}/runs/${runId}`, {
    headers: { authorization: `Bearer ${KEY}` },
  });
  return (await response.json()) as { status: string; session_id: string | null };
}

describe('GET /v1/models', () => {
  it('lists the agents, not the workflows', async () => {
    const models = [];
    for await (const m of client.models.list()) models.push(m);
    expect(models).toEqual([
      { id: 'Concierge', object: 'model', created: expect.any(Number), owned_by: 'agentdeck' },
    ]);
  });

  it('retrieves one agent as a model; another name is model_not_found', async () => {
    expect(await client.models.retrieve('Concierge')).toMatchObject({
      id: 'Concierge',
      object: 'model',
    });
    await expect(client.models.retrieve('nobody')).rejects.toMatchObject({
      status: 404,
      code: 'model_not_found',
    });
  });
});

describe('POST /v1/chat/completions', () => {
  it('answers JSON with the run usage; the history and system message reach the model, nothing is stored', async () => {
    const before = model.requests.length;
    model.push({ text: 'Table for two at eight.', usage: { inputTokens: 31, outputTokens: 7 } });
    const { data, response } = await client.chat.completions
      .create({
        model: 'Concierge',
        messages: [
          { role: 'system', content: 'Answer in one sentence.' },
          { role: 'user', content: 'I am Ada.' },
          { role: 'assistant', content: 'Welcome, Ada.' },
          { role: 'user', content: 'A table tonight?' },
        ],
      })
      .withResponse();
    const runId = response.headers.get('x-run-id');
    expect(data).toMatchObject({
      id: `chatcmpl-${runId}`,
      object: 'chat.completion',
      model: 'Concierge',
      choices: [
        {
          index: 0,
          message: { role: 'assistant', content: 'Table for two at eight.' },
          finish_reason: 'stop',
        },
      ],
      usage: { prompt_tokens: 31, completion_tokens: 7, total_tokens: 38 },
    });
    // The agent's instructions stay, the request's system message added after them.
    expect(modelMessages(before)).toEqual([
      { role: 'system', content: `${INSTRUCTIONS}\n\nAnswer in one sentence.` },
      { role: 'user', content: 'I am Ada.' },
      { role: 'assistant', content: 'Welcome, Ada.' },
      { role: 'user', content: 'A table tonight?' },
    ]);
    expect(await runOf(runId)).toMatchObject({ status: 'completed', session_id: null });
  });

  it('streams chunks and [DONE], with the usage chunk only when asked for', async () => {
    model.push({
      text: ['Good ', 'evening.'],
      delayMs: 30,
      usage: { inputTokens: 12, outputTokens: 2 },
    });
    const stream = await client.chat.completions.create({
      model: 'Concierge',
      messages: [{ role: 'user', content: 'Hello' }],
      stream: true,
      stream_options: { include_usage: true },
    });
    const chunks = [];
    for await (const chunk of stream) chunks.push(chunk);
    // The role first, the text (deltas of one network read come joined), the end, the usage.
    expect(chunks[0]?.choices[0]?.delta).toEqual({ role: 'assistant', content: '' });
    const text = chunks.slice(1, -2).map((c) => c.choices[0]?.delta.content);
    expect(text.join('')).toBe('Good evening.');
    expect(chunks.at(-2)?.choices[0]).toMatchObject({ delta: {}, finish_reason: 'stop' });
    expect(chunks.at(-1)).toMatchObject({
      choices: [],
      usage: { prompt_tokens: 12, completion_tokens: 2, total_tokens: 14 },
    });

    model.push({ text: 'Hi.' });
    const plain = await client.chat.completions.create({
      model: 'Concierge',
      messages: [{ role: 'user', content: 'Hello again' }],
      stream: true,
    });
    const last = [];
    for await (const chunk of plain) last.push(chunk);
    expect(last.every((c) => c.usage === undefined && c.choices.length === 1)).toBe(true);
    expect(last.at(-1)?.choices[0]?.finish_reason).toBe('stop');
  });

  it('keeps the history in a named session: only the last user message is new', async () => {
    const before = model.requests.length;
    model.push({ text: 'Noted, Ada.' }, { text: 'You are Ada.' });
    const headers = { 'X-Session-Id': 'guest-ada' };
    await client.chat.completions.create(
      { model: 'Concierge', messages: [{ role: 'user', content: 'I am Ada.' }] },
      { headers },
    );
    const { response } = await client.chat.completions
      .create(
        {
          model: 'Concierge',
          messages: [
            { role: 'user', content: 'I am Ada.' },
            { role: 'assistant', content: 'Noted, Ada.' },
            { role: 'user', content: 'Who am I?' },
          ],
        },
        { headers },
      )
      .withResponse();
    // The session's copy of the first turn, once: the client's copy is not played again.
    expect(modelMessages(before + 1).slice(1)).toEqual([
      { role: 'user', content: 'I am Ada.' },
      { role: 'assistant', content: 'Noted, Ada.' },
      { role: 'user', content: 'Who am I?' },
    ]);
    expect((await runOf(response.headers.get('x-run-id'))).session_id).toBe('guest-ada');
  });

  it('ends the answer with what waits when a tool call is held for approval; the inbox answers it', async () => {
    booked.length = 0;
    model.push({ toolCalls: [{ name: 'book', arguments: { table: 'T7' } }] });
    const { data, response } = await client.chat.completions
      .create({
        model: 'Concierge',
        messages: [
          { role: 'developer', content: 'Confirm bookings by table number.' },
          { role: 'user', content: 'Book T7.' },
        ],
      })
      .withResponse();
    const runId = response.headers.get('x-run-id') as string;
    const content = data.choices[0]?.message.content ?? '';
    expect(content).toContain(`Run ${runId} waits for a person to approve tool 'book'`);
    expect(content).toContain(`POST /runs/${runId}/answer`);
    // The usage of the model request the turn made before it stopped.
    expect(data.usage?.total_tokens).toBeGreaterThan(0);
    expect(booked).toEqual([]);

    const auth = { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' };
    const pending = (await (await fetch(`${server.url}/pending`, { headers: auth })).json()) as {
      items: { run_id: string }[];
    };
    expect(pending.items.map((i) => i.run_id)).toContain(runId);
    model.push({ text: 'Booked T7.' });
    const answered = await fetch(`${server.url}/runs/${runId}/answer`, {
      method: 'POST',
      headers: auth,
      body: JSON.stringify({ value: { approved: true } }),
    });
    expect(answered.status).toBe(200);
    expect(booked).toEqual(['T7']);
    // The turn played on from its saved state with the request's instructions still added.
    expect(modelMessages(model.requests.length - 1)[0]).toEqual({
      role: 'system',
      content: `${INSTRUCTIONS}\n\nConfirm bookings by table number.`,
    });
    expect((await runOf(runId)).status).toBe('completed');
  });
});

describe('POST /v1/responses', () => {
  it('streams the named events; previous_response_id continues the conversation', async () => {
    const before = model.requests.length;
    model.push({
      text: ['The spa ', 'opens at nine.'],
      usage: { inputTokens: 20, outputTokens: 6 },
    });
    const stream = client.responses.stream({
      model: 'Concierge',
      input: 'When does the spa open?',
      instructions: 'Be brief.',
    });
    const types: string[] = [];
    let text = '';
    for await (const event of stream) {
      // The model's deltas of one network read come joined: one or more delta events.
      if (event.type === 'response.output_text.delta') text += event.delta;
      if (event.type !== types.at(-1) || event.type !== 'response.output_text.delta') {
        types.push(event.type);
      }
    }
    expect(text).toBe('The spa opens at nine.');
    const first = await stream.finalResponse();
    expect(types).toEqual([
      'response.created',
      'response.in_progress',
      'response.output_item.added',
      'response.content_part.added',
      'response.output_text.delta',
      'response.output_text.done',
      'response.content_part.done',
      'response.output_item.done',
      'response.completed',
    ]);
    expect(first).toMatchObject({
      object: 'response',
      status: 'completed',
      output_text: 'The spa opens at nine.',
      usage: { input_tokens: 20, output_tokens: 6, total_tokens: 26 },
    });
    expect(first.id).toMatch(/^resp_/);
    expect(modelMessages(before)[0]).toEqual({
      role: 'system',
      content: `${INSTRUCTIONS}\n\nBe brief.`,
    });

    model.push({ text: 'It closes at eight.' });
    const { data: second, response } = await client.responses
      .create({
        model: 'Concierge',
        input: 'And when does it close?',
        previous_response_id: first.id,
      })
      .withResponse();
    expect(second).toMatchObject({
      id: `resp_${response.headers.get('x-run-id')}`,
      status: 'completed',
      output_text: 'It closes at eight.',
      previous_response_id: first.id,
    });
    expect(modelMessages(before + 1).slice(1)).toEqual([
      { role: 'user', content: 'When does the spa open?' },
      { role: 'assistant', content: 'The spa opens at nine.' },
      { role: 'user', content: 'And when does it close?' },
    ]);
    // Read back, from the log: the same output and usage; another id is a 404.
    expect(await client.responses.retrieve(first.id)).toMatchObject({
      id: first.id,
      status: 'completed',
      output_text: 'The spa opens at nine.',
      usage: { input_tokens: 20, output_tokens: 6, total_tokens: 26 },
    });
    await expect(client.responses.retrieve('resp_nobody')).rejects.toMatchObject({
      status: 404,
      code: 'response_not_found',
    });
  });

  it('ends a stream incomplete, with a message naming the run, when a tool call waits for approval', async () => {
    model.push({ toolCalls: [{ name: 'book', arguments: { table: 'T9' } }] });
    const stream = client.responses.stream({
      model: 'Concierge',
      input: [
        { role: 'user', content: 'I am Ada.' },
        { role: 'assistant', content: 'Welcome, Ada.' },
        { role: 'user', content: 'Book T9.' },
      ],
    });
    const events = [];
    for await (const event of stream) events.push(event);
    const last = events.at(-1);
    expect(last?.type).toBe('response.incomplete');
    const runId = (last as { response: { id: string } }).response.id.slice('resp_'.length);
    expect((last as { response: { output_text: string } }).response.output_text).toContain(
      `Run ${runId} waits for a person to approve tool 'book'`,
    );
    // The usage of the model request the turn made before it stopped.
    const usage = (last as { response: { usage?: { total_tokens: number } } }).response.usage;
    expect(usage?.total_tokens).toBeGreaterThan(0);
    // The earlier input items were the history of the response's new session, now kept there.
    const session = await fetch(`${server.url}/sessions/resp_${runId}`, {
      headers: { authorization: `Bearer ${KEY}` },
    });
    expect(JSON.stringify(await session.json())).toContain('Welcome, Ada.');
    expect(await runOf(runId)).toMatchObject({
      status: 'waiting_human',
      session_id: `resp_${runId}`,
    });
  });

  it('refuses a previous_response_id that names no response, and one that was not stored', async () => {
    const missing = client.responses.create({
      model: 'Concierge',
      input: 'Hi',
      previous_response_id: 'resp_nope',
    });
    await expect(missing).rejects.toBeInstanceOf(NotFoundError);
    await expect(missing).rejects.toMatchObject({
      status: 404,
      param: 'previous_response_id',
      code: 'previous_response_not_found',
    });
    model.push({ text: 'Hello.' });
    const unstored = await client.responses.create({
      model: 'Concierge',
      input: 'Hi',
      store: false,
    });
    await expect(
      client.responses.create({
        model: 'Concierge',
        input: 'Hi',
        previous_response_id: unstored.id,
      }),
    ).rejects.toMatchObject({ status: 400, param: 'previous_response_id' });
  });
});

describe('errors, in the OpenAI shape', () => {
  it('answers 404 model_not_found for a name that is no agent (a workflow is none)', async () => {
    const call = client.chat.completions.create({
      model: 'three-steps',
      messages: [{ role: 'user', content: 'Hi' }],
    });
    await expect(call).rejects.toBeInstanceOf(NotFoundError);
    await expect(call).rejects.toMatchObject({
      status: 404,
      type: 'not_found_error',
      code: 'model_not_found',
      param: 'model',
    });
  });

  it('answers 400 naming the field for a request with its own tools, or a malformed one', async () => {
    const withTools = client.chat.completions.create({
      model: 'Concierge',
      messages: [{ role: 'user', content: 'Hi' }],
      tools: [{ type: 'function', function: { name: 'f', parameters: {} } }],
    });
    await expect(withTools).rejects.toBeInstanceOf(BadRequestError);
    await expect(withTools).rejects.toMatchObject({ status: 400, param: 'tools' });
    const noMessages = client.chat.completions.create({ model: 'Concierge', messages: [] });
    await expect(noMessages).rejects.toMatchObject({ status: 400, param: 'messages' });
    const lastIsAssistant = client.responses.create({
      model: 'Concierge',
      input: [{ role: 'assistant', content: 'Hi' }],
    });
    await expect(lastIsAssistant).rejects.toMatchObject({ status: 400, param: 'input[0]' });
  });

  it('answers a failed run with 500 run_failed, or in a stream an error the client raises', async () => {
    model.push({ error: 'upstream overloaded' });
    const json = client.chat.completions.create({
      model: 'Concierge',
      messages: [{ role: 'user', content: 'Hi' }],
    });
    await expect(json).rejects.toBeInstanceOf(InternalServerError);
    await expect(json).rejects.toMatchObject({ status: 500, code: 'run_failed' });
    model.push({ error: 'upstream overloaded' });
    const stream = await client.chat.completions.create({
      model: 'Concierge',
      messages: [{ role: 'user', content: 'Hi' }],
      stream: true,
    });
    const read = async () => {
      for await (const _chunk of stream);
    };
    await expect(read()).rejects.toMatchObject({
      message: expect.stringMatching(/^run \S+ failed with \w+; the server log has the details/),
    });
  });

  it('answers 409 for a session busy with another turn', async () => {
    model.push({ text: ['slow ', 'answer'], delayMs: 300 });
    const headers = { 'X-Session-Id': 'busy-guest' };
    const slow = await client.chat.completions.create(
      {
        model: 'Concierge',
        messages: [{ role: 'user', content: 'Take your time.' }],
        stream: true,
      },
      { headers },
    );
    const busy = client.chat.completions.create(
      { model: 'Concierge', messages: [{ role: 'user', content: 'Me too.' }] },
      { headers },
    );
    await expect(busy).rejects.toBeInstanceOf(ConflictError);
    await expect(busy).rejects.toMatchObject({ status: 409, type: 'conflict_error' });
    let text = '';
    for await (const chunk of slow) text += chunk.choices[0]?.delta.content ?? '';
    expect(text).toBe('slow answer');
  });

  it('answers 503 in the OpenAI shape while the deck is not open', async () => {
    // One live Deck per process: a deck not yet open, as the gate sees it (it reads `state`).
    const idleDeck = {
      name: 'idle',
      state: 'built',
      agents: new Map(),
      workflows: new Map(),
    } as unknown as ServedDeck;
    const grants = { eventLog: () => null, stopRun: () => false, readiness: () => null };
    const app = createApp(idleDeck, grants as unknown as DeckGrants);
    const idle = new OpenAI({
      baseURL: 'http://idle.test/v1',
      apiKey: KEY,
      maxRetries: 0,
      fetch: (url, init) => Promise.resolve(app.request(String(url), init as RequestInit)),
    });
    await expect(idle.models.list()).rejects.toMatchObject({
      status: 503,
      type: 'service_unavailable_error',
      code: 'service_unavailable',
      message: expect.stringContaining('not started'),
    });
  });

  it('lets a page of an allowed origin send X-Session-Id (CORS preflight)', async () => {
    const preflight = await fetch(`${server.url}/v1/chat/completions`, {
      method: 'OPTIONS',
      headers: {
        origin: 'https://chat.example',
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'authorization,content-type,x-session-id',
      },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('access-control-allow-headers')?.toLowerCase()).toContain(
      'x-session-id',
    );
  });

  it('answers 401 from the key gate in the OpenAI shape', async () => {
    const stranger = new OpenAI({ baseURL: `${server.url}/v1`, apiKey: 'sk-wrong', maxRetries: 0 });
    const call = stranger.models.list();
    await expect(call).rejects.toBeInstanceOf(AuthenticationError);
    await expect(call).rejects.toMatchObject({
      status: 401,
      type: 'authentication_error',
      code: 'invalid_api_key',
    });
  });
});
