/**
 * The AI SDK surface through the `ai` package's own client: a chat (`AbstractChat` with a
 * plain state, what `useChat` wraps) over `DefaultChatTransport`, and `readUIMessageStream`,
 * against `serve()` on a real port and the scripted model server. Text; a tool call; a failed
 * turn; a busy session; a file part; a reload in the middle of a slow turn resumed to the
 * complete message, and 204 after the end; regenerate; a cancel that ends the stream with
 * `abort`; a workflow's nodes and question. Approvals: ai-sdk-ui-chat-approvals.test.ts.
 * One server for the file; each test has a chat (session) of its own.
 */
import { randomUUID } from 'node:crypto';
import { DefaultChatTransport, readUIMessageStream, type UIMessage } from 'ai';
import { describe, expect, it } from 'vitest';
import { aiSdkChatFixture, lastMessage, textOf, toolParts, until } from './support/ai-sdk-chat.js';

const api = aiSdkChatFixture();

describe('POST /agents/{name}/ui-chat through the ai package', { timeout: 30_000 }, () => {
  it('streams a text answer as one assistant message whose id is the run id', async () => {
    api.model.push({ text: 'Hello there, how can I help?' });
    const chat = api.newChat();
    await chat.sendMessage({ text: 'hi' });
    expect(chat.status).toBe('ready');
    const answer = lastMessage(chat);
    expect(answer.role).toBe('assistant');
    expect(textOf(answer)).toBe('Hello there, how can I help?');
    expect(answer.metadata).toMatchObject({ run_id: answer.id, usage: { requests: 1 } });
    const run = await (await fetch(`${api.server.url}/runs/${answer.id}`)).json();
    expect(run).toMatchObject({ status: 'completed', session_id: chat.id });
  });

  it('writes the protocol header, an id per frame and [DONE] last', async () => {
    api.model.push({ text: 'ok' });
    const response = await fetch(api.agentApi(), {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        id: randomUUID(),
        trigger: 'submit-message',
        messages: [{ id: 'u1', role: 'user', parts: [{ type: 'text', text: 'hi' }] }],
      }),
    });
    expect(response.headers.get('x-vercel-ai-ui-message-stream')).toBe('v1');
    const runId = response.headers.get('x-run-id');
    const text = await response.text();
    const frames = text.trim().split('\n\n');
    expect(frames.at(-1)).toBe('data: [DONE]');
    for (const frame of frames.slice(0, -1)) expect(frame).toMatch(/^id: \d+\ndata: \{/);
    expect(frames[0]).toBe(
      `id: 0\ndata: {"type":"start","messageId":"${runId}","messageMetadata":{"run_id":"${runId}"}}`,
    );
  });

  it('shows a tool call with its output, then the answer, in steps', async () => {
    api.model.push(
      { toolCalls: [{ name: 'look_up', arguments: { order: 'A1' } }] },
      { text: 'A1 is paid.' },
    );
    const chat = api.newChat();
    await chat.sendMessage({ text: 'Is A1 paid?' });
    const answer = lastMessage(chat);
    expect(toolParts(answer)).toMatchObject([
      {
        type: 'tool-look_up',
        state: 'output-available',
        input: { order: 'A1' },
        output: 'order A1 is paid',
      },
    ]);
    expect(textOf(answer)).toBe('A1 is paid.');
    expect(answer.parts.filter((part) => part.type === 'step-start')).toHaveLength(2);
  });

  it('a failed turn ends the stream with an error chunk naming its type and message', async () => {
    api.model.push({ error: 'the model is down' });
    const chat = api.newChat();
    await chat.sendMessage({ text: 'hi' });
    expect(chat.status).toBe('error');
    expect(chat.error?.message).toMatch(/^\w+: .*the model is down/);
  });

  it('a second turn on a busy session is a 409, and the first plays on', async () => {
    api.model.push({ text: ['slow ', 'answer'], delayMs: 200 });
    const id = randomUUID();
    const first = api.newChat(id);
    const sending = first.sendMessage({ text: 'one' });
    await until(() => first.messages.length === 2, 'the first turn to start');
    const second = api.newChat(id);
    await second.sendMessage({ text: 'two' });
    expect(second.status).toBe('error');
    expect(second.error?.message).toContain('busy');
    await sending;
    expect(textOf(lastMessage(first))).toBe('slow answer');
  });

  it('sends a file part to the model as an image; the client may send the last message alone', async () => {
    api.model.push({ text: 'A red dot.' });
    const chat = api.newChat(randomUUID(), {
      transport: new DefaultChatTransport({
        api: api.agentApi(),
        // The service keeps the history: a long chat need not post it back each time.
        prepareSendMessagesRequest: ({ id, messages, trigger, messageId }) => ({
          body: { id, messages: messages.slice(-1), trigger, messageId },
        }),
      }),
    });
    const dot =
      'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==';
    await chat.sendMessage({
      text: 'What is this?',
      files: [{ type: 'file', mediaType: 'image/png', url: `data:image/png;base64,${dot}` }],
    });
    expect(textOf(lastMessage(chat))).toBe('A red dot.');
    const sent = JSON.stringify(api.model.requests.at(-1)?.body);
    expect(sent).toContain(dot);
    expect(sent).toContain('What is this?');
  });

  it('a reload in the middle of a slow turn resumes to the complete message; then 204', async () => {
    const words = Array.from({ length: 30 }, (_, i) => `w${i} `);
    api.model.push({ text: words, delayMs: 20 });
    const id = randomUUID();
    const first = api.newChat(id);
    const sending = first.sendMessage({ text: 'Tell me a long story' });
    await until(
      () => first.messages.length === 2 && textOf(lastMessage(first)).length > 0,
      'the first words',
    );
    await first.stop(); // the page goes away: the client disconnects, the run plays on
    await sending;
    expect(textOf(lastMessage(first))).not.toBe(words.join(''));

    const reloaded = api.newChat(id); // a new page with the same chat id, as useChat({ resume: true })
    await reloaded.resumeStream();
    expect(reloaded.messages).toHaveLength(1);
    expect(textOf(lastMessage(reloaded))).toBe(words.join(''));
    expect(lastMessage(reloaded).id).toBe(lastMessage(first).id);

    const transport = new DefaultChatTransport<UIMessage>({ api: api.agentApi() });
    expect(await transport.reconnectToStream({ chatId: id })).toBeNull(); // 204: nothing in progress
  });

  it('resumes after Last-Event-ID with only the later frames', async () => {
    api.model.push({ text: ['one ', 'two ', 'three'], delayMs: 150 });
    const id = randomUUID();
    const chat = api.newChat(id);
    const sending = chat.sendMessage({ text: 'count' });
    await until(() => chat.messages.length === 2, 'the answer to start');
    const response = await fetch(`${api.agentApi()}/${id}/stream`, {
      headers: { 'last-event-id': '2' },
    });
    const text = await response.text();
    await sending;
    expect(text).not.toContain('"type":"start"');
    const seqs = [...text.matchAll(/^id: (\d+)$/gm)].map((match) => Number(match[1]));
    expect(seqs.length).toBeGreaterThan(0);
    expect(Math.min(...seqs)).toBeGreaterThan(2);
    expect(text.endsWith('data: [DONE]\n\n')).toBe(true);
  });

  it('regenerate takes the last answer out of the session and answers again', async () => {
    api.model.push({ text: 'First answer.' }, { text: 'Second answer.' });
    const chat = api.newChat();
    await chat.sendMessage({ text: 'Name a colour' });
    const firstId = lastMessage(chat).id;
    await chat.regenerate();
    expect(chat.messages).toHaveLength(2);
    expect(lastMessage(chat).id).not.toBe(firstId);
    expect(textOf(lastMessage(chat))).toBe('Second answer.');
    const sent = JSON.stringify(api.model.requests.at(-1)?.body);
    expect(sent).not.toContain('First answer.');
    expect(sent.match(/Name a colour/g)).toHaveLength(1);
  });

  it('POST /runs/{id}/cancel ends the stream with abort', async () => {
    api.model.push({ text: Array.from({ length: 50 }, (_, i) => `x${i} `), delayMs: 20 });
    const transport = new DefaultChatTransport<UIMessage>({ api: api.agentApi() });
    const stream = await transport.sendMessages({
      chatId: randomUUID(),
      messages: [{ id: 'u1', role: 'user', parts: [{ type: 'text', text: 'go on' }] }],
      trigger: 'submit-message',
      messageId: undefined,
      abortSignal: undefined,
    });
    const chunks: string[] = [];
    let runId = '';
    for await (const chunk of stream as unknown as AsyncIterable<{
      type: string;
      messageId?: string;
    }>) {
      chunks.push(chunk.type);
      if (chunk.type === 'start') runId = chunk.messageId ?? '';
      if (chunk.type === 'text-delta' && chunks.filter((t) => t === 'text-delta').length === 2) {
        await fetch(`${api.server.url}/runs/${runId}/cancel`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: '{}',
        });
      }
    }
    expect(chunks.at(-1)).toBe('abort');
    expect(chunks.filter((t) => t === 'text-delta').length).toBeLessThan(50);
  });
});

