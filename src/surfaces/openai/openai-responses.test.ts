/**
 * The OpenAI API's responses and its errors through the `openai` package's own client, against
 * `serve()` on a real port and the scripted model server: responses streamed (checked event by
 * event by the client's `responses.stream()`), read back and continued with
 * `previous_response_id`, a stream that ends incomplete on a call held for approval, and the
 * errors in OpenAI's shape (404 `model_not_found`, 400 for `tools`, 500 for a failed run, 409
 * for a busy session, 503 before the deck opens, 401 from the key gate). One server for the file.
 */
import OpenAI, {
  AuthenticationError,
  BadRequestError,
  ConflictError,
  InternalServerError,
  NotFoundError,
} from 'openai';
import { describe, expect, it } from 'vitest';
import { INSTRUCTIONS, KEY, openAiApiFixture } from '../../../test/support/openai-api.js';
import { createApp } from '../http/app.js';
import type { DeckGrants, ServedDeck } from '../http/served-deck.js';

const api = openAiApiFixture();

describe('POST /v1/responses', () => {
  it('streams the named events; previous_response_id continues the conversation', async () => {
    const before = api.model.requests.length;
    api.model.push({
      text: ['The spa ', 'opens at nine.'],
      usage: { inputTokens: 20, outputTokens: 6 },
    });
    const stream = api.client.responses.stream({
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
    expect(api.modelMessages(before)[0]).toEqual({
      role: 'system',
      content: `${INSTRUCTIONS}\n\nBe brief.`,
    });

    api.model.push({ text: 'It closes at eight.' });
    const { data: second, response } = await api.client.responses
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
    expect(api.modelMessages(before + 1).slice(1)).toEqual([
      { role: 'user', content: 'When does the spa open?' },
      { role: 'assistant', content: 'The spa opens at nine.' },
      { role: 'user', content: 'And when does it close?' },
    ]);
    // Read back, from the log: the same output and usage; another id is a 404.
    expect(await api.client.responses.retrieve(first.id)).toMatchObject({
      id: first.id,
      status: 'completed',
      output_text: 'The spa opens at nine.',
      usage: { input_tokens: 20, output_tokens: 6, total_tokens: 26 },
    });
    await expect(api.client.responses.retrieve('resp_nobody')).rejects.toMatchObject({
      status: 404,
      code: 'response_not_found',
    });
  });

  it('ends a stream incomplete, with a message naming the run, when a tool call waits for approval', async () => {
    api.model.push({ toolCalls: [{ name: 'book', arguments: { table: 'T9' } }] });
    const stream = api.client.responses.stream({
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
    const session = await fetch(`${api.server.url}/sessions/resp_${runId}`, {
      headers: { authorization: `Bearer ${KEY}` },
    });
    expect(JSON.stringify(await session.json())).toContain('Welcome, Ada.');
    expect(await api.runOf(runId)).toMatchObject({
      status: 'waiting_human',
      session_id: `resp_${runId}`,
    });
  });

  it('refuses a previous_response_id that names no response, and one that was not stored', async () => {
    const missing = api.client.responses.create({
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
    api.model.push({ text: 'Hello.' });
    const unstored = await api.client.responses.create({
      model: 'Concierge',
      input: 'Hi',
      store: false,
    });
    await expect(
      api.client.responses.create({
        model: 'Concierge',
        input: 'Hi',
        previous_response_id: unstored.id,
      }),
    ).rejects.toMatchObject({ status: 400, param: 'previous_response_id' });
  });
});

describe('errors, in the OpenAI shape', () => {
  it('answers 404 model_not_found for a name that is no agent (a workflow is none)', async () => {
    const call = api.client.chat.completions.create({
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
    const withTools = api.client.chat.completions.create({
      model: 'Concierge',
      messages: [{ role: 'user', content: 'Hi' }],
      tools: [{ type: 'function', function: { name: 'f', parameters: {} } }],
    });
    await expect(withTools).rejects.toBeInstanceOf(BadRequestError);
    await expect(withTools).rejects.toMatchObject({ status: 400, param: 'tools' });
    const noMessages = api.client.chat.completions.create({ model: 'Concierge', messages: [] });
    await expect(noMessages).rejects.toMatchObject({ status: 400, param: 'messages' });
    const lastIsAssistant = api.client.responses.create({
      model: 'Concierge',
      input: [{ role: 'assistant', content: 'Hi' }],
    });
    await expect(lastIsAssistant).rejects.toMatchObject({ status: 400, param: 'input[0]' });
  });

  it('answers a failed run with 500 run_failed, or in a stream an error the client raises', async () => {
    api.model.push({ error: 'upstream overloaded' });
    const json = api.client.chat.completions.create({
      model: 'Concierge',
      messages: [{ role: 'user', content: 'Hi' }],
    });
    await expect(json).rejects.toBeInstanceOf(InternalServerError);
    await expect(json).rejects.toMatchObject({ status: 500, code: 'run_failed' });
    api.model.push({ error: 'upstream overloaded' });
    const stream = await api.client.chat.completions.create({
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
    api.model.push({ text: ['slow ', 'answer'], delayMs: 300 });
    const headers = { 'X-Session-Id': 'busy-guest' };
    const slow = await api.client.chat.completions.create(
      {
        model: 'Concierge',
        messages: [{ role: 'user', content: 'Take your time.' }],
        stream: true,
      },
      { headers },
    );
    const busy = api.client.chat.completions.create(
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
    const preflight = await fetch(`${api.server.url}/v1/chat/completions`, {
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
    const stranger = new OpenAI({
      baseURL: `${api.server.url}/v1`,
      apiKey: 'sk-wrong',
      maxRetries: 0,
    });
    const call = stranger.models.list();
    await expect(call).rejects.toBeInstanceOf(AuthenticationError);
    await expect(call).rejects.toMatchObject({
      status: 401,
      type: 'authentication_error',
      code: 'invalid_api_key',
    });
  });
});
