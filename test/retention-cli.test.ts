/**
 * `agentdeck runs prune` as an operator runs it: a real process on the SQLite file a served
 * example project writes, while the server still runs. A dry run lists what would go; the
 * prune removes the ended run and its thread's checkpoints, and leaves the run that waits
 * for an answer, which the server can still take to its end.
 */
import { type ChildProcess, execFile } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import { binArgs } from './support/cli.js';
import { startServer } from './support/server-process.js';

const ROOT = resolve(import.meta.dirname, '..');
const PROJECT = join(ROOT, 'examples/project/.agentdeck');
const children: ChildProcess[] = [];

afterEach(() => {
  for (const child of children.splice(0)) child.kill('SIGKILL');
});

/** The server's environment: no SERVICE_* (the tests' own point at memory://). */
function withoutServiceSettings(): NodeJS.ProcessEnv {
  return Object.fromEntries(
    Object.entries(process.env).filter(([key]) => !key.startsWith('SERVICE_')),
  );
}

function agentdeck(cwd: string, ...args: string[]) {
  return promisify(execFile)(process.execPath, binArgs('agentdeck', ...args), {
    cwd,
    timeout: 60_000,
    env: withoutServiceSettings(),
  });
}

const post = (url: string, body: unknown) =>
  fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });

async function statusOf(url: string, runId: string): Promise<string> {
  return ((await (await fetch(`${url}/runs/${runId}`)).json()) as { status: string }).status;
}

describe('agentdeck runs prune', () => {
  it('removes the ended runs of a served store and their threads, never a waiting run', async () => {
    const cwd = mkdtempSync(join(tmpdir(), 'agentdeck-prune-'));
    const server = startServer(PROJECT, {}, cwd);
    children.push(server.child);
    const url = await server.url;

    // Small enough to need no approval, paid at once: the server's timer completes it.
    const paid = await post(`${url}/workflows/expense-approval?thread_id=small`, {
      employee: 'Ada',
      amount: 20,
      payInSeconds: 0,
    });
    const paidRun = paid.headers.get('x-run-id') as string;
    const waiting = await post(`${url}/workflows/expense-approval?thread_id=big`, {
      employee: 'Grace',
      amount: 900,
    });
    const waitingRun = waiting.headers.get('x-run-id') as string;
    const deadline = Date.now() + 15_000;
    while ((await statusOf(url, paidRun)) !== 'completed' && Date.now() < deadline) {
      await new Promise((done) => setTimeout(done, 100));
    }
    expect(await statusOf(url, paidRun)).toBe('completed');

    const dry = await agentdeck(
      cwd,
      'runs',
      'prune',
      '--older-than',
      '0s',
      '--project',
      PROJECT,
      '--dry-run',
    );
    expect(dry.stdout).toContain(
      `would remove run ${paidRun} (expense-approval, completed, ended `,
    );
    expect(dry.stdout).toContain('would remove expense-approval thread small (its checkpoints)');
    expect(dry.stdout).toContain('would remove 1 run and 1 workflow thread');
    expect(await statusOf(url, paidRun)).toBe('completed');

    const pruned = await agentdeck(
      cwd,
      'runs',
      'prune',
      '--older-than',
      '0s',
      '--project',
      PROJECT,
    );
    expect(pruned.stdout).toContain(`removed run ${paidRun}`);
    expect(pruned.stdout).toContain('removed 1 run and 1 workflow thread');
    expect(pruned.stdout).not.toContain(waitingRun);
    expect((await fetch(`${url}/runs/${paidRun}`)).status).toBe(404);

    // The waiting run is whole: the server takes it to its end.
    const approved = await post(`${url}/workflows/expense-approval/big/resume`, {
      value: { approved: true },
    });
    expect(approved.status).toBe(200);
    expect(await statusOf(url, waitingRun)).not.toBe('waiting_human');

    // With the server stopped, the file is rewritten whole (for a file older than pruning).
    server.child.kill('SIGTERM');
    await new Promise((done) => server.child.once('exit', done));
    const vacuumed = await agentdeck(cwd, 'runs', 'vacuum');
    expect(vacuumed.stdout).toMatch(/^vacuumed .*state\.db: \d+ bytes before, \d+ after\n$/);

    const bad = await agentdeck(cwd, 'runs', 'prune', '--older-than', 'soon').catch(
      (error: { code: number; stderr: string }) => error,
    );
    expect(bad).toMatchObject({ code: 2 });
    expect((bad as { stderr: string }).stderr).toContain("--older-than 'soon' is not an age");
  }, 120_000);
});
