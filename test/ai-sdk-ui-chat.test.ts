/**
 * The AI SDK surface through the `ai` package's own client: a chat (`AbstractChat` with a
 * plain state, what `useChat` wraps) over `DefaultChatTransport`, and `readUIMessageStream`,
 * against `serve()` on a real port and the scripted model server. Text; a tool call; a call
 * held for approval, approved (once, however often the answer is posted) and rejected; a
 * reload in the middle of a slow turn resumed to the complete message, and 204 after the
 * end; regenerate; a cancel that ends the stream with `abort`; a workflow's nodes and
 * question. One server for the file; each test has a chat (session) of its own.
 */
import { randomUUID } from 'node:crypto';
import {
  AbstractChat,
  type ChatInit,
  type ChatState,
  type ChatStatus,
  DefaultChatTransport,
  lastAssistantMessageIsCompleteWithApprovalResponses,
  readUIMessageStream,
  type UIMessage,
} from 'ai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { Agent, Deck, tool } from '../src/index.js';
import { MemoryEventStore } from '../src/stores/memory/index.js';
import { type RunningServer, serve } from '../src/surfaces/http/serve.js';
import { type ScriptedModelServer, scriptedModelServer } from '../src/testing/index.js';
import { approval } from './support/workflows.js';

/** The state `useChat` keeps in React, as plain fields. */
class PlainState implements ChatState<UIMessage> {
  status: ChatStatus = 'ready';
  error: Error | undefined = undefined;
  messages: UIMessage[] = [];
  pushMessage = (message: UIMessage) => {
    this.messages = [...this.messages, message];
  };
  popMessage = () => {
    this.messages = this.messages.slice(0, -1);
  };
  replaceMessage = (index: number, message: UIMessage) => {
    this.messages = this.messages.map((m, i) => (i === index ? message : m));
  };
  snapshot = <T>(thing: T): T => structuredClone(thing);
}

class TestChat extends AbstractChat<UIMessage> {
  constructor(init: ChatInit<UIMessage>) {
    super({ ...init, state: new PlainState() });
  }
  get chatState() {
    return this.state;
  }
}

const refunds: string[] = [];
const lookUp = tool({
  name: 'look_up',
  description: 'Look an order up',
  parameters: z.object({ order: z.string() }),
  execute: ({ order }) => `order ${order} is paid`,
});
const refund = tool({
  name: 'refund',
  description: 'Refund an order',
  parameters: z.object({ order: z.string() }),
  needsApproval: true,
  execute: ({ order }) => {
    refunds.push(order);
    return `refunded ${order}`;
  },
});

let model: ScriptedModelServer;
let server: RunningServer;
const saved = { base: process.env.OPENAI_BASE_URL, key: process.env.OPENAI_API_KEY };

beforeAll(async () => {
  model = await scriptedModelServer([]);
  process.env.OPENAI_BASE_URL = model.url;
  process.env.OPENAI_API_KEY = 'sk-test';
  const deck = new Deck({
    agents: [new Agent({ name: 'Clerk', instructions: 'Handle orders.', tools: [lookUp, refund] })],
    workflows: [approval()],
    eventStore: new MemoryEventStore(),
  });
  server = await serve(deck, { host: '127.0.0.1', port: 0, wakeTimers: false });
});

afterAll(async () => {
  await server?.close();
  await model?.close();
  process.env.OPENAI_BASE_URL = saved.base;
  process.env.OPENAI_API_KEY = saved.key;
  if (saved.base === undefined) delete process.env.OPENAI_BASE_URL;
  if (saved.key === undefined) delete process.env.OPENAI_API_KEY;
});

const agentApi = () => `${server.url}/agents/Clerk/ui-chat`;

function newChat(id: string = randomUUID(), init: Partial<ChatInit<UIMessage>> = {}) {
  return new TestChat({ id, transport: new DefaultChatTransport({ api: agentApi() }), ...init });
}

const lastMessage = (chat: TestChat) => chat.messages.at(-1) as UIMessage;
const textOf = (message: UIMessage) =>
  message.parts.map((part) => (part.type === 'text' ? part.text : '')).join('');
