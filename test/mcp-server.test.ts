/**
 * The MCP server endpoint (`/mcp`, issue 38) as hosts use it: a real `service-serve` process
 * on a project (an agent, a durable workflow that asks a person, a workflow that waits for the
 * test), its agent on the scripted model server, keys set, a wait of 2 s. Every case runs
 * twice, once per protocol revision, each through the protocol's own client:
 * `@modelcontextprotocol/sdk` 1.x (2025-11-25, `initialize`) and `@modelcontextprotocol/client`
 * 2.x pinned to 2026-07-28 (`server/discover`, stateless).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  Client as ModernClient,
  StreamableHTTPClientTransport as ModernTransport,
} from '@modelcontextprotocol/client';
import { Client as LegacyClient } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as LegacyTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { type ScriptedModelServer, scriptedModelServer } from '../src/testing/index.js';
import { REPO_ROOT } from './support/cli.js';
import { type ServerProcess, startServer } from './support/server-process.js';

const PROJECT = join(REPO_ROOT, 'test/fixtures/mcp-project/.agentdeck');
const KEY = 'mcp-test-key';
const WAIT_SECONDS = 2;

interface Result {
  content: { type: string; text?: string }[];
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
}

/** What a test needs of either client. */
interface McpClient {
  revision: string;
  listTools(): Promise<
    { name: string; description?: string | undefined; inputSchema: Record<string, unknown> }[]
  >;
  call(
    name: string,
    args: Record<string, unknown>,
    onProgress?: (message: string) => void,
    signal?: AbortSignal,
  ): Promise<Result>;
  close(): Promise<void>;
}

let model: ScriptedModelServer;
let server: ServerProcess;
let url: URL;
let dir: string;
const gate = () => join(dir, 'slow.go');

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'agentdeck-mcp-'));
  model = await scriptedModelServer([]);
  server = startServer(
    PROJECT,
    {
      OPENAI_BASE_URL: model.url,
      OPENAI_API_KEY: 'sk-test',
      OPENAI_USE_RESPONSES: 'false',
      SERVICE_API_KEYS: KEY,
      SERVICE_MCP_WAIT_SECONDS: String(WAIT_SECONDS),
      MCP_GATE: join(dir, 'slow.go'),
    },
    dir,
  );
  url = new URL('/mcp', await server.url);
}, 60_000);

afterAll(async () => {
  server?.child.kill('SIGKILL');
  await server?.exited;
  await model?.close();
  rmSync(dir, { recursive: true, force: true });
});

const auth = { headers: { authorization: `Bearer ${KEY}` } };

async function legacyClient(): Promise<McpClient> {
  const client = new LegacyClient({ name: 'test-2025', version: '1.0.0' });
  await client.connect(new LegacyTransport(url, { requestInit: auth }));
  expect(client.getServerVersion()).toMatchObject({
    name: 'mcp-project',
    title: 'mcp-project (agentdeck)',
  });
  return {
    revision: '2025-11-25',
    listTools: async () => (await client.listTools()).tools,
    call: async (name, args, onProgress, signal) =>
      (await client.callTool({ name, arguments: args }, undefined, {
        ...(onProgress ? { onprogress: (p) => onProgress(p.message ?? '') } : {}),
        ...(signal ? { signal } : {}),
      })) as Result,
    close: () => client.close(),
  };
}

async function modernClient(): Promise<McpClient> {
  const client = new ModernClient(
    { name: 'test-2026', version: '1.0.0' },
    { versionNegotiation: { mode: { pin: '2026-07-28' } } },
  );
  await client.connect(new ModernTransport(url, { requestInit: auth }));
  expect(client.getNegotiatedProtocolVersion()).toBe('2026-07-28');
  return {
    revision: '2026-07-28',
    listTools: async () => (await client.listTools()).tools,
    call: async (name, args, onProgress, signal) =>
      (await client.callTool(
        { name, arguments: args },
        {
          ...(onProgress ? { onprogress: (p) => onProgress(p.message ?? '') } : {}),
          ...(signal ? { signal } : {}),
        },
      )) as Result,
    close: () => client.close(),
  };
}

