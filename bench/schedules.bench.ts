/**
 * A schedule firing every second on two processes (`npm run bench:schedules`): two
 * `agentdeck serve` processes on one Postgres database serve test/fixtures/schedules, whose
 * schedule `each-second` starts a `jot` run every second; after BENCH_SECONDS (default 60)
 * the runs are counted per fire time. The target: exactly one run for every fire time, none
 * missed, none twice; also how late each run started after its fire time.
 */
import { join, resolve } from 'node:path';
import pg from 'pg';
import { adminQuery, scratchDatabase } from '../test/support/postgres.js';
import { startServer } from '../test/support/server-process.js';
import { loadAtStart, machineLine, table, writeSection } from './support/report.js';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 60);
const PROJECT = join(resolve(import.meta.dirname, '..'), 'test/fixtures/schedules/.agentdeck');
const load = loadAtStart();
const { name: database, url } = scratchDatabase();
await adminQuery(`CREATE DATABASE ${database}`);
const servers = [0, 1].map(() => startServer(PROJECT, { SERVICE_EVENTS: url.href }));
try {
  await Promise.all(servers.map((server) => server.url));
  await new Promise((done) => setTimeout(done, SECONDS * 1000));
  const client = new pg.Client({ connectionString: url.href });
  await client.connect();
  const { rows } = await client.query<{ fired_at: string; ts: string }>(
    `SELECT payload::json->>'fired_at' AS fired_at, ts FROM events
     WHERE kind = 'run.started' AND payload::json->>'schedule' = 'each-second' ORDER BY 1`,
  );
  await client.end();
  const fires = rows.map((row) => Date.parse(row.fired_at));
  const distinct = new Set(fires);
  const first = fires[0] ?? 0;
  const last = fires.at(-1) ?? 0;
  const expected = Math.round((last - first) / 1000) + 1;
  const late = rows
    .map((row) => Date.parse(row.ts) - Date.parse(row.fired_at))
    .sort((a, b) => a - b);
  const at = (q: number) => late[Math.min(late.length - 1, Math.floor(q * late.length))] ?? 0;
  const row = [
    `two processes, every 1 s, ${SECONDS} s`,
    String(expected),
    String(rows.length),
    String(rows.length - distinct.size),
    String(expected - distinct.size),
    `${at(0.5)} / ${at(0.99)} / ${late.at(-1) ?? 0}`,
  ];
  console.log(row.join(' | '));
  writeSection('schedules.bench', [
    '## A schedule every second on two processes (`npm run bench:schedules`)',
    '',
    'Two `agentdeck serve` processes on one Postgres database, the schedule `each-second` of',
    `test/fixtures/schedules; runs counted per fire time after ${SECONDS} s.`,
    '',
    machineLine(load),
    '',
    ...table(
      [
        'case',
        'fire times',
        'runs',
        'fire times started twice',
        'fire times missed',
        'start after fire, ms p50 / p99 / max',
      ],
      [row],
    ),
  ]);
} finally {
  for (const server of servers) server.child.kill('SIGKILL');
  await Promise.all(servers.map((server) => server.exited));
  await adminQuery(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`);
}
process.exit(0);