const toolParts = (message: UIMessage) =>
  message.parts.filter((part) => part.type.startsWith('tool-')) as unknown as {
    type: string;
    state: string;
    toolCallId: string;
    input: unknown;
    output?: unknown;
    approval?: { id: string; approved?: boolean };
  }[];

/** Resolves once the chat's state passes `check` (the chat has no event of its own to await). */
async function until(check: () => boolean, what: string, ms = 10_000) {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

describe('POST /agents/{name}/ui-chat through the ai package', { timeout: 30_000 }, () => {
  it('streams a text answer as one assistant message whose id is the run id', async () => {
    model.push({ text: 'Hello there, how can I help?' });
    const chat = newChat();
    await chat.sendMessage({ text: 'hi' });
    expect(chat.status).toBe('ready');
    const answer = lastMessage(chat);
    expect(answer.role).toBe('assistant');
    expect(textOf(answer)).toBe('Hello there, how can I help?');
    expect(answer.metadata).toMatchObject({ run_id: answer.id, usage: { requests: 1 } });
    const run = await (await fetch(`${server.url}/runs/${answer.id}`)).json();
    expect(run).toMatchObject({ status: 'completed', session_id: chat.id });
  });

  it('writes the protocol header, an id per frame and [DONE] last', async () => {
    model.push({ text: 'ok' });
    const response = await fetch(agentApi(), {
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
    model.push(
      { toolCalls: [{ name: 'look_up', arguments: { order: 'A1' } }] },
      { text: 'A1 is paid.' },
    );
    const chat = newChat();
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

  it('holds a call for approval; an approval runs it once and the turn goes on in the same message', async () => {
    refunds.length = 0;
    model.push(
      { toolCalls: [{ name: 'refund', arguments: { order: 'B7' } }] },
      { text: 'Refunded B7.' },
    );
    const posted: string[] = []; // the bodies the transport sent
    const chat = newChat(randomUUID(), {
      sendAutomaticallyWhen: lastAssistantMessageIsCompleteWithApprovalResponses,
      transport: new DefaultChatTransport({
        api: agentApi(),
        fetch: (url, init) => {
          posted.push(String(init?.body));
          return fetch(url, init);
        },
      }),
    });
    await chat.sendMessage({ text: 'Refund B7' });
    const held = lastMessage(chat);
    const [call] = toolParts(held);
    expect(call).toMatchObject({ type: 'tool-refund', state: 'approval-requested' });
    expect(refunds).toEqual([]);
    const pending = await (await fetch(`${server.url}/pending`)).json();
    expect(pending.items).toContainEqual(
      expect.objectContaining({ run_id: held.id, reason: 'approval' }),
    );

    await chat.addToolApprovalResponse({ id: call?.approval?.id ?? '', approved: true });
    await until(
      () => chat.status === 'ready' && textOf(lastMessage(chat)) !== '',
      'the answered turn',
    );
    const answered = lastMessage(chat);
    expect(chat.messages).toHaveLength(2); // the same assistant message, continued
    expect(answered.id).toBe(held.id);
    expect(toolParts(answered)).toMatchObject([
      { state: 'output-available', output: 'refunded B7' },
    ]);
    expect(textOf(answered)).toBe('Refunded B7.');
    expect(refunds).toEqual(['B7']);

    // The same answer posted again (a lost response): the same frames, nothing runs again.
    const transport = new DefaultChatTransport<UIMessage>({ api: agentApi() });
    const answerPost = JSON.parse(posted[1] ?? '{}') as { messages: UIMessage[] };
    expect(toolParts(answerPost.messages[1] as UIMessage)).toMatchObject([
      { state: 'approval-responded', approval: { approved: true } },
    ]);
    const again = await transport.sendMessages({
      chatId: chat.id,
      messages: answerPost.messages,
      trigger: 'submit-message',
      messageId: held.id,
      abortSignal: undefined,
    });
    let replayed: UIMessage | undefined;
    for await (const message of readUIMessageStream({
      message: structuredClone(held),
      stream: again,
    })) {
      replayed = message;
    }
    expect(textOf(replayed as UIMessage)).toBe('Refunded B7.');
    expect(refunds).toEqual(['B7']);
    model.assertConsumed();
  });

  it('a rejected call never runs: the part shows it denied and the model is told', async () => {
    refunds.length = 0;
    model.push(
      { toolCalls: [{ name: 'refund', arguments: { order: 'C3' } }] },
      { text: 'I did not refund C3.' },
    );
    const chat = newChat(randomUUID(), {
      sendAutomaticallyWhen: lastAssistantMessageIsCompleteWithApprovalResponses,
    });
    await chat.sendMessage({ text: 'Refund C3' });
    const [call] = toolParts(lastMessage(chat));
    await chat.addToolApprovalResponse({
      id: call?.approval?.id ?? '',
      approved: false,
      reason: 'not eligible',
    });
    await until(
      () => chat.status === 'ready' && textOf(lastMessage(chat)) !== '',
      'the rejected turn',
    );
    const answer = lastMessage(chat);
    expect(toolParts(answer)).toMatchObject([{ type: 'tool-refund', state: 'output-denied' }]);
    expect(textOf(answer)).toBe('I did not refund C3.');
    expect(refunds).toEqual([]);
    expect(JSON.stringify(model.requests.at(-1)?.body)).toContain('not eligible');
  });

  it('a reload while a call waits shows it waiting, and the reloaded page approves it', async () => {
    refunds.length = 0;
    model.push(
      { toolCalls: [{ name: 'refund', arguments: { order: 'E5' } }] },
      { text: 'Refunded E5.' },
    );
    const id = randomUUID();
    const first = newChat(id);
    await first.sendMessage({ text: 'Refund E5' });
    const held = lastMessage(first);

    // A client that already has every frame up to the wait gets nothing more: 204.
    const replay = await (await fetch(`${agentApi()}/${id}/stream`)).text();
    const lastId = [...replay.matchAll(/^id: (\d+)$/gm)].at(-1)?.[1] ?? '';
    const upToDate = await fetch(`${agentApi()}/${id}/stream`, {
      headers: { 'last-event-id': lastId },
    });
    expect(upToDate.status).toBe(204);

    const reloaded = newChat(id, {
      sendAutomaticallyWhen: lastAssistantMessageIsCompleteWithApprovalResponses,
    });
    await reloaded.resumeStream();
    expect(reloaded.messages.map((m) => m.id)).toEqual([held.id]);
    const [call] = toolParts(lastMessage(reloaded));
    expect(call).toMatchObject({
      type: 'tool-refund',
      state: 'approval-requested',
      input: { order: 'E5' },
    });
    await reloaded.addToolApprovalResponse({ id: call?.approval?.id ?? '', approved: true });
    await until(
      () => reloaded.status === 'ready' && textOf(lastMessage(reloaded)) !== '',
      'the answer',
    );
    expect(textOf(lastMessage(reloaded))).toBe('Refunded E5.');
    expect(refunds).toEqual(['E5']);
  });

  it('an answer from beyond this machine is refused as the answer route refuses it (no keys set)', async () => {
    model.push(
      { toolCalls: [{ name: 'refund', arguments: { order: 'D1' } }] },
      { text: 'Refunded D1.' },
    );
    const chat = newChat(randomUUID(), {
      sendAutomaticallyWhen: lastAssistantMessageIsCompleteWithApprovalResponses,
      // As a proxy relays it: the client is not this machine.
      transport: new DefaultChatTransport({
        api: agentApi(),
        headers: { 'x-forwarded-for': '203.0.113.9' },
      }),
    });
    await chat.sendMessage({ text: 'Refund D1' }); // chatting is allowed from anywhere
    const [call] = toolParts(lastMessage(chat));
    await chat.addToolApprovalResponse({ id: call?.approval?.id ?? '', approved: true });
    await until(() => chat.status === 'error', 'the refusal');
    expect(chat.error?.message).toContain('refused to clients beyond this machine');
    const run = await (await fetch(`${server.url}/runs/${lastMessage(chat).id}`)).json();
    expect(run.status).toBe('waiting_human');
    // Answered from this machine, it plays (and uses the script's second step).
    const local = await fetch(`${server.url}/runs/${run.run_id}/answer`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ value: { approved: false } }),
    });
    expect(local.status).toBe(200);
  });

  it('a failed turn ends the stream with an error chunk naming its type and message', async () => {
    model.push({ error: 'the model is down' });
    const chat = newChat();
    await chat.sendMessage({ text: 'hi' });
    expect(chat.status).toBe('error');
    expect(chat.error?.message).toMatch(/^\w+: .*the model is down/);
  });

  it('a second turn on a busy session is a 409, and the first plays on', async () => {
    model.push({ text: ['slow ', 'answer'], delayMs: 200 });
    const id = randomUUID();
    const first = newChat(id);
    const sending = first.sendMessage({ text: 'one' });
    await until(() => first.messages.length === 2, 'the first turn to start');
    const second = newChat(id);
    await second.sendMessage({ text: 'two' });
    expect(second.status).toBe('error');
    expect(second.error?.message).toContain('busy');
    await sending;
    expect(textOf(lastMessage(first))).toBe('slow answer');
  });

  it('sends a file part to the model as an image; the client may send the last message alone', async () => {
    model.push({ text: 'A red dot.' });
    const chat = newChat(randomUUID(), {
      transport: new DefaultChatTransport({
        api: agentApi(),
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
    const sent = JSON.stringify(model.requests.at(-1)?.body);
    expect(sent).toContain(dot);
    expect(sent).toContain('What is this?');
  });

  it('a reload in the middle of a slow turn resumes to the complete message; then 204', async () => {
    const words = Array.from({ length: 30 }, (_, i) => `w${i} `);
    model.push({ text: words, delayMs: 20 });
    const id = randomUUID();
    const first = newChat(id);
    const sending = first.sendMessage({ text: 'Tell me a long story' });
    await until(
      () => first.messages.length === 2 && textOf(lastMessage(first)).length > 0,
      'the first words',
    );
    await first.stop(); // the page goes away: the client disconnects, the run plays on
    await sending;
    expect(textOf(lastMessage(first))).not.toBe(words.join(''));

    const reloaded = newChat(id); // a new page with the same chat id, as useChat({ resume: true })
    await reloaded.resumeStream();
    expect(reloaded.messages).toHaveLength(1);
    expect(textOf(lastMessage(reloaded))).toBe(words.join(''));
    expect(lastMessage(reloaded).id).toBe(lastMessage(first).id);

    const transport = new DefaultChatTransport<UIMessage>({ api: agentApi() });
    expect(await transport.reconnectToStream({ chatId: id })).toBeNull(); // 204: nothing in progress
  });

  it('resumes after Last-Event-ID with only the later frames', async () => {
    model.push({ text: ['one ', 'two ', 'three'], delayMs: 150 });
    const id = randomUUID();
    const chat = newChat(id);
    const sending = chat.sendMessage({ text: 'count' });
    await until(() => chat.messages.length === 2, 'the answer to start');
    const response = await fetch(`${agentApi()}/${id}/stream`, {
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
    model.push({ text: 'First answer.' }, { text: 'Second answer.' });
    const chat = newChat();
    await chat.sendMessage({ text: 'Name a colour' });
    const firstId = lastMessage(chat).id;
    await chat.regenerate();
    expect(chat.messages).toHaveLength(2);
    expect(lastMessage(chat).id).not.toBe(firstId);
    expect(textOf(lastMessage(chat))).toBe('Second answer.');
    const sent = JSON.stringify(model.requests.at(-1)?.body);
    expect(sent).not.toContain('First answer.');
    expect(sent.match(/Name a colour/g)).toHaveLength(1);
  });

  it('POST /runs/{id}/cancel ends the stream with abort', async () => {
    model.push({ text: Array.from({ length: 50 }, (_, i) => `x${i} `), delayMs: 20 });
    const transport = new DefaultChatTransport<UIMessage>({ api: agentApi() });
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
        await fetch(`${server.url}/runs/${runId}/cancel`, {
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
      api: `${server.url}/workflows/approval/ui-chat`,
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
    const answered = await fetch(`${server.url}/runs/${message?.id}/answer`, {
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
