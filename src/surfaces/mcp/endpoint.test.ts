/**
 * `/mcp`'s settings and outages, in process over a real socket (`serve()`), through the SDK's
 * 1.x client (revision 2025-11-25) and 2.x client (2026-07-28): which agents and workflows it
 * serves (`SERVICE_MCP_TOOLS`) and what the service's tools then reach, the endpoint off
 * (`SERVICE_MCP=off`), the names `build()` refuses while it is on, and a backend that is down:
 * the same 503 with `Retry-After` as every route, or, once a call has begun sending progress,
 * a tool error that names the backend. The real process and the rest of the tools are
 * `test/mcp-server.test.ts`.
 */
import {
  Client as ModernClient,
  StreamableHTTPClientTransport as ModernTransport,
} from '@modelcontextprotocol/client';
import { Client as LegacyClient } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as LegacyTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { describe, expect, it, vi } from 'vitest';
import { openTestDeck, testDeck } from '../../../test/support/decks.js';
import { freeTcpPort } from '../../../test/support/free-port.js';
import { approval } from '../../../test/support/workflows.js';
import { Agent, ConfigError } from '../../index.js';
import { ScriptedModel } from '../../testing/index.js';
import { serve } from '../http/serve.js';

async function legacyClient(url: string) {
  const client = new LegacyClient({ name: 'test-2025', version: '1.0.0' });
  await client.connect(new LegacyTransport(new URL('/mcp', url)));
  return client;
}

async function modernClient(url: string) {
  const client = new ModernClient(
    { name: 'test-2026', version: '1.0.0' },
    { versionNegotiation: { mode: { pin: '2026-07-28' } } },
  );
  await client.connect(new ModernTransport(new URL('/mcp', url)));
  return client;
}

describe('/mcp settings', () => {
  it('serves only the agents and workflows SERVICE_MCP_TOOLS names; its own tools reach only their runs', async () => {
    vi.stubEnv('SERVICE_MCP_TOOLS', 'Greeter');
    const model = new ScriptedModel([{ text: 'Hello.' }]);
    const { deck } = testDeck({
      agents: [new Agent({ name: 'Greeter', model })],
      workflows: [approval({ durable: true })],
    });
    await using server = await serve(deck, { host: '127.0.0.1', port: 0, handleSignals: false });
    const hidden = await deck.run('approval', { amount: 3 }, { sessionId: 't-1' });
    const client = await legacyClient(server.url);
    const names = (await client.listTools()).tools.map((t) => t.name);
    expect(names).toEqual(['Greeter', 'get_run', 'list_pending', 'answer_run']);
    const greeted = await client.callTool({ name: 'Greeter', arguments: { message: 'hi' } });
    expect(greeted.structuredContent).toMatchObject({ output: 'Hello.', status: 'completed' });
    expect(await client.callTool({ name: 'list_pending', arguments: {} })).toMatchObject({
      structuredContent: { items: [] },
    });
    const runId = (hidden as { runId: string }).runId;
    const read = await client.callTool({ name: 'get_run', arguments: { run_id: runId } });
    expect(read).toMatchObject({ isError: true });
    expect(JSON.stringify(read.content)).toContain(
      'of an agent or workflow this MCP server serves',
    );
    await client.close();
  });

  it('is 404 with SERVICE_MCP=off, and an unknown name in SERVICE_MCP_TOOLS refuses the app', async () => {
    const { deck } = await openTestDeck({
      agents: [new Agent({ name: 'Greeter', model: new ScriptedModel([]) })],
    });
    vi.stubEnv('SERVICE_MCP', 'off');
    const off = await deck.app().request('/mcp', { method: 'POST' });
    expect(off.status).toBe(404);
    vi.stubEnv('SERVICE_MCP', 'on');
    vi.stubEnv('SERVICE_MCP_TOOLS', 'Greeter,Nope');
    expect(() => deck.app()).toThrow(
      "SERVICE_MCP_TOOLS (mcp.tools) names 'Nope', which deck 'agentdeck' does not have; its agents and workflows are 'Greeter'",
    );
    expect(() => deck.app({ mcp: { waitSeconds: 0 } })).toThrow(
      'mcp.waitSeconds must be a positive number of seconds, got 0',
    );
    vi.stubEnv('SERVICE_MCP_WAIT_SECONDS', 'soon');
    expect(() => deck.app({ mcp: { tools: ['Greeter'] } })).toThrow(
      "SERVICE_MCP_WAIT_SECONDS must be a positive number of seconds, got 'soon'",
    );
  });

  it("refuses at build() an agent or workflow named as one of the endpoint's own tools, unless it is off", () => {
    const named = (name: string) => new Agent({ name, model: new ScriptedModel([]) });
    const { deck } = testDeck({
      agents: [named('get_run')],
      workflows: [approval({ name: 'answer_run' })],
    });
    expect(() => deck.build()).toThrow(ConfigError);
    expect(() => deck.build()).toThrow(
      "invalid catalog: 'get_run', 'answer_run' are the names of the MCP server's own tools (get_run, list_pending, answer_run)",
    );
    vi.stubEnv('SERVICE_MCP', 'off');
    expect(() => deck.build()).not.toThrow();
    // The app turns the endpoint on again: it refuses the names there.
    expect(() => deck.app({ mcp: { enabled: true } })).toThrow(
      /'get_run', 'answer_run' are the names of the MCP server's own tools/,
    );
  });
});

