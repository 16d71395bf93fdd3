/**
 * Test support for the AI SDK surface's tests (test/ai-sdk-ui-chat*.test.ts): one `serve()` on
 * a real port per file, with an agent `Clerk` (`look_up`, and `refund`, which a person
 * approves) and the workflow `approval`, its model calls going to the scripted model server;
 * and a chat of the `ai` package (`AbstractChat` over a plain state, what `useChat` wraps)
 * whose transport is `DefaultChatTransport` on the agent's `ui-chat` route.
 */
import { randomUUID } from 'node:crypto';
import {
  AbstractChat,
  type ChatInit,
  type ChatState,
  type ChatStatus,
  DefaultChatTransport,
  type UIMessage,
} from 'ai';
import { afterAll, beforeAll } from 'vitest';
import { z } from 'zod';
import { Agent, Deck, tool } from '../../src/index.js';
import { MemoryEventStore } from '../../src/stores/memory/index.js';
import { type RunningServer, serve } from '../../src/surfaces/http/serve.js';
import { type ScriptedModelServer, scriptedModelServer } from '../../src/testing/index.js';
import { approval } from './workflows.js';

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

export class TestChat extends AbstractChat<UIMessage> {
  constructor(init: ChatInit<UIMessage>) {
    super({ ...init, state: new PlainState() });
  }
  get chatState() {
    return this.state;
  }
}

export const lastMessage = (chat: TestChat) => chat.messages.at(-1) as UIMessage;
export const textOf = (message: UIMessage) =>
  message.parts.map((part) => (part.type === 'text' ? part.text : '')).join('');
export const toolParts = (message: UIMessage) =>
  message.parts.filter((part) => part.type.startsWith('tool-')) as unknown as {
    type: string;
    state: string;
    toolCallId: string;
    input: unknown;
    output?: unknown;
    approval?: { id: string; approved?: boolean };
  }[];

/** Resolves once the chat's state passes `check` (the chat has no event of its own to await). */
export async function until(check: () => boolean, what: string, ms = 10_000) {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

export interface AiSdkChatFixture {
  model: ScriptedModelServer;
  server: RunningServer;
  /** The orders `refund` refunded, in order. */
  refunds: string[];
  /** The agent's `ui-chat` route. */
  agentApi(): string;
  /** A chat (a session) of its own, on the agent's route. */
  newChat(id?: string, init?: Partial<ChatInit<UIMessage>>): TestChat;
}

/** Start the server before the file's tests and stop it after; its parts, once started. */
export function aiSdkChatFixture(): AiSdkChatFixture {
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
  const fixture = {
    refunds,
    agentApi: () => `${fixture.server.url}/agents/Clerk/ui-chat`,
    newChat: (id: string = randomUUID(), init: Partial<ChatInit<UIMessage>> = {}) =>
      new TestChat({
        id,
        transport: new DefaultChatTransport({ api: fixture.agentApi() }),
        ...init,
      }),
  } as AiSdkChatFixture;
  const saved = { base: process.env.OPENAI_BASE_URL, key: process.env.OPENAI_API_KEY };

  beforeAll(async () => {
    fixture.model = await scriptedModelServer([]);
    process.env.OPENAI_BASE_URL = fixture.model.url;
    process.env.OPENAI_API_KEY = 'sk-test';
    const deck = new Deck({
      agents: [
        new Agent({ name: 'Clerk', instructions: 'Handle orders.', tools: [lookUp, refund] }),
      ],
      workflows: [approval()],
      eventStore: new MemoryEventStore(),
    });
    fixture.server = await serve(deck, { host: '127.0.0.1', port: 0, wakeTimers: false });
  });

  afterAll(async () => {
    await fixture.server?.close();
    await fixture.model?.close();
    process.env.OPENAI_BASE_URL = saved.base;
    process.env.OPENAI_API_KEY = saved.key;
    if (saved.base === undefined) delete process.env.OPENAI_BASE_URL;
    if (saved.key === undefined) delete process.env.OPENAI_API_KEY;
  });
  return fixture;
}
