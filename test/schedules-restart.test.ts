/**
 * A schedule's policies through a real `agentdeck serve` process on the embedded SQLite file:
 * while its last run waits for an answer, each fire is skipped (`overlap: 'skip'`); after the
 * process is killed and started again, the fires missed meanwhile are started (`catchUp:
 * 'all'`), one run each, none twice.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { afterEach, describe, expect, it } from 'vitest';
import { type ServerProcess, startServer } from './support/server-process.js';

const PROJECT = join(
  resolve(import.meta.dirname, '..'),
  'test/fixtures/schedules-overlap/.agentdeck',
);
const servers: ServerProcess[] = [];
const sleep = (ms: number) => new Promise((done) => setTimeout(done, ms));

afterEach(async () => {
  for (const server of servers.splice(0)) {
    server.child.kill('SIGKILL');
    await server.exited;
  }
});

/** The schedule's runs, by fire time, from the file (read-only, beside the server). */
function scheduledRuns(file: string): { runId: string; firedAt: string }[] {
  const db = new DatabaseSync(file, { readOnly: true });
  try {
    return db
      .prepare(
        `SELECT run_id, json_extract(payload, '$.fired_at') AS fired_at FROM events
         WHERE kind = 'run.started' AND json_extract(payload, '$.schedule') = 'each-second'
         ORDER BY 2`,
      )
      .all()
      .map((row) => ({ runId: String(row.run_id), firedAt: String(row.fired_at) }));
  } finally {
    db.close();
  }
}

describe('a schedule through a real process', () => {
  it('skips fires while its run waits, and catches up the fires missed while it was down', async () => {
    const cwd = mkdtempSync(join(tmpdir(), 'agentdeck-schedule-'));
    const file = join(cwd, '.agentdeck/state.db');
    const first = startServer(PROJECT, {}, cwd);
    servers.push(first);
    const url = await first.url;
    await sleep(3_000);
    const waiting = scheduledRuns(file);
    expect(waiting).toHaveLength(1); // the later fires were skipped: it still waits
    const listed = (await (await fetch(`${url}/schedules`)).json()) as {
      schedules: { last_fire: string; last_run_status: string }[];
    };
    expect(listed.schedules[0]?.last_run_status).toBe('waiting_human');
    expect(Date.parse(listed.schedules[0]?.last_fire ?? '')).toBeGreaterThan(
      Date.parse(waiting[0]?.firedAt ?? ''),
    );
    // Answered, it ends; then the process dies and stays down for a few fires.
    const answered = await fetch(`${url}/workflows/ask/${waiting[0]?.runId}/resume`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ value: 'yes' }),
    });
    expect(answered.status).toBe(200);
    const lastBefore = (
      (await (await fetch(`${url}/schedules`)).json()) as { schedules: { last_fire: string }[] }
    ).schedules[0]?.last_fire;
    first.child.kill('SIGKILL');
    await first.exited;
    await sleep(2_500);
    const second = startServer(PROJECT, {}, cwd);
    servers.push(second);
    await second.url;
    await sleep(500);
    const caught = scheduledRuns(file).filter(
      (run) => Date.parse(run.firedAt) > Date.parse(lastBefore ?? ''),
    );
    const times = caught.map((run) => Date.parse(run.firedAt));
    expect(times.length).toBeGreaterThanOrEqual(2); // the missed fires, one run each
    expect(times).toEqual(times.map((_, i) => (times[0] ?? 0) + i * 1000));
  }, 60_000);
});
