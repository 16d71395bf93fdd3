/**
 * A2A (#38) with `@a2a-js/sdk`'s own client against real `service-serve` processes and the
 * scripted model server: the payments service (test/fixtures/approval-project: the agent
 * `payer`, whose `pay` tool a person approves) with an API key, and the example's accounting
 * service (examples/a2a) whose agent asks `payer` over A2A. Cards, a blocking send, a
 * streamed send, get and list, a held tool call answered on its task, cancel, a client that
 * drops its stream and subscribes again, errors; and one agent calling another service's.
 */
import { randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  type Message,
  type Part,
  SendMessageRequest,
  type StreamResponse,
  type Task,
  TaskState,
} from '@a2a-js/sdk';
import {
  type Client,
  ClientFactory,
  ClientFactoryOptions,
  createAuthenticatingFetchWithRetry,
  DefaultAgentCardResolver,
  JsonRpcTransportFactory,
} from '@a2a-js/sdk/client';
import { LegacyJsonRpcTransport } from '@a2a-js/sdk/compat/v0_3/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ScriptedModelServer, scriptedModelServer } from '../src/testing/index.js';
import { REPO_ROOT } from './support/cli.js';
import { killServers, type ServerProcess, startServer } from './support/server-process.js';

const PAYMENTS = join(REPO_ROOT, 'test/fixtures/approval-project/.agentdeck');
const ACCOUNTING = join(REPO_ROOT, 'examples/a2a/.agentdeck');
const KEY = 'a2a-test-key';

let model: ScriptedModelServer;
let dir: string;
let payments: string;
let accounting: string;
const servers: ServerProcess[] = [];
let client: Client;

const authed = createAuthenticatingFetchWithRetry(fetch, {
  headers: async () => ({ authorization: `Bearer ${KEY}` }),
  shouldRetryWithHeaders: async () => undefined,
});

beforeAll(async () => {
  model = await scriptedModelServer([]);
  dir = mkdtempSync(join(tmpdir(), 'agentdeck-a2a-'));
  const modelEnv = {
    OPENAI_BASE_URL: model.url,
    OPENAI_API_KEY: 'sk-test',
    OPENAI_USE_RESPONSES: 'false',
  };
  const paying = startServer(
    PAYMENTS,
    { ...modelEnv, PAYER_LOG: join(dir, 'payments.log'), SERVICE_API_KEYS: KEY },
    mkdir(dir, 'payments'),
  );
  servers.push(paying);
  payments = await paying.url;
  const card = `${payments}/a2a/payer/.well-known/agent-card.json`;
  const asking = startServer(
    ACCOUNTING,
    { ...modelEnv, PAYER_A2A_CARD: card, PAYER_A2A_KEY: KEY },
    mkdir(dir, 'accounting'),
  );
  servers.push(asking);
  accounting = await asking.url;
  client = await clientFor(card);
}, 60_000);

