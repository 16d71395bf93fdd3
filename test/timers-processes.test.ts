/**
 * Timers through real processes, as a user meets them: the example project served on its
 * embedded defaults pays an approved expense by itself after its `payInSeconds`, with no one
 * calling `tick()`; a server started with `--manual-timers` leaves sleeping threads alone
 * until `POST /timers/tick` or `agentdeck tick` (another process on the same SQLite file)
 * wakes them.
 */
import { type ChildProcess, execFile } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { binArgs } from './support/cli.js';
import { startServer } from './support/server-process.js';

const ROOT = resolve(import.meta.dirname, '..');
const PROJECT = join(ROOT, 'examples/project/.agentdeck');
const children: ChildProcess[] = [];

afterEach(() => {
  for (const child of children.splice(0)) child.kill('SIGKILL');
});

function serve(args: string[] = []) {
  const cwd = mkdtempSync(join(tmpdir(), 'agentdeck-timers-'));
  const server = startServer(PROJECT, {}, cwd, args);
  children.push(server.child);
  return { cwd, server };
}

const post = (url: string, body: unknown) =>
  fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });

/** Ask for an expense on `thread`, approve it, and return the answer to the approval. */
async function approveExpense(url: string, thread: string, payInSeconds: number) {
  const asked = await post(`${url}/workflows/expense-approval?thread_id=${thread}`, {
    employee: 'Ada',
    amount: 420,
    payInSeconds,
  });
  expect(asked.status).toBe(200);
  const runId = asked.headers.get('x-run-id') as string;
  const approved = await post(`${url}/workflows/expense-approval/${thread}/resume`, {
    value: { approved: true },
  });
  return { runId, answer: (await approved.json()) as { type: string; payload: unknown } };
}

function withoutServiceSettings(): NodeJS.ProcessEnv {
  return Object.fromEntries(
    Object.entries(process.env).filter(([key]) => !key.startsWith('SERVICE_')),
  );
}

const statusOf = async (url: string, runId: string) =>
  ((await (await fetch(`${url}/runs/${runId}`)).json()) as { status: string }).status;

describe('timers in a served deck', () => {
  it('pays the example expense by itself after payInSeconds, with no tick', async () => {
    const { server } = serve();
    const url = await server.url;
    const { runId, answer } = await approveExpense(url, 'exp-1', 1);
    expect(answer).toMatchObject({
      type: 'interrupt',
      payload: { type: 'agentdeck.timer', wake_at: expect.any(String) },
      thread_id: 'exp-1',
    });
    expect(JSON.stringify(answer)).not.toContain('agentdeck:sleepUntil');
    expect(await statusOf(url, runId)).toBe('paused');
    await vi.waitFor(async () => expect(await statusOf(url, runId)).toBe('completed'), {
      timeout: 5_000,
      interval: 100,
    });
    const events = await (await fetch(`${url}/runs/${runId}/events?follow=false`)).text();
    expect(events).toContain('"paid":true');
  }, 60_000);

  it('with --manual-timers, waits for POST /timers/tick or agentdeck tick', async () => {
    const { cwd, server } = serve(['--manual-timers']);
    const url = await server.url;
    const first = await approveExpense(url, 'exp-2', 0.2);
    const second = await approveExpense(url, 'exp-3', 0.2);
    await new Promise((done) => setTimeout(done, 1_500));
    expect(await statusOf(url, first.runId)).toBe('paused'); // nobody wakes it

    const ticked = await post(`${url}/timers/tick`, {});
    expect(ticked.status).toBe(200);
    const { woken } = (await ticked.json()) as { woken: { thread_id: string; status: string }[] };
    expect(woken.map((w) => [w.thread_id, w.status]).sort()).toEqual([
      ['exp-2', 'completed'],
      ['exp-3', 'completed'],
    ]);
    expect(await statusOf(url, first.runId)).toBe('completed');
    expect(await statusOf(url, second.runId)).toBe('completed');

    const third = await approveExpense(url, 'exp-4', 0.2);
    await new Promise((done) => setTimeout(done, 500));
    const cli = await promisify(execFile)(
      process.execPath,
      binArgs('agentdeck', 'tick', PROJECT),
      // The server's environment: no SERVICE_* (the tests' own point at memory://).
      { cwd, timeout: 30_000, env: withoutServiceSettings() },
    );
    expect(cli.stdout).toBe(`expense-approval thread exp-4 (run ${third.runId}): completed\n`);
    expect(await statusOf(url, third.runId)).toBe('completed');
  }, 60_000);
});
