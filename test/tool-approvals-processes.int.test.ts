/**
 * Tool approvals across processes (#19), as an operator meets them: `service-serve`
 * processes on one SQLite store and the scripted model server. A call held on server A is
 * approved over HTTP on server B; a call held before a restart is approved after it; the
 * `service runs approve|reject` command answers from a third process. The paying tool writes
 * a line per payment, so the tests see that an approved call ran exactly once and a rejected
 * one never ran.
 */
import { type ChildProcess, execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import { type ScriptedModelServer, scriptedModelServer } from '../src/testing/index.js';
import { binArgs } from './support/cli.js';
import { startServer } from './support/server-process.js';

const REPO_ROOT = resolve(import.meta.dirname, '..');
const PROJECT = join(REPO_ROOT, 'test/fixtures/approval-project/.agentdeck');
const exec = promisify(execFile);
const children: ChildProcess[] = [];
const cleanups: Array<() => Promise<void> | void> = [];

afterEach(async () => {
  for (const child of children.splice(0)) child.kill('SIGKILL');
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

/**
 * Where conversations are kept: `redis`, the shared Redis (under a key prefix of this test),
 * as several machines answering one conversation need; `file`, the default, the state file
 * the processes share (`dir`); `memory`, each process its own.
 */
async function setUp(sessions: 'redis' | 'file' | 'memory' = 'redis') {
  const dir = mkdtempSync(join(tmpdir(), 'agentdeck-approvals-'));
  const model: ScriptedModelServer = await scriptedModelServer([]);
  cleanups.push(
    () => model.close(),
    () => rmSync(dir, { recursive: true, force: true }),
  );
  const log = join(dir, 'payments.log');
  const modelEnv = {
    OPENAI_BASE_URL: model.url,
    OPENAI_API_KEY: 'sk-test',
    OPENAI_USE_RESPONSES: 'false',
    PAYER_LOG: log,
    ...(sessions === 'redis'
      ? {
          SERVICE_SESSION: 'redis://127.0.0.1:6379',
          SERVICE_SESSION_KEY_PREFIX: `agentdeck-approvals-${randomUUID()}:`,
          SERVICE_SESSION_TTL_SECONDS: '600',
        }
      : {}),
    ...(sessions === 'memory' ? { SERVICE_SESSION: 'memory://' } : {}),
  };
  /** A `service-serve` process on the shared store (the default file in `dir`). */
  const server = async () => {
    const started = startServer(PROJECT, modelEnv, dir);
    children.push(started.child);
    return { url: await started.url, child: started.child, exited: started.exited };
  };
  const service = (...args: string[]) => {
    const clean = Object.fromEntries(
      Object.entries(process.env).filter(
        ([k]) => !k.startsWith('SERVICE_') && !k.startsWith('OPENAI_'),
      ),
    );
    return exec(process.execPath, binArgs('service', ...args), {
      cwd: dir,
      env: { ...clean, ...modelEnv },
      timeout: 60_000,
    });
  };
  const payments = () => (existsSync(log) ? readFileSync(log, 'utf8').trim().split('\n') : []);
  /** A JSON chat asking to pay; the model calls the tool, which waits for approval. */
  const askToPay = async (url: string, session: string, invoice: string) => {
    model.push(
      { toolCalls: [{ name: 'pay', arguments: { invoice, amount: 120 } }] },
      { text: `Done with ${invoice}.` },
    );
    const response = await post(url, '/agents/payer/chat', {
      session_id: session,
      message: `Pay ${invoice}`,
    });
    expect(response.status).toBe(200);
    return (await response.json()) as {
      output: unknown;
      run_id: string;
      payload: { tool: string };
    };
  };
  return { dir, model, server, service, payments, askToPay };
}

function post(url: string, path: string, body: unknown): Promise<Response> {
  return fetch(`${url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
}

// Each test starts one or two servers and up to four command processes: 60 s each, for a
// loaded machine (most take 2 to 4 s).
describe('tool approvals across processes', { timeout: 60_000 }, () => {
  it('approves on server B a call held on server A; it runs once, and the run completes', async () => {
    const { server, payments, askToPay, model } = await setUp();
    const [a, b] = await Promise.all([server(), server()]);
    const held = await askToPay(a.url, 's-ab', 'INV-1');
    expect(held).toMatchObject({ output: null, reason: 'approval', payload: { tool: 'pay' } });
    expect(payments()).toEqual([]);

    const inbox = (await (await fetch(`${b.url}/pending`)).json()) as {
      items: { run_id: string }[];
    };
    expect(inbox.items.map((item) => item.run_id)).toEqual([held.run_id]);
    const answered = await post(b.url, `/runs/${held.run_id}/answer`, {
      value: { approved: true },
    });
    expect(answered.status).toBe(200);
    expect(await answered.json()).toMatchObject({
      status: 'completed',
      result: { output: 'Done with INV-1.' },
    });
    expect(payments()).toEqual(['paid INV-1 120']);
    expect((await (await fetch(`${a.url}/runs/${held.run_id}`)).json()).status).toBe('completed');
    // The conversation holds the whole answered turn, for the next turn on server A too.
    model.push({ text: 'You paid INV-1.' });
    await post(a.url, '/agents/payer/chat', { session_id: 's-ab', message: 'What did I pay?' });
    const history = JSON.stringify(model.requests.at(-1)?.body);
    expect(history).toContain('paid 120 on INV-1');
    expect(history).toContain('Done with INV-1.');
    model.assertConsumed();
  });

  it('a call held before a restart is approved after it, and runs once', async () => {
    const { server, payments, askToPay } = await setUp();
    const first = await server();
    const held = await askToPay(first.url, 's-restart', 'INV-2');
    first.child.kill('SIGKILL');
    await first.exited;
    const second = await server();
    const answered = await post(second.url, `/runs/${held.run_id}/answer`, {
      value: { approved: true },
    });
    const outcome = await answered.json();
    expect(outcome).toMatchObject({ status: 'completed', pending: null });
    expect(payments()).toEqual(['paid INV-2 120']);
    // The same answer again (a client's retry) gets the first outcome and pays nothing more;
    // another answer finds nothing waiting.
    const again = await post(second.url, `/runs/${held.run_id}/answer`, {
      value: { approved: true },
    });
    expect(again.status).toBe(200);
    expect(await again.json()).toEqual(outcome);
    const other = await post(second.url, `/runs/${held.run_id}/answer`, {
      value: { approved: false },
    });
    expect(other.status).toBe(409);
    expect(payments()).toEqual(['paid INV-2 120']);
  });

  it('service runs reject never pays and tells the model; service runs approve pays once', async () => {
    const { server, service, payments, askToPay, model } = await setUp();
    const { url } = await server();
    const rejected = await askToPay(url, 's-cli-1', 'INV-3');
    const refusal = await service(
      'runs',
      'reject',
      rejected.run_id,
      '--reason',
      'not ours',
      '--project',
      PROJECT,
    );
    expect(refusal.stdout).toContain(`rejected tool 'pay'`);
    expect(refusal.stdout).toContain('the run is completed: Done with INV-3.');
    expect(payments()).toEqual([]);
    expect(JSON.stringify(model.requests.at(-1)?.body)).toContain('not ours');

    const approved = await askToPay(url, 's-cli-2', 'INV-4');
    const approval = await service(
      'runs',
      'approve',
      approved.run_id,
      '--project',
      PROJECT,
      '--json',
    );
    expect(JSON.parse(approval.stdout)).toMatchObject({
      status: 'completed',
      output: 'Done with INV-4.',
    });
    expect(payments()).toEqual(['paid INV-4 120']);
    // Nothing waits any more: the command says so and changes nothing.
    await expect(
      service('runs', 'approve', approved.run_id, '--project', PROJECT),
    ).rejects.toMatchObject({
      code: 1,
      stderr: expect.stringContaining('does not wait for an approval'),
    });
  });

  it('with conversations in the state file (the default), the command answers with no --url', async () => {
    const { server, service, payments, askToPay } = await setUp('file');
    const { url } = await server();
    const held = await askToPay(url, 's-file', 'INV-6');
    const approval = await service('runs', 'approve', held.run_id, '--project', PROJECT);
    expect(approval.stdout).toContain(`approved tool 'pay'`);
    expect(approval.stdout).toContain('the run is completed: Done with INV-6.');
    expect(payments()).toEqual(['paid INV-6 120']);
  });

  it('with conversations in process memory the command refuses, and --url answers on the server', async () => {
    const { server, service, payments, askToPay } = await setUp('memory');
    const { url } = await server();
    const held = await askToPay(url, 's-url', 'INV-5');
    await expect(
      service('runs', 'approve', held.run_id, '--project', PROJECT),
    ).rejects.toMatchObject({
      code: 1,
      stderr: expect.stringContaining('--url'),
    });
    expect(payments()).toEqual([]);
    const approval = await service('runs', 'approve', held.run_id, '--url', url);
    expect(approval.stdout).toContain(`approved tool 'pay'`);
    expect(approval.stdout).toContain('the run is completed: Done with INV-5.');
    expect(payments()).toEqual(['paid INV-5 120']);
  });
});