describe('POST /workflows/{name}/ui-chat through the ai package', { timeout: 30_000 }, () => {
  it('streams each node as a data-node part and the question as a data-interrupt part', async () => {
    const transport = new DefaultChatTransport<UIMessage>({
      api: `${api.server.url}/workflows/approval/ui-chat`,
      body: { state: { amount: 120 } },
    });
    const stream = await transport.sendMessages({
      chatId: randomUUID(),
      messages: [{ id: 'u1', role: 'user', parts: [{ type: 'text', text: 'start' }] }],
      trigger: 'submit-message',
      messageId: undefined,
      abortSignal: undefined,
    });
    let message: UIMessage | undefined;
    for await (const update of readUIMessageStream({ stream })) message = update;
    const data = (message?.parts ?? []).filter((part) => part.type.startsWith('data-'));
    expect(data).toEqual([
      { type: 'data-node', data: { node: 'prepare', update: { note: 'amount 120' } } },
      {
        type: 'data-interrupt',
        data: { run_id: message?.id, payload: { question: 'approve?', amount: 120 } },
      },
    ]);
    // The question is answered through the existing answer route; the run completes.
    const answered = await fetch(`${api.server.url}/runs/${message?.id}/answer`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ value: { approved: true } }),
    });
    expect(await answered.json()).toMatchObject({
      status: 'completed',
      result: { approved: true },
    });
  });
});
