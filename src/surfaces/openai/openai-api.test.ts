/**
 * The OpenAI API's models and chat completions through the `openai` package's own client,
 * against `serve()` on a real port and the scripted model server (the agent's model calls take
 * the real client path): the agents as models, chat completions JSON and streamed (with and
 * without usage), a stateless history and the request's system message reaching the model next
 * to the agent's own instructions, a session, and a tool call held for approval and answered in
 * the inbox. Responses and the errors: openai-responses.test.ts. One server for the file.
 */
import { describe, expect, it } from 'vitest';
import { INSTRUCTIONS, KEY, openAiApiFixture } from '../../../test/support/openai-api.js';

const api = openAiApiFixture();

describe('GET /v1/models', () => {
  it('lists the agents, not the workflows', async () => {
    const models = [];
    for await (const m of api.client.models.list()) models.push(m);
    expect(models).toEqual([
      { id: 'Concierge', object: 'model', created: expect.any(Number), owned_by: 'agentdeck' },
    ]);
  });

  it('retrieves one agent as a model; another name is model_not_found', async () => {
    expect(await api.client.models.retrieve('Concierge')).toMatchObject({
      id: 'Concierge',
      object: 'model',
    });
    await expect(api.client.models.retrieve('nobody')).rejects.toMatchObject({
      status: 404,
      code: 'model_not_found',
    });
  });
});

describe('POST /v1/chat/completions', () => {
  it('answers JSON with the run usage; the history and system message reach the model, nothing is stored', async () => {
    const before = api.model.requests.length;
    api.model.push({
      text: 'Table for two at eight.',
      usage: { inputTokens: 31, outputTokens: 7 },
    });
    const { data, response } = await api.client.chat.completions
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
    expect(api.modelMessages(before)).toEqual([
      { role: 'system', content: `${INSTRUCTIONS}\n\nAnswer in one sentence.` },
      { role: 'user', content: 'I am Ada.' },
      { role: 'assistant', content: 'Welcome, Ada.' },
      { role: 'user', content: 'A table tonight?' },
    ]);
    expect(await api.runOf(runId)).toMatchObject({ status: 'completed', session_id: null });
  });

  it('streams chunks and [DONE], with the usage chunk only when asked for', async () => {
    api.model.push({
      text: ['Good ', 'evening.'],
      delayMs: 30,
      usage: { inputTokens: 12, outputTokens: 2 },
    });
    const stream = await api.client.chat.completions.create({
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

    api.model.push({ text: 'Hi.' });
    const plain = await api.client.chat.completions.create({
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
    const before = api.model.requests.length;
    api.model.push({ text: 'Noted, Ada.' }, { text: 'You are Ada.' });
    const headers = { 'X-Session-Id': 'guest-ada' };
    await api.client.chat.completions.create(
      { model: 'Concierge', messages: [{ role: 'user', content: 'I am Ada.' }] },
      { headers },
    );
    const { response } = await api.client.chat.completions
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
    expect(api.modelMessages(before + 1).slice(1)).toEqual([
      { role: 'user', content: 'I am Ada.' },
      { role: 'assistant', content: 'Noted, Ada.' },
      { role: 'user', content: 'Who am I?' },
    ]);
    expect((await api.runOf(response.headers.get('x-run-id'))).session_id).toBe('guest-ada');
  });

  it('ends the answer with what waits when a tool call is held for approval; the inbox answers it', async () => {
    api.booked.length = 0;
    api.model.push({ toolCalls: [{ name: 'book', arguments: { table: 'T7' } }] });
    const { data, response } = await api.client.chat.completions
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
    expect(api.booked).toEqual([]);

    const auth = { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' };
    const pending = (await (
      await fetch(`${api.server.url}/pending`, { headers: auth })
    ).json()) as {
      items: { run_id: string }[];
    };
    expect(pending.items.map((i) => i.run_id)).toContain(runId);
    api.model.push({ text: 'Booked T7.' });
    const answered = await fetch(`${api.server.url}/runs/${runId}/answer`, {
      method: 'POST',
      headers: auth,
      body: JSON.stringify({ value: { approved: true } }),
    });
    expect(answered.status).toBe(200);
    expect(api.booked).toEqual(['T7']);
    // The turn played on from its saved state with the request's instructions still added.
    expect(api.modelMessages(api.model.requests.length - 1)[0]).toEqual({
      role: 'system',
      content: `${INSTRUCTIONS}\n\nConfirm bookings by table number.`,
    });
    expect((await api.runOf(runId)).status).toBe('completed');
  });
});
