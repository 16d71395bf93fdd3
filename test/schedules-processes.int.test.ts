/**
 * Schedules through real processes: two `agentdeck serve` processes on one Postgres database
 * fire a schedule every second and start exactly one run per fire time between them; the
 * schedule is listed, paused (and stays paused in both) and resumed over HTTP and from
 * `agentdeck schedules`.
 */
import { execFile } from 'node:child_process';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { binArgs } from './support/cli.js';
import { adminQuery, scratchDatabase } from './support/postgres.js';
import { killServers, type ServerProcess, startServer } from './support/server-process.js';

const ROOT = resolve(import.meta.dirname, '..');
const PROJECT = join(ROOT, 'test/fixtures/schedules/.agentdeck');
const { name: database, url: databaseUrl } = scratchDatabase();
const servers: ServerProcess[] = [];
let urls: string[] = [];
const sleep = (ms: number) => new Promise((done) => setTimeout(done, ms));

beforeAll(async () => {
  await adminQuery(`CREATE DATABASE ${database}`);
  const env = { SERVICE_EVENTS: databaseUrl.href };
  servers.push(startServer(PROJECT, env), startServer(PROJECT, env));
  urls = await Promise.all(servers.map((server) => server.url));
}, 60_000);

afterAll(async () => {
  await killServers(servers);
  await adminQuery(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`);
}, 30_000);

/** Each run of the schedule: its fire time, from its run.started. */
async function firedRuns(): Promise<{ run_id: string; fired_at: string }[]> {
  const client = new pg.Client({ connectionString: databaseUrl.href });
  await client.connect();
  try {
    const { rows } = await client.query<{ run_id: string; fired_at: string }>(
      `SELECT run_id, payload::json->>'fired_at' AS fired_at FROM events
       WHERE kind = 'run.started' AND payload::json->>'schedule' = 'each-second'
       ORDER BY 2`,
    );
    return rows;
  } finally {
    await client.end();
  }
}

describe('a schedule on two processes', () => {
  it('starts exactly one run per fire time between them', async () => {
    await sleep(4_500);
    const runs = await firedRuns();
    const times = runs.map((run) => Date.parse(run.fired_at));
    expect(runs.length).toBeGreaterThanOrEqual(3);
    expect(new Set(times).size).toBe(times.length); // none twice
    expect(times).toEqual(times.map((_, i) => (times[0] ?? 0) + i * 1000)); // none missed
    for (const server of servers) expect(server.child.exitCode, server.err()).toBeNull();
  }, 30_000);

  it('is listed, paused in both processes, and resumed, over HTTP and from the command line', async () => {
    const [A, B] = urls as [string, string];
    const listed = (await (await fetch(`${B}/schedules`)).json()) as {
      schedules: { name: string; paused: boolean; last_run_status: string | null }[];
    };
    expect(listed.schedules).toEqual([
      expect.objectContaining({
        name: 'each-second',
        paused: false,
        target: 'jot',
        recurrence: 'every 1s',
      }),
    ]);
    const paused = await fetch(`${A}/schedules/each-second/pause`, { method: 'POST' });
    expect(((await paused.json()) as { paused: boolean }).paused).toBe(true);
    await sleep(300); // a fire being started as the pause landed
    const before = (await firedRuns()).length;
    await sleep(2_500);
    expect((await firedRuns()).length).toBe(before); // neither process fires
    const cli = promisify(execFile);
    const env = { ...process.env, SERVICE_EVENTS: databaseUrl.href };
    const args = binArgs('agentdeck', 'schedules');
    const shown = await cli(process.execPath, [...args, 'ls', '--project', PROJECT], { env });
    expect(shown.stdout).toMatch(/^each-second {2}jot {2}every 1s UTC {2}PAUSED {2}next /);
    const triggered = await fetch(`${B}/schedules/each-second/trigger`, { method: 'POST' });
    const fired = (await triggered.json()) as { run_id: string; skipped: null };
    expect(triggered.headers.get('x-run-id')).toBe(fired.run_id);
    const resumed = await cli(
      process.execPath,
      [...args, 'resume', 'each-second', '--project', PROJECT],
      { env },
    );
    expect(resumed.stdout).toBe('schedule each-second resumed\n');
    const after = (await firedRuns()).length;
    await sleep(2_200);
    expect((await firedRuns()).length).toBeGreaterThan(after);
  }, 40_000);
});