afterAll(async () => {
  await killServers(servers);
  await model?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

function mkdir(parent: string, name: string): string {
  const path = mkdtempSync(join(parent, `${name}-`));
  return path;
}

function clientFor(cardUrl: string): Promise<Client> {
  const factory = new ClientFactory(
    ClientFactoryOptions.createFrom(ClientFactoryOptions.default, {
      transports: [new JsonRpcTransportFactory({ fetchImpl: authed })],
      cardResolver: new DefaultAgentCardResolver({ fetchImpl: authed }),
    }),
  );
  return factory.createFromUrl(cardUrl, '');
}

function message(parts: unknown[], ids: { contextId?: string; taskId?: string } = {}) {
  return SendMessageRequest.fromJSON({
    message: { messageId: randomUUID(), role: 'ROLE_USER', parts, ...ids },
  });
}

function asTask(result: Message | Task): Task {
  expect('id' in result, 'a task, not a message').toBe(true);
  return result as Task;
}

function texts(parts: readonly Part[] = []): string {
  return parts.map((p) => (p.content?.$case === 'text' ? String(p.content.value) : '')).join('');
}

const answerOf = (task: Task) =>
  texts(task.artifacts.find((a) => a.artifactId === 'answer')?.parts);
const paid = () => {
  const log = join(dir, 'payments.log');
  return existsSync(log) ? readFileSync(log, 'utf8').trim().split('\n') : [];
};

describe('A2A against service-serve', { timeout: 30_000 }, () => {
  it('serves a card per agent and one for the service, behind the API key', async () => {
    const refused = await fetch(`${payments}/a2a/payer/.well-known/agent-card.json`);
    expect(refused.status).toBe(401);
    const card = await client.getAgentCard();
    expect(card.name).toBe('payer');
    expect(card.description).toContain('pay');
    expect(card.capabilities).toMatchObject({ streaming: true, pushNotifications: false });
    expect(card.skills.map((s) => [s.id, s.tags])).toEqual([['pay', ['tool', 'needs-approval']]]);
    // One endpoint, two versions: the v1.0 client picks its own.
    expect(
      card.supportedInterfaces.map((i) => [i.url, i.protocolBinding, i.protocolVersion]),
    ).toEqual([
      [`${payments}/a2a/payer`, 'JSONRPC', '1.0'],
      [`${payments}/a2a/payer`, 'JSONRPC', '0.3'],
    ]);
    expect(client.protocolVersion).toBe('1.0');
    expect(Object.keys(card.securitySchemes)).toEqual(['bearer']);

    const service = await (await authed(`${payments}/.well-known/agent-card.json`)).json();
    expect(service.skills.map((s: { id: string }) => s.id)).toEqual(['payer']);
    expect(service.supportedInterfaces ?? []).toEqual([]);
  });

  it('sends a message and blocks until the run ends; the task is the run, read again from the log', async () => {
    model.push({ text: 'Nothing to pay today.' });
    const contextId = `ctx-${randomUUID()}`;
    const task = asTask(
      await client.sendMessage(message([{ text: 'Anything due?' }], { contextId })),
    );
    expect(task.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(task.contextId).toBe(contextId);
    expect(answerOf(task)).toBe('Nothing to pay today.');

    const read = await client.getTask({ tenant: '', id: task.id });
    expect(read.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(answerOf(read)).toBe('Nothing to pay today.');
    expect(texts(read.history[0]?.parts)).toBe('Anything due?');
    const run = await authed(`${payments}/runs/${task.id}`);
    expect(((await run.json()) as { origin: string }).origin).toBe('payer');

    const listed = await client.listTasks({
      tenant: '',
      contextId,
      status: TaskState.TASK_STATE_UNSPECIFIED,
      pageToken: '',
      statusTimestampAfter: undefined,
    });
    expect(listed.tasks.map((t) => t.id)).toEqual([task.id]);
  });

  it('streams the status and the text as it comes', async () => {
    model.push({ text: ['Paid ', 'nothing ', 'yet.'], delayMs: 20 });
    const seen: StreamResponse['payload'][] = [];
    for await (const response of client.sendMessageStream(message([{ text: 'Status?' }]))) {
      seen.push(response.payload);
    }
    expect(seen[0]?.$case).toBe('task');
    const chunks = seen.flatMap((p) =>
      p?.$case === 'artifactUpdate' && !p.value.lastChunk ? [texts(p.value.artifact?.parts)] : [],
    );
    expect(chunks).toEqual(['Paid ', 'nothing ', 'yet.']);
    const last = seen.at(-1);
    expect(last?.$case === 'statusUpdate' && last.value.status?.state).toBe(
      TaskState.TASK_STATE_COMPLETED,
    );
  });

  it('asks for input when a tool call waits for approval, and goes on when the task is answered', async () => {
    model.push(
      { toolCalls: [{ name: 'pay', arguments: { invoice: 'INV-1', amount: 120 } }] },
      { text: 'Paid INV-1.' },
    );
    const held = asTask(await client.sendMessage(message([{ text: 'Pay INV-1' }])));
    expect(held.status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
    const question = held.status?.message?.parts.find((p) => p.content?.$case === 'data');
    expect(question?.content?.value).toMatchObject({ approval: { tool: 'pay' } });
    expect(paid()).toEqual([]);

    const wrong = client.sendMessage(message([{ text: 'yes please' }], { taskId: held.id }));
    await expect(wrong).rejects.toThrow(/data part \{"approved": true\}/);
    const elsewhere = message([{ data: { approved: true } }], {
      taskId: held.id,
      contextId: 'other',
    });
    await expect(client.sendMessage(elsewhere)).rejects.toThrow(/is not the context of task/);
    const still = await client.getTask({ tenant: '', id: held.id });
    expect(still.status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);

    const answer = message([{ data: { approved: true } }], {
      taskId: held.id,
      contextId: held.contextId,
    });
    const done = asTask(await client.sendMessage(answer));
    expect(done.id).toBe(held.id);
    expect(done.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(answerOf(done)).toBe('Paid INV-1.');
    expect(paid()).toEqual(['paid INV-1 120']);

    const again = client.sendMessage(message([{ data: { approved: true } }], { taskId: held.id }));
    await expect(again).rejects.toThrow(/terminal state|not waiting/);
  });

  it('cancels a task: a held call never runs; a live run stops at its next safe point', async () => {
    model.push({ toolCalls: [{ name: 'pay', arguments: { invoice: 'INV-2', amount: 5 } }] });
    const held = asTask(await client.sendMessage(message([{ text: 'Pay INV-2' }])));
    expect(held.status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
    const cancelled = await client.cancelTask({ tenant: '', id: held.id, metadata: undefined });
    expect(cancelled.status?.state).toBe(TaskState.TASK_STATE_CANCELED);
    expect(paid()).not.toContain('paid INV-2 5');

    model.push({ text: Array.from({ length: 40 }, (_, i) => `w${i} `), delayMs: 50 });
    const stream = client.sendMessageStream(message([{ text: 'Say a lot' }]));
    let id = '';
    for await (const response of stream) {
      if (response.payload?.$case === 'task') id = response.payload.value.id;
      if (response.payload?.$case === 'artifactUpdate') break;
    }
    const stopped = await client.cancelTask({ tenant: '', id, metadata: undefined });
    expect(stopped.status?.state).toBe(TaskState.TASK_STATE_CANCELED);
    await expect(
      client.cancelTask({ tenant: '', id: held.id, metadata: undefined }),
    ).resolves.toMatchObject({
      status: { state: TaskState.TASK_STATE_CANCELED },
    });
  });

  it('keeps playing a run whose client dropped its stream; a late subscriber gets its state, then the rest', async () => {
    const words = Array.from({ length: 12 }, (_, i) => `v${i} `);
    model.push({ text: words, delayMs: 40 });
    let id = '';
    for await (const response of client.sendMessageStream(message([{ text: 'Count' }]))) {
      if (response.payload?.$case === 'task') id = response.payload.value.id;
      if (response.payload?.$case === 'artifactUpdate') break; // the client leaves
    }
    const seen: StreamResponse['payload'][] = [];
    for await (const response of client.resubscribeTask({ tenant: '', id }))
      seen.push(response.payload);
    expect(seen[0]?.$case).toBe('task');
    const first = seen[0]?.$case === 'task' ? seen[0].value : undefined;
    expect(first?.status?.state).toBe(TaskState.TASK_STATE_WORKING);
    const last = seen.at(-1);
    expect(last?.$case === 'statusUpdate' && last.value.status?.state).toBe(
      TaskState.TASK_STATE_COMPLETED,
    );
    const done = await client.getTask({ tenant: '', id });
    expect(answerOf(done)).toBe(words.join(''));
  });

  it('says what was wrong: an unknown task, an unknown agent, no version header', async () => {
    await expect(client.getTask({ tenant: '', id: 'no-such-run' })).rejects.toThrow(
      /no task 'no-such-run' of agent 'payer'/,
    );
    const unknown = await authed(`${payments}/a2a/nobody`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'a2a-version': '1.0' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'GetTask', params: { id: 'x' } }),
    });
    expect(unknown.status).toBe(404);
    const unserved = await authed(`${payments}/a2a/payer`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'a2a-version': '2.0' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'GetTask', params: { id: 'x' } }),
    });
    const body = (await unserved.json()) as { error: { code: number; message: string } };
    expect(body.error).toMatchObject({ code: -32009 });
    expect(body.error.message).toMatch(/A2A-Version '2.0' is not served: .* 1.0 .* 0.3/);
  });

  it('serves A2A 0.3 clients on the same endpoint: the card in 0.3 shape, message/send, tasks/get', async () => {
    const legacyCard = (await (
      await authed(`${payments}/a2a/payer/.well-known/agent-card.json`)
    ).json()) as { protocolVersion: string; url: string; preferredTransport: string };
    expect(legacyCard).toMatchObject({
      protocolVersion: '0.3',
      url: `${payments}/a2a/payer`,
      preferredTransport: 'JSONRPC',
    });
    const transport = new LegacyJsonRpcTransport({ endpoint: legacyCard.url, fetchImpl: authed });
    model.push({ text: 'Hello from 1.0 to 0.3.' });
    const task = asTask(await transport.sendMessage(message([{ text: 'Hi' }])));
    expect(task.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(answerOf(task)).toBe('Hello from 1.0 to 0.3.');
    const read = await transport.getTask({ tenant: '', id: task.id });
    expect(answerOf(read)).toBe('Hello from 1.0 to 0.3.');
  });

  it("lets an agent of one service call another service's agent over A2A, as a tool", async () => {
    model.push(
      { toolCalls: [{ name: 'ask_payer', arguments: { message: 'Is INV-9 paid?' } }] },
      { text: 'INV-9 was paid on Monday.' },
      { text: 'The payer says INV-9 was paid on Monday.' },
    );
    const response = await fetch(`${accounting}/agents/accountant/chat`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ session_id: 'books', message: 'Is INV-9 paid?' }),
    });
    expect(await response.json()).toEqual({ output: 'The payer says INV-9 was paid on Monday.' });
    const asked = model.requests.at(-2)?.body as { messages: { content: unknown }[] };
    expect(JSON.stringify(asked.messages)).toContain('Is INV-9 paid?');
  });
});