describe.each([
  ['2025-11-25 (@modelcontextprotocol/sdk 1.x)', legacyClient],
  ['2026-07-28 (@modelcontextprotocol/client 2.x)', modernClient],
])('/mcp, revision %s', (_revision, connect) => {
  let client: McpClient;
  beforeAll(async () => {
    client = await connect();
  });
  afterAll(() => client?.close());
  /** Wait until get_run says the slow workflow's run completed. */
  const completes = (runId: string) =>
    vi.waitFor(
      async () => {
        const read = await client.call('get_run', { run_id: runId });
        expect(read.structuredContent).toMatchObject({ status: 'completed', done: true });
      },
      { timeout: 15_000, interval: 100 },
    );

  it('lists a tool per agent and workflow, with descriptions and schemas, and its own three', async () => {
    const tools = Object.fromEntries((await client.listTools()).map((t) => [t.name, t]));
    expect(Object.keys(tools).sort()).toEqual(
      ['answer_run', 'approval', 'clerk', 'get_run', 'list_pending', 'slow'].sort(),
    );
    expect(tools.clerk?.description).toBe('Answers questions about orders.');
    expect(tools.clerk?.inputSchema).toMatchObject({
      type: 'object',
      properties: { message: { type: 'string' }, session_id: { type: 'string' } },
      required: ['message'],
    });
    expect(tools.approval?.description).toContain("the workflow 'approval'");
    expect(tools.approval?.inputSchema).toMatchObject({
      type: 'object',
      properties: {
        amount: { type: 'number' },
        approved: { type: 'boolean' },
        thread_id: { type: 'string' },
      },
    });
    expect(tools.answer_run?.inputSchema).toMatchObject({ required: ['run_id', 'value'] });
  });

  it('calls an agent, with progress, and continues its session', async () => {
    model.push(
      { toolCalls: [{ name: 'lookup', arguments: { order: '7' }, callId: 'call_1' }] },
      { text: 'Order 7 ships Monday.' },
      { text: 'You are welcome.' },
    );
    const progress: string[] = [];
    const first = await client.call('clerk', { message: 'When does order 7 ship?' }, (m) =>
      progress.push(m),
    );
    expect(first.isError).toBeFalsy();
    expect(first.content).toEqual([{ type: 'text', text: 'Order 7 ships Monday.' }]);
    expect(first.structuredContent).toEqual({
      output: 'Order 7 ships Monday.',
      run_id: expect.any(String),
      session_id: expect.any(String),
      status: 'completed',
    });
    expect(progress).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^run .* of 'clerk' started$/),
        "calling tool 'lookup'",
        "tool 'lookup' done",
        'run completed',
      ]),
    );
    const sessionId = first.structuredContent?.session_id as string;
    const second = await client.call('clerk', { message: 'Thanks!', session_id: sessionId });
    expect(second.structuredContent).toMatchObject({
      output: 'You are welcome.',
      session_id: sessionId,
    });
    // The second turn was sent the first one's history.
    const sent = JSON.stringify(model.requests.at(-1)?.body);
    expect(sent).toContain('When does order 7 ship?');
  });

  it('runs a workflow that waits for a person, lists it, answers it with answer_run, reads it with get_run', async () => {
    const waiting = await client.call('approval', { amount: 12 });
    expect(waiting.structuredContent).toEqual({
      status: 'waiting_human',
      run_id: expect.any(String),
      payload: { question: 'approve?', amount: 12 },
      thread_id: expect.any(String),
    });
    const runId = waiting.structuredContent?.run_id as string;
    const pending = await client.call('list_pending', {});
    expect(pending.structuredContent?.items).toContainEqual(
      expect.objectContaining({ run_id: runId, invocable: 'approval', reason: 'interrupt' }),
    );
    const progress: string[] = [];
    const answered = await client.call(
      'answer_run',
      { run_id: runId, value: { approved: true } },
      (m) => progress.push(m),
    );
    expect(answered.isError).toBeFalsy();
    expect(progress).toEqual(expect.arrayContaining(["node 'finish' done", 'run completed']));
    expect(answered.structuredContent).toMatchObject({
      amount: 12,
      approved: true,
      note: 'amount 12 approved',
      run_id: runId,
      status: 'completed',
      origin: 'approval',
    });
    const read = await client.call('get_run', { run_id: runId });
    expect(read.structuredContent).toMatchObject({
      status: 'completed',
      note: 'amount 12 approved',
    });
    const again = await client.call('answer_run', { run_id: runId, value: { approved: false } });
    expect(again.isError).toBe(true);
    expect(again.content[0]?.text).toContain(
      'is not waiting for an answer (its status is completed)',
    );
  });

  it("holds an agent's tool call for approval; answer_run approves it and the turn goes on", async () => {
    model.push(
      { toolCalls: [{ name: 'refund', arguments: { order: '9' }, callId: 'call_r' }] },
      { text: 'Order 9 is refunded.' },
    );
    const held = await client.call('clerk', { message: 'Refund order 9' });
    expect(held.structuredContent).toMatchObject({
      status: 'waiting_human',
      output: null,
      payload: expect.objectContaining({ tool: 'refund', arguments: { order: '9' } }),
    });
    expect(held.content[0]?.text).toContain('answer_run');
    const runId = held.structuredContent?.run_id as string;
    const answered = await client.call('answer_run', { run_id: runId, value: { approved: true } });
    expect(answered.structuredContent).toMatchObject({
      output: 'Order 9 is refunded.',
      run_id: runId,
      status: 'completed',
    });
  });

  it('answers "running" for a run longer than the wait; the run plays on and get_run follows it', async () => {
    rmSync(gate(), { force: true });
    const started = Date.now();
    const call = await client.call('slow', {});
    const waited = Date.now() - started;
    expect(call.structuredContent).toEqual({
      status: 'running',
      run_id: expect.any(String),
      thread_id: expect.any(String),
    });
    expect(waited).toBeGreaterThanOrEqual(WAIT_SECONDS * 1000 - 50);
    const runId = call.structuredContent?.run_id as string;
    expect((await client.call('get_run', { run_id: runId })).structuredContent).toMatchObject({
      status: 'running',
      origin: 'slow',
    });
    writeFileSync(gate(), '');
    await completes(runId);
  });

  it('keeps playing a run whose client gave up on the call', async () => {
    rmSync(gate(), { force: true });
    const progress: string[] = [];
    const gaveUp = new AbortController();
    const call = client.call(
      'slow',
      {},
      (m) => {
        progress.push(m);
        gaveUp.abort(); // the run started: the client leaves
      },
      gaveUp.signal,
    );
    await expect(call).rejects.toThrow();
    const runId = /^run (\S+) of 'slow' started$/.exec(progress[0] ?? '')?.[1] ?? '';
    expect((await client.call('get_run', { run_id: runId })).structuredContent).toMatchObject({
      status: 'running',
    });
    writeFileSync(gate(), '');
    await completes(runId);
  });

  it('answers each mistake with a tool error that names it', async () => {
    const error = async (name: string, args: Record<string, unknown>) => {
      const result = await client.call(name, args);
      expect(result.isError).toBe(true);
      return result.content[0]?.text ?? '';
    };
    expect(await error('nope', {})).toContain(
      "no tool named 'nope'; this server's tools are 'clerk'",
    );
    expect(await error('clerk', {})).toContain(
      "argument 'message' of tool 'clerk' must be a non-empty string",
    );
    expect(await error('clerk', { message: 'hi', mood: 'sunny' })).toContain(
      "tool 'clerk' takes no argument 'mood'",
    );
    expect(await error('approval', { amount: 'twelve' })).toMatch(
      /invalid initial state for workflow 'approval': amount: /,
    );
    expect(await error('get_run', { run_id: 'no-such-run' })).toContain("no run 'no-such-run'");
    expect(await error('answer_run', { run_id: 'no-such-run' })).toContain("argument 'value'");
  });
});

describe('/mcp refuses', () => {
  it('a client without a key (401), and a browser page of an origin not allowed (403)', async () => {
    const legacy = new LegacyClient({ name: 'no-key', version: '1.0.0' });
    await expect(legacy.connect(new LegacyTransport(url))).rejects.toMatchObject({ code: 401 });
    const modern = new ModernClient(
      { name: 'no-key', version: '1.0.0' },
      { versionNegotiation: { mode: { pin: '2026-07-28' } } },
    );
    await expect(modern.connect(new ModernTransport(url))).rejects.toMatchObject({
      data: { status: 401 },
    });
    const fromPage = await fetch(url, {
      method: 'POST',
      headers: {
        ...auth.headers,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        origin: 'https://evil.example',
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }),
    });
    expect(fromPage.status).toBe(403);
    expect(((await fromPage.json()) as { detail: string }).detail).toContain(
      "cross-origin request from 'https://evil.example' refused",
    );
    const get = await fetch(url, auth);
    expect(get.status).toBe(405);
  });
});