describe('/mcp calls on one session', () => {
  it('refuses a call on a session busy with another turn: a tool error, the first turn unharmed', async () => {
    const model = new ScriptedModel([{ text: ['Hello ', 'there.'], delayMs: 500 }]);
    const { deck } = testDeck({ agents: [new Agent({ name: 'Greeter', model })] });
    await using server = await serve(deck, { host: '127.0.0.1', port: 0, handleSignals: false });
    const client = await modernClient(server.url);
    const args = { message: 'hi', session_id: 's-1' };
    const first = client.callTool({ name: 'Greeter', arguments: args });
    await vi.waitFor(() => expect(model.calls).toHaveLength(1)); // the first turn holds the session
    const second = await client.callTool({ name: 'Greeter', arguments: args });
    expect(second.isError).toBe(true);
    expect(JSON.stringify(second.content)).toMatch(/session 's-1' is busy/);
    expect((await first).structuredContent).toMatchObject({
      output: 'Hello there.',
      status: 'completed',
    });
    await client.close();
  });
});

describe('/mcp while the session backend is down', () => {
  it('answers 503 with Retry-After as every route, or a tool error once progress has begun', async () => {
    vi.stubEnv('SERVICE_SESSION', `redis://127.0.0.1:${await freeTcpPort()}`);
    const lines: string[] = [];
    const { deck } = testDeck({
      agents: [new Agent({ name: 'Greeter', model: new ScriptedModel([]) })],
    });
    await using server = await serve(deck, {
      host: '127.0.0.1',
      port: 0,
      handleSignals: false,
      app: { log: (line) => lines.push(line) },
    });
    const legacy = await legacyClient(server.url);
    const refused = await legacy
      .callTool({ name: 'Greeter', arguments: { message: 'hi' } })
      .catch((error: unknown) => error);
    expect(refused).toMatchObject({ code: 503 });
    expect(String(refused)).toMatch(/Redis session store at redis:\/\/127\.0\.0\.1/);
    const modern = await modernClient(server.url);
    const alsoRefused = await modern
      .callTool({ name: 'Greeter', arguments: { message: 'hi' } })
      .catch((error: unknown) => error);
    expect(alsoRefused).toMatchObject({ data: { status: 503 } });
    // Asked for progress, the answer is a stream by the time the run fails: a tool error.
    const progress: string[] = [];
    const streamed = await legacy.callTool(
      { name: 'Greeter', arguments: { message: 'hi' } },
      undefined,
      { onprogress: (p) => progress.push(p.message ?? '') },
    );
    expect(streamed.isError).toBe(true);
    expect(JSON.stringify(streamed.content)).toMatch(/failed: .*Redis session store/);
    expect(progress[0]).toMatch(/^run .* of 'Greeter' started$/);
    expect(lines.filter((line) => line.includes('refusing requests while'))).toHaveLength(1);
    await legacy.close();
    await modern.close();
  });
});
