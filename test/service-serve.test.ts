/**
 * `service-serve` as a user runs it: a real process serving the example project on its
 * embedded defaults (SQLite in an empty directory, no model configured), reached over a real
 * socket. Workflows work; the server says once at start-up what agent turns need, and a turn
 * fails fast with that message in its log; SIGTERM closes it cleanly. It says at start-up where
 * it keeps events, checkpoints and sessions. On `memory://` events with nothing else named, it
 * writes no file.
 */
import { type ChildProcess, execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { scriptedModelServer } from '../src/testing/index.js';
import { binArgs } from './support/cli.js';
import { startServer } from './support/server-process.js';

const REPO_ROOT = resolve(import.meta.dirname, '..');
const PROJECT = join(REPO_ROOT, 'examples/project/.agentdeck');
/** An agent with a tool and a durable workflow (checkpoints), both logging to BOOKER_LOG. */
const CONTROL_PROJECT = join(REPO_ROOT, 'test/fixtures/control-project/.agentdeck');
const children: ChildProcess[] = [];
/** The rest of the no-model notice, after what the start-up line quotes. */
const NOTICE_END =
  ' for an OpenAI-compatible server (a local Ollama, vLLM or LM Studio, e.g. ' +
  'OPENAI_BASE_URL=http://localhost:11434/v1), or give the agent a Model object';
const dirs: string[] = [];

afterEach(() => {
  for (const child of children.splice(0)) child.kill('SIGKILL');
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** The environment of a fresh machine: no SERVICE_* settings, no model. */
function freshEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  const env = Object.fromEntries(
    Object.entries(process.env).filter(
      ([key]) => !key.startsWith('SERVICE_') && !key.startsWith('OPENAI_'),
    ),
  );
  return { ...env, ...extra };
}

function start(dir: string) {
  const server = startServer(PROJECT, {}, dir);
  children.push(server.child);
  return server;
}

const post = (url: string, body: unknown) =>
  fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });

describe('service-serve', () => {
  it('serves the example project on the embedded defaults', { timeout: 60_000 }, async () => {
    const dir = mkdtempSync(join(tmpdir(), 'agentdeck-serve-'));
    dirs.push(dir);
    const server = start(dir);
    const url = await server.url;

    const health = await fetch(`${url}/health`);
    expect(await health.json()).toEqual({
      status: 'ok',
      agents: ['concierge'],
      workflows: ['expense-approval'],
      skills: ['house-rules'],
    });
    // Said at start-up: the one file keeps events, checkpoints and conversations (#35).
    expect(server.out()).toContain(
      `agentdeck: events, checkpoints and sessions are kept in ${join(realpathSync(dir), '.agentdeck/state.db')}\n`,
    );
    const paused = await post(`${url}/workflows/expense-approval?thread_id=t-1`, {
      employee: 'Ada',
      amount: 420,
      payInSeconds: 3600,
    });
    expect(await paused.json()).toEqual({
      type: 'interrupt',
      payload: { question: 'Approve 420 EUR for Ada?' },
      thread_id: 't-1',
    });
    const pending = await fetch(`${url}/workflows/expense-approval/pending`);
    expect(await pending.json()).toEqual([
      { type: 'interrupt', payload: { question: 'Approve 420 EUR for Ada?' }, thread_id: 't-1' },
    ]);

    const notice = 'agent turns need a model: set OPENAI_API_KEY (OpenAI), or OPENAI_BASE_URL';
    expect(server.out().split(notice)).toHaveLength(2); // said once, at start-up
    // The JSON chat says what to set (503, before any run); the streamed chat's error frame
    // still names ConfigError, and its run records why.
    const chat = await post(`${url}/agents/concierge/chat`, { session_id: 's-1', message: 'hi' });
    expect(chat.status).toBe(503);
    expect(await chat.json()).toEqual({
      detail: `agent 'concierge' cannot run: ${notice}${NOTICE_END}`,
    });
    const streamed = await post(`${url}/agents/concierge/chat?stream=true`, {
      session_id: 's-2',
      message: 'hi',
    });
    expect(await streamed.text()).toBe('event: error\ndata: {"error": "ConfigError"}\n\n');
    // Logged before the frame was written, but its pipe may be read after the response.
    await vi.waitFor(() =>
      expect(server.err()).toContain(`agent 'concierge' cannot run: ${notice}`),
    );

    server.child.kill('SIGTERM');
    expect(await server.exited).toBe(0);
    expect(existsSync(join(dir, '.agentdeck/state.db'))).toBe(true); // the embedded default
  });

  it('prints its usage with --help, and fails clearly on a missing project', async () => {
    const run = promisify(execFile);
    const help = await run(process.execPath, binArgs('service-serve', '--help'), {
      env: freshEnv({}),
    });
    expect(help.stdout).toContain('Usage: service-serve [project] [--host HOST] [--port PORT]');
    expect(help.stdout).toContain('Several processes (behind a load balancer) serve as one');
    expect(help.stdout).toContain('docs/deployment.md');
    const dir = mkdtempSync(join(tmpdir(), 'agentdeck-serve-'));
    dirs.push(dir);
    const missing = run(process.execPath, binArgs('service-serve'), {
      cwd: dir,
      env: freshEnv({}),
    });
    await expect(missing).rejects.toMatchObject({
      code: 1,
      stderr: expect.stringContaining(
        `service-serve: project directory ${join(dir, '.agentdeck')} does not exist`,
      ),
    });
  });

  it('on memory:// events, with no checkpoint or session store named, writes no file', {
    timeout: 60_000,
  }, async () => {
    const dir = mkdtempSync(join(tmpdir(), 'agentdeck-serve-memory-'));
    const logs = mkdtempSync(join(tmpdir(), 'agentdeck-serve-logs-'));
    dirs.push(dir, logs);
    await using model = await scriptedModelServer([
      { toolCalls: [{ name: 'book', arguments: { room: '4' } }] },
      { text: 'Room 4 is booked.' },
      { text: 'You are welcome.' },
    ]);
    const server = startServer(
      CONTROL_PROJECT,
      {
        SERVICE_EVENTS: 'memory://',
        OPENAI_BASE_URL: model.url,
        OPENAI_API_KEY: 'sk-test',
        BOOKER_LOG: join(logs, 'booker.log'),
        BOOKER_MS: '10',
      },
      dir,
    );
    children.push(server.child);
    const url = await server.url;
    // An agent turn (its session, its tool) and a durable workflow (its checkpoints).
    const chat = await post(`${url}/agents/booker/chat`, { session_id: 's-1', message: 'Room 4' });
    expect(await chat.json()).toEqual({ output: 'Room 4 is booked.' });
    const again = await post(`${url}/agents/booker/chat`, { session_id: 's-1', message: 'Thanks' });
    expect(await again.json()).toEqual({ output: 'You are welcome.' });
    expect(JSON.stringify(model.requests[2]?.body)).toContain('Room 4 is booked.'); // its history
    expect(server.out()).toContain(
      "agentdeck: events, checkpoints and sessions are kept in this process's memory (lost when it stops)\n",
    );
    const flow = await post(`${url}/workflows/slow-steps?thread_id=t-1`, {});
    expect(await flow.json()).toEqual({ done: ['first', 'second', 'third'] });

    server.child.kill('SIGTERM');
    expect(await server.exited).toBe(0);
    expect(readdirSync(dir)).toEqual([]);
  });
});
