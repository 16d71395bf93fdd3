/**
 * MCP servers through a Deck, with real processes: build() only reads `.mcp.json`; open()
 * starts servers; a real third-party server (`@modelcontextprotocol/server-everything`,
 * from npm) answers a tool call over stdio and over Streamable HTTP, and its `get-env` is shown
 * and called as `get_env`, the name the model is offered; a server that fails to start is
 * reported once and its agents run without its tools; close() stops them.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { collect, openTestDeck, testDeck } from '../../test/support/decks.js';
import { Agent, ConfigError, MCP } from '../index.js';
import { ScriptedModel } from '../testing/index.js';

const EVERYTHING = resolve(
  import.meta.dirname,
  '../../node_modules/@modelcontextprotocol/server-everything/dist/index.js',
);
const children: ChildProcess[] = [];

afterEach(() => {
  vi.restoreAllMocks();
  vi.unstubAllEnvs();
  for (const child of children.splice(0)) child.kill('SIGKILL');
});

function mcpJson(servers: Record<string, unknown>): string {
  const dir = mkdtempSync(join(tmpdir(), 'agentdeck-mcp-'));
  const file = join(dir, '.mcp.json');
  writeFileSync(file, JSON.stringify({ mcpServers: servers }, null, 2));
  return file;
}

/** An agent whose scripted model calls `echo` once and then answers. */
function echoAgent(servers: string[]) {
  const model = new ScriptedModel([
    { toolCalls: [{ name: 'echo', arguments: { message: 'hello MCP' } }] },
    { text: 'It echoed.' },
  ]);
  return {
    model,
    agent: new Agent({ name: 'Echoer', instructions: 'Echo.', model, mcpServers: servers }),
  };
}

async function echoedOutput(deck: Awaited<ReturnType<typeof openTestDeck>>) {
  const result = await deck.deck.run('Echoer', 'echo something');
  const events = await deck.eventStore.read(result.runId);
  const completed = events.find((e) => e.kind === 'tool.call.completed');
  return { result, completed };
}

describe('MCP configuration', () => {
  it('build() reads the file only; open() starts the servers; a failed one is reported once', async () => {
    const marker = join(mkdtempSync(join(tmpdir(), 'agentdeck-mcp-')), 'started');
    const file = mcpJson({
      flaky: {
        command: process.execPath,
        args: ['-e', "require('fs').writeFileSync(process.argv[1], 'started')", marker],
      },
    });
    const errors = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    const model = new ScriptedModel([{ text: 'first' }, { text: 'second' }]);
    const agent = new Agent({
      name: 'Helper',
      instructions: 'Help.',
      model,
      mcpServers: ['flaky'],
    });
    const made = testDeck({ mcp: file, agents: [agent] });
    made.deck.build();
    expect(existsSync(marker)).toBe(false);

    await made.deck.open();
    expect(readFileSync(marker, 'utf8')).toBe('started');
    const logged = errors.mock.calls.map((args) => String(args[0]));
    expect(logged.filter((line) => line.includes("MCP server 'flaky'"))).toHaveLength(1);
    expect(logged.find((line) => line.includes("MCP server 'flaky'"))).toContain('failed to start');

    for (const expected of ['first', 'second']) {
      const result = await made.deck.run('Helper', 'hi');
      expect(result.output).toBe(expected);
      const events = await made.eventStore.read(result.runId);
      expect(events.map((e) => e.kind).slice(0, 2)).toEqual(['run.started', 'status.reported']);
      expect(events[1]?.payload).toMatchObject({
        level: 'warning',
        message: expect.stringMatching(
          /^MCP server 'flaky' is unavailable \(it failed to start: .+\); this turn runs without its tools$/,
        ),
      });
    }
    expect(model.calls[0]?.systemInstructions).toBe(
      "Help.\n\nNote: the tools of MCP server 'flaky' are unavailable right now (it failed to start); do not promise what they would do.",
    );
    expect(errors.mock.calls.filter((args) => String(args[0]).includes("'flaky'"))).toHaveLength(1);
  });

  it("open({ mcpStart: 'first-use' }) starts no server; the first turn that uses one does", async () => {
    const marker = join(mkdtempSync(join(tmpdir(), 'agentdeck-mcp-')), 'started');
    const file = mcpJson({
      flaky: {
        command: process.execPath,
        args: ['-e', "require('fs').writeFileSync(process.argv[1], 'started')", marker],
      },
    });
    vi.spyOn(console, 'error').mockImplementation(() => undefined);
    const agent = new Agent({
      name: 'Helper',
      instructions: 'Help.',
      model: new ScriptedModel([{ text: 'done' }]),
      mcpServers: ['flaky'],
    });
    const made = testDeck({ mcp: file, agents: [agent] });
    await made.deck.open({ mcpStart: 'first-use' });
    expect(existsSync(marker)).toBe(false);

    const result = await made.deck.run('Helper', 'hi');
    expect(readFileSync(marker, 'utf8')).toBe('started');
    const events = await made.eventStore.read(result.runId);
    expect(events[1]).toMatchObject({ kind: 'status.reported', payload: { level: 'warning' } });
    await made.deck.close();
  });

  it('fails build() on an agent naming a server the configuration does not define', () => {
    const file = mcpJson({ docs: { url: 'http://127.0.0.1:1/mcp' } });
    const { deck } = testDeck({
      mcp: file,
      agents: [new Agent({ name: 'A', mcpServers: ['web'] })],
    });
    expect(() => deck.build()).toThrow(
      "invalid catalog: agent 'A' uses MCP server 'web', which the deck's mcp configuration does not define. Available: ['docs']",
    );
  });

  it('refuses a malformed .mcp.json, naming the file and the server', () => {
    const file = mcpJson({
      old: { type: 'sse', url: 'http://127.0.0.1:1/sse' },
      neither: { name: 'x' },
      typo: { command: 'node', argz: [] },
    });
    let error: unknown;
    try {
      MCP.fromFile(file);
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as Error).message.split('\n')).toEqual([
      `invalid MCP servers in ${file}:`,
      "- server 'old': the SSE transport is not supported; use Streamable HTTP (`url`) or stdio (`command`)",
      "- server 'neither': needs `command` (a stdio server) or `url` (a Streamable HTTP server)",
      expect.stringMatching(/^- server 'typo': .*argz/),
    ]);
    const notJson = join(mkdtempSync(join(tmpdir(), 'agentdeck-mcp-')), '.mcp.json');
    writeFileSync(notJson, '{ "mcpServers": ');
    expect(() => MCP.fromFile(notJson)).toThrow(`cannot read MCP configuration ${notJson}:`);
    writeFileSync(notJson, '{ "servers": {} }');
    expect(() => MCP.fromFile(notJson)).toThrow(
      `MCP configuration ${notJson} must be {"mcpServers": {"<name>": {...}}}`,
    );
  });
});

