/**
 * The inbox through a real server process (#29): threads waiting for an answer, started at
 * once (so several share a start time), listed with `GET /runs?status=waiting_human&limit=`
 * and the `next` cursor to the end, each run exactly once; and one thread answered by its id.
 */
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startServer } from './support/server-process.js';

const PROJECT = join(resolve(import.meta.dirname, '..'), 'examples/project/.agentdeck');
const THREADS = 30;
const children: ChildProcess[] = [];
afterEach(() => {
  for (const child of children.splice(0)) child.kill('SIGKILL');
});

const post = (url: string, body: unknown) =>
  fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });

interface RunPage {
  runs: { run_id: string; session_id: string | null; status: string }[];
  next_before: string | null;
  next: string | null;
}

describe('GET /runs?status=waiting_human (the inbox)', () => {
  it('pages with limit and the next cursor to the end, each run once', async () => {
    const cwd = mkdtempSync(join(tmpdir(), 'agentdeck-inbox-'));
    const server = startServer(PROJECT, {}, cwd);
    children.push(server.child);
    const url = await server.url;
    const started = await Promise.all(
      Array.from({ length: THREADS }, (_, i) =>
        post(`${url}/workflows/expense-approval?thread_id=t-${i}`, {
          employee: `E${i}`,
          amount: 900,
        }),
      ),
    );
    const runIds = started.map((response) => response.headers.get('x-run-id') as string);
    expect(started.map((response) => response.status)).toEqual(runIds.map(() => 200));

    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const query: string = cursor === null ? '' : `&after=${encodeURIComponent(cursor)}`;
      const response = await fetch(`${url}/runs?status=waiting_human&limit=7${query}`);
      expect(response.status).toBe(200);
      const page = (await response.json()) as RunPage;
      // A first page reads a millisecond's group at its end whole (as `next_before` needs).
      if (cursor !== null) expect(page.runs.length).toBeLessThanOrEqual(7);
      for (const run of page.runs) expect(run.status).toBe('waiting_human');
      seen.push(...page.runs.map((run) => run.run_id));
      cursor = page.next;
      pages += 1;
    } while (cursor !== null && pages < 20);
    expect(pages).toBeLessThanOrEqual(Math.ceil(THREADS / 7));
    expect(seen).toHaveLength(THREADS);
    expect(new Set(seen)).toEqual(new Set(runIds));

    const bad = await fetch(`${url}/runs?status=waiting_human&after=not-a-cursor`);
    expect(bad.status).toBe(422);

    // Answer one thread: found by its id; it leaves the inbox.
    const answered = await post(`${url}/workflows/expense-approval/t-3/resume`, {
      value: { approved: false },
    });
    expect(answered.status).toBe(200);
    expect(answered.headers.get('x-run-id')).toBe(runIds[3]);
    const missing = await post(`${url}/workflows/expense-approval/t-3/resume`, {
      value: { approved: false },
    });
    expect(missing.status).toBe(404);
    const all = (await (
      await fetch(`${url}/runs?status=waiting_human&limit=100`)
    ).json()) as RunPage;
    expect(all.runs).toHaveLength(THREADS - 1);
    expect(all.next).toBeNull();
    const pending = (await (await fetch(`${url}/workflows/expense-approval/pending`)).json()) as {
      thread_id: string;
    }[];
    expect(pending).toHaveLength(THREADS - 1);
  }, 60_000);
});