describe('a real MCP server (server-everything)', () => {
  it('answers a tool call over stdio, and close() stops its process', async () => {
    const pidFile = join(mkdtempSync(join(tmpdir(), 'agentdeck-mcp-')), 'pid');
    const file = mcpJson({
      everything: {
        command: 'sh',
        args: ['-c', `echo $$ > "${pidFile}"; exec "${process.execPath}" "${EVERYTHING}" stdio`],
        env: { LOG_MARKER: 'x' },
      },
    });
    const { agent, model } = echoAgent(['everything']);
    const deck = await openTestDeck({ mcp: file, agents: [agent] });
    const { result, completed } = await echoedOutput(deck);
    expect(result.output).toBe('It echoed.');
    expect(completed?.payload).toMatchObject({ name: 'echo', error: null });
    expect(completed?.payload).toMatchObject({
      output: { type: 'text', text: 'Echo: hello MCP' },
    });
    const offered = (model.calls[0]?.tools ?? []).map((t) => (t as { name: string }).name);
    expect(offered).toContain('echo');

    const pid = Number(readFileSync(pidFile, 'utf8'));
    expect(isAlive(pid)).toBe(true);
    await deck.deck.close();
    await vi.waitFor(() => expect(isAlive(pid)).toBe(false), { timeout: 5_000 });
  });

  it('holds an MCP tool named in needsApproval until a person approves it', async () => {
    const file = mcpJson({
      everything: { command: process.execPath, args: [EVERYTHING, 'stdio'] },
    });
    const model = new ScriptedModel([
      { toolCalls: [{ name: 'echo', arguments: { message: 'approve me' } }] },
      { text: 'It echoed.' },
    ]);
    const agent = new Agent({
      name: 'Echoer',
      model,
      mcpServers: ['everything'],
      needsApproval: ['echo'],
    });
    const { deck, eventStore } = await openTestDeck({ mcp: file, agents: [agent] });
    const held = await deck.run('Echoer', 'echo something', { sessionId: 'mcp-approve' });
    expect(held.interrupt?.payload).toMatchObject({
      tool: 'echo',
      arguments: { message: 'approve me' },
    });
    expect((await eventStore.read(held.runId)).map((e) => e.kind)).not.toContain(
      'tool.call.completed',
    );
    const answered = await deck.answer(held.runId, { approved: true });
    expect(answered).toMatchObject({ output: 'It echoed.' });
    const completed = (await eventStore.read(held.runId)).find(
      (e) => e.kind === 'tool.call.completed',
    );
    expect(completed?.payload).toMatchObject({
      name: 'echo',
      output: { type: 'text', text: 'Echo: approve me' },
    });
  });

  it("shows each tool by the name the model is offered; a call by it, or by the server's name, runs the tool", async () => {
    const file = mcpJson({
      everything: {
        command: process.execPath,
        args: [EVERYTHING, 'stdio'],
        env: { AGENTDECK_PROBE: 'seen' },
      },
    });
    const model = new ScriptedModel([]);
    const agent = new Agent({ name: 'Lister', model, mcpServers: ['everything'] });
    const { deck, eventStore } = await openTestDeck({ mcp: file, agents: [agent] });
    const catalog = (await (await deck.app().request('/catalog')).json()) as {
      mcp_servers: { tools: { name: string }[] }[];
    };
    const names = catalog.mcp_servers[0]?.tools.map((t) => t.name) ?? [];
    expect(names).not.toContain('get-env'); // the server's name for it
    const shown = names.find((name) => name.startsWith('get') && name.endsWith('env'));
    expect(shown).toBe('get_env');
    // Whole replies (deck.run) and a live stream (deck.stream) take different paths.
    for (const [name, live] of [
      [shown ?? '', false],
      ['get-env', false],
      ['get-env', true],
    ] as const) {
      model.push({ toolCalls: [{ name, arguments: {} }] }, { text: 'printed' });
      const runId = live
        ? ((await collect(deck.stream('Lister', 'print the environment'))).at(-1)?.runId ?? '')
        : (await deck.run('Lister', 'print the environment')).runId;
      const events = await eventStore.read(runId);
      expect(events.at(-1)?.kind).toBe('run.completed');
      const completed = events.find((e) => e.kind === 'tool.call.completed');
      expect(completed?.payload).toMatchObject({ name: 'get_env', error: null });
      expect(JSON.stringify(completed?.payload)).toContain('AGENTDECK_PROBE');
    }
    const offered = (model.calls[0]?.tools ?? []).map((t) => (t as { name: string }).name);
    expect(offered).toContain(shown);
  });

  it('answers a tool call over Streamable HTTP, with environment variables expanded in headers', async () => {
    const port = await freePort();
    const server = spawn(process.execPath, [EVERYTHING, 'streamableHttp'], {
      env: { ...process.env, PORT: String(port) },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    children.push(server);
    await new Promise<void>((ready, fail) => {
      let output = '';
      server.stderr?.on('data', (chunk: Buffer) => {
        output += chunk.toString();
        if (output.includes('listening')) ready();
      });
      server.on('exit', (code) => fail(new Error(`server-everything exited with ${code}`)));
    });
    vi.stubEnv('DOCS_TOKEN', 'secret-token');
    const file = mcpJson({
      everything: {
        url: `http://127.0.0.1:${port}/mcp`,
        // biome-ignore lint/suspicious/noTemplateCurlyInString: .mcp.json's own ${VAR} syntax
        headers: { Authorization: 'Bearer ${DOCS_TOKEN}' },
      },
    });
    const { agent } = echoAgent(['everything']);
    const deck = await openTestDeck({ mcp: file, agents: [agent] });
    const { result, completed } = await echoedOutput(deck);
    expect(result.output).toBe('It echoed.');
    expect(JSON.stringify(completed?.payload)).toContain('Echo: hello MCP');
  });
});

describe('the MCP lifecycle with the deck', () => {
  it('close() during open() waits for it, then stops the servers; concurrent open() share one', async () => {
    const pidFile = join(mkdtempSync(join(tmpdir(), 'agentdeck-mcp-')), 'pid');
    const file = mcpJson({
      slow: {
        command: 'sh',
        args: [
          '-c',
          `echo $$ > "${pidFile}"; sleep 1; exec "${process.execPath}" "${EVERYTHING}" stdio`,
        ],
      },
    });
    const { agent } = echoAgent(['slow']);
    const { deck } = testDeck({ mcp: file, agents: [agent] });
    const opening = deck.open();
    const again = deck.open();
    await new Promise((resolve) => setTimeout(resolve, 200));
    const closing = deck.close();
    expect(await opening).toBe(deck);
    expect(await again).toBe(deck);
    await closing;
    expect(deck.state).toBe('closed');
    const pid = Number(readFileSync(pidFile, 'utf8'));
    await vi.waitFor(() => expect(isAlive(pid)).toBe(false), { timeout: 5_000 });
    await expect(deck.open()).rejects.toThrow('is closed and cannot be reopened');
  });
});

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

function freePort(): Promise<number> {
  return new Promise((done, fail) => {
    const probe = createServer();
    probe.once('error', fail);
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address();
      probe.close(() => done(typeof address === 'object' && address ? address.port : 0));
    });
  });
}
