/**
 * Timers that fire by themselves, at scale (`npm run bench:timers`; issue #17): 10,000 sleeping
 * threads with wake times spread over a minute, woken by real `agentdeck serve` processes with
 * no `tick()` call. Reports the lateness (p50 / p95 / p99 / max of the `run.resumed` event's
 * ts minus the wake time asked for; target p99 under 1 s), that every thread was woken exactly
 * once (one `run.resumed` per run), and the CPU a server process spends while nothing is due.
 *
 * Cases: the SQLite default (one process, events and checkpoints in one file) and Postgres
 * with two processes sharing one scratch database (the naps started half on each; both arm
 * timers, ticks are under the `timers:tick` lease). Each process serves test/fixtures/scale,
 * whose durable `nap` workflow sleeps until `wakeAt` (`sleepUntil`), then ends.
 *
 * Per case: the servers start; their idle CPU is measured with nothing sleeping; a few hundred
 * calibration naps (wake times an hour out, never woken here) measure the start rate; the
 * THREADS naps are started over HTTP (32 at a time, `POST /workflows/nap?thread_id=…`) with
 * wake times `T0 + uniform(0, SPREAD)`, T0 placed after the estimated end of the starts plus
 * an idle window, in which the CPU is measured again with every thread asleep and none due.
 * Then the bench waits for every nap to complete, reading the store directly (the SQLite file
 * read-only; SQL on Postgres), and reads each run's `run.resumed` events. CPU is utime + stime
 * from /proc/<pid>/stat; on Postgres also the database's own backends (pg_stat_activity).
 *
 * Env: BENCH_THREADS (10,000), BENCH_SPREAD_S (60), BENCH_IDLE_S (20), BENCH_DRAIN_S (240: how
 * long after the spread's end it waits for the last naps), TEST_POSTGRES_URL
 * (default postgres://postgres@127.0.0.1:5432/test; its server gets a scratch database,
 * dropped after). It rewrites its own section of bench/RESULTS.md.
 */
import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import pg from 'pg';
import { tsText } from '../src/stores/shared/rows.js';
import { type ServerProcess, startServer } from '../test/support/server-process.js';
import { loadAtStart, machineLine, table, writeSection } from './support/report.js';

const THREADS = Number(process.env.BENCH_THREADS ?? 10_000);
const SPREAD_S = Number(process.env.BENCH_SPREAD_S ?? 60);
const IDLE_S = Number(process.env.BENCH_IDLE_S ?? 20);
/** How long after the spread's end the bench waits for the last naps, s. */
const DRAIN_S = Number(process.env.BENCH_DRAIN_S ?? 240);
const CONCURRENCY = 32;
/** Naps started first, to measure the start rate; they sleep an hour and are never woken here. */
const CALIBRATION = Math.min(320, Math.max(32, Math.round(THREADS / 30)));
/** Margin on the estimated start time, so no wake-up falls due before every nap is started. */
const START_MARGIN = 1.1;
/** Settling before each idle window (the last writes, WAL checkpoints). */
const SETTLE_MS = 2_000;
const POSTGRES_URL = process.env.TEST_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const PROJECT = resolve(import.meta.dirname, '../test/fixtures/scale/.agentdeck');
const CLK_TCK = Number(execFileSync('getconf', ['CLK_TCK']).toString().trim()) || 100;

const sleep = (ms: number) => new Promise((done) => setTimeout(done, Math.max(0, ms)));
const int = (n: number) => Math.round(n).toLocaleString('en-US');

/** CPU time (user + system) of process `pid` so far, in ms. */
function cpuMs(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // Fields 14 and 15 of stat(5) (utime, stime); field 3 (state) is at index 0 here.
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / CLK_TCK;
}

function cpuOf(pids: number[]): number {
  let total = 0;
  for (const pid of pids) {
    try {
      total += cpuMs(pid);
    } catch {
      // a Postgres backend gone since it was listed
    }
  }
  return total;
}

interface Idle {
  /** ms of CPU per second of wall time, per server process (summed over processes: `total`). */
  perProcess: number[];
  total: number;
  /** The database's own backends (Postgres only), ms per second. */
  database: number | null;
  seconds: number;
}

/**
 * CPU of the servers (and the database's backends) over `seconds` of wall time. A backend
 * is counted from when it is first seen (before the window or at its end) to the end; one gone
 * by then (a pool's idle connection closed) is left out.
 */
async function measureIdle(
  pids: number[],
  seconds: number,
  backends: () => Promise<number[]> = async () => [],
): Promise<Idle> {
  const dbBefore = new Map((await backends()).map((pid) => [pid, cpuOf([pid])]));
  const before = pids.map(cpuMs);
  const t0 = performance.now();
  await sleep(seconds * 1000);
  const wall = (performance.now() - t0) / 1000;
  const perProcess = pids.map((pid, i) => (cpuMs(pid) - (before[i] ?? 0)) / wall);
  const dbAfter = await backends();
  let database = 0;
  for (const pid of dbAfter) database += cpuOf([pid]) - (dbBefore.get(pid) ?? 0);
  return {
    perProcess,
    total: perProcess.reduce((a, b) => a + b, 0),
    database: dbBefore.size || dbAfter.length ? database / wall : null,
    seconds: wall,
  };
}

/** Start one nap; throws unless it went to sleep. */
async function startNap(server: string, thread: string, wakeAt: string): Promise<void> {
  const response = await fetch(`${server}/workflows/nap?thread_id=${thread}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ wakeAt }),
  });
  const text = await response.text();
  if (!response.ok || !text.includes('agentdeck.timer')) {
    throw new Error(`nap ${thread} did not go to sleep: ${response.status} ${text}`);
  }
}

/** Start `threads` (thread id, wake time, server) `CONCURRENCY` at a time; seconds taken. */
async function startNaps(naps: { thread: string; wakeAt: string; server: string }[]) {
  const t0 = performance.now();
  let next = 0;
  const worker = async () => {
    for (let i = next++; i < naps.length; i = next++) {
      const nap = naps[i] as (typeof naps)[number];
      await startNap(nap.server, nap.thread, nap.wakeAt);
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  return (performance.now() - t0) / 1000;
}

/** What the store says of the naps: per thread, its runs, `run.resumed` count and first ts. */
interface Woken {
  thread: string;
  runs: number;
  resumed: number;
  ts: string | null;
}

interface Backend {
  completed(): Promise<number>;
  woken(): Promise<Woken[]>;
  /** Pids of the database's own backends (Postgres), for their CPU. */
  backends(): Promise<number[]>;
  close(): Promise<void>;
}

const WOKEN_SQL = `
  SELECT r.session_id AS thread, count(DISTINCT r.run_id) AS runs,
         count(e.run_id) AS resumed, min(e.ts) AS ts
  FROM runs r LEFT JOIN events e ON e.run_id = r.run_id AND e.kind = 'run.resumed'
  WHERE r.origin = 'nap' GROUP BY r.session_id`;

function sqliteBackend(file: string): Backend {
  const db = new DatabaseSync(file, { readOnly: true });
  return {
    async completed() {
      const row = db
        .prepare("SELECT count(*) AS n FROM runs WHERE origin = 'nap' AND status = 'completed'")
        .get() as { n: number };
      return Number(row.n);
    },
    async woken() {
      return (db.prepare(WOKEN_SQL).all() as unknown as Woken[]).map((row) => ({
        ...row,
        runs: Number(row.runs),
        resumed: Number(row.resumed),
        ts: row.ts === null ? null : tsText(row.ts), // epoch ms in SQLite's compact rows
      }));
    },
    async backends() {
      return [];
    },
    async close() {
      db.close();
    },
  };
}

async function postgresBackend(url: string, database: string): Promise<Backend> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  return {
    async completed() {
      const { rows } = await client.query(
        "SELECT count(*)::int AS n FROM runs WHERE origin = 'nap' AND status = 'completed'",
      );
      return Number(rows[0]?.n);
    },
    async woken() {
      const { rows } = await client.query(WOKEN_SQL);
      return (rows as Woken[]).map((row) => ({
        ...row,
        runs: Number(row.runs),
        resumed: Number(row.resumed),
      }));
    },
    async backends() {
      const { rows } = await client.query(
        'SELECT pid FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()',
        [database],
      );
      return rows.map((row: { pid: number }) => row.pid);
    },
    async close() {
      await client.end();
    },
  };
}

interface CaseResult {
  name: string;
  processes: number;
  startSeconds: number;
  idleEmpty: Idle;
  idleSleeping: Idle;
  /** Naps already due when the last was started (should be 0). */
  dueBeforeStarted: number;
  lateness: number[];
  early: number;
  /** Threads with more than one run or more than one \`run.resumed\`. */
  notOnce: number;
  /** Threads never resumed. */
  missing: number;
  /** From T0 to the last nap completed, s; and the servers' CPU over it, ms per wake. */
  wakeSeconds: number;
  cpuPerWake: number;
  /** Median gap between consecutive `run.resumed` under 250 ms (wall time per wake in a tick). */
  inTickMs: number;
  /** Runs of wakes separated by 250 ms or more (about the ticks). */
  bursts: number;
  /** The load average when the last nap completed. */
  loadAfter: string;
  logs: string;
}

const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;

async function runCase(
  name: string,
  servers: ServerProcess[],
  backend: () => Promise<Backend>,
): Promise<CaseResult> {
  const urls = await Promise.all(servers.map((s) => s.url));
  const pids = servers.map((s) => s.child.pid as number);
  const store = await backend();
  try {
    await sleep(SETTLE_MS);
    console.log(`${name}: idle, nothing sleeping (${IDLE_S} s)`);
    const idleEmpty = await measureIdle(pids, IDLE_S, () => store.backends());
    console.log(`  ${idleEmpty.perProcess.map((n) => n.toFixed(2)).join(' + ')} ms/s`);

    // Calibration: the start rate, with naps an hour out.
    const far = new Date(Date.now() + 3_600_000).toISOString();
    const calibration = Array.from({ length: CALIBRATION }, (_, i) => ({
      thread: `far-${i}`,
      wakeAt: far,
      server: urls[i % urls.length] as string,
    }));
    const calibrationSeconds = await startNaps(calibration);
    const rate = CALIBRATION / calibrationSeconds;
    const estimate = (THREADS / rate) * START_MARGIN;
    const t0 = Date.now() + estimate * 1000 + SETTLE_MS + IDLE_S * 1000 + 3_000;
    console.log(
      `  ${int(rate)} starts/s calibrated; ${int(THREADS)} naps, spread begins in ${((t0 - Date.now()) / 1000).toFixed(0)} s`,
    );
    const naps = Array.from({ length: THREADS }, (_, i) => ({
      thread: `nap-${i}`,
      wakeAt: new Date(t0 + Math.floor(Math.random() * SPREAD_S * 1000)).toISOString(),
      server: urls[i % urls.length] as string,
    }));
    const wakeAt = new Map(naps.map((nap) => [nap.thread, Date.parse(nap.wakeAt)]));
    const startSeconds = await startNaps(naps);
    const startedAt = Date.now();
    const dueBeforeStarted = naps.filter((nap) => Date.parse(nap.wakeAt) <= startedAt).length;
    console.log(
      `  started in ${startSeconds.toFixed(1)} s (${int(THREADS / startSeconds)}/s); ${dueBeforeStarted} due before the last started`,
    );

    // Idle with every thread asleep and none due, in the gap before the spread.
    await sleep(SETTLE_MS);
    const window = Math.min(IDLE_S, (t0 - Date.now() - 1_000) / 1000);
    const idleSleeping =
      window >= 1
        ? await measureIdle(pids, window, () => store.backends())
        : { perProcess: pids.map(() => Number.NaN), total: Number.NaN, database: null, seconds: 0 };
    console.log(
      `  idle, ${int(THREADS + CALIBRATION)} asleep (${idleSleeping.seconds.toFixed(1)} s): ${idleSleeping.perProcess.map((n) => n.toFixed(2)).join(' + ')} ms/s`,
    );

    // The spread: wait for every nap to complete.
    await sleep(t0 - Date.now());
    const cpuAtT0 = cpuOf(pids);
    const deadline = t0 + (SPREAD_S + DRAIN_S) * 1000;
    let completed = 0;
    while (Date.now() < deadline) {
      completed = await store.completed();
      if (completed >= THREADS) break;
      await sleep(250);
    }
    const wakeSeconds = (Date.now() - t0) / 1000;
    const cpuPerWake = (cpuOf(pids) - cpuAtT0) / Math.max(1, completed);
    const wakeLoad = loadAtStart().join(' / ');
    console.log(
      `  ${int(completed)} completed ${wakeSeconds.toFixed(1)} s after T0; ${cpuPerWake.toFixed(1)} ms CPU per wake`,
    );

    const woken = await store.woken();
    const lateness: number[] = [];
    let early = 0;
    let notOnce = 0;
    for (const row of woken) {
      const asked = wakeAt.get(row.thread);
      if (asked === undefined) continue; // a calibration nap, still asleep
      if (row.runs > 1 || row.resumed > 1) notOnce++;
      if (row.ts === null) continue;
      const late = Date.parse(row.ts) - asked;
      if (late < 0) early++;
      lateness.push(late);
    }
    lateness.sort((a, b) => a - b);
    const resumedAt = woken
      .filter((row) => row.ts !== null && wakeAt.has(row.thread))
      .map((row) => Date.parse(row.ts as string))
      .sort((a, b) => a - b);
    const gaps = resumedAt.slice(1).map((at, i) => at - (resumedAt[i] as number));
    const inTick = gaps.filter((gap) => gap < 250).sort((a, b) => a - b);
    return {
      name,
      processes: servers.length,
      startSeconds,
      idleEmpty,
      idleSleeping,
      dueBeforeStarted,
      lateness,
      early,
      notOnce,
      missing: THREADS - lateness.length,
      wakeSeconds,
      cpuPerWake,
      inTickMs: percentile(inTick, 50),
      bursts: gaps.filter((gap) => gap >= 250).length + 1,
      loadAfter: wakeLoad,
      logs: servers.map((s) => s.err()).join('\n'),
    };
  } finally {
    await store.close();
  }
}

async function stop(servers: ServerProcess[]): Promise<void> {
  for (const server of servers) server.child.kill('SIGTERM');
  await Promise.all(servers.map((server) => server.exited));
}

async function admin(sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: POSTGRES_URL });
  await client.connect();
  await client.query(sql).finally(() => client.end());
}

async function sqliteCase(dir: string): Promise<CaseResult> {
  const file = join(dir, 'state.db');
  const servers = [startServer(PROJECT, { SERVICE_EVENTS: `sqlite://${file}` }, dir)];
  try {
    return await runCase('SQLite default, 1 process', servers, async () => sqliteBackend(file));
  } finally {
    await stop(servers);
  }
}

async function postgresCase(dir: string): Promise<CaseResult> {
  const database = `agentdeck_bench_${randomUUID().replaceAll('-', '')}`;
  const url = new URL(POSTGRES_URL);
  url.pathname = `/${database}`;
  await admin(`CREATE DATABASE ${database}`);
  const servers: ServerProcess[] = [];
  try {
    servers.push(startServer(PROJECT, { SERVICE_EVENTS: url.href }, dir));
    await servers[0]?.url; // the first migrates; the second finds it done
    servers.push(startServer(PROJECT, { SERVICE_EVENTS: url.href }, dir));
    return await runCase('Postgres, 2 processes (naps started half on each)', servers, () =>
      postgresBackend(url.href, database),
    );
  } finally {
    await stop(servers);
    await admin(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`);
  }
}

const ms = (n: number) => (Number.isNaN(n) ? '–' : int(n));
const cpu = (idle: Idle) => {
  if (Number.isNaN(idle.total)) return '–';
  const each =
    idle.perProcess.length > 1 ? ` (${idle.perProcess.map((n) => n.toFixed(1)).join(' + ')})` : '';
  return `${idle.total.toFixed(1)}${each}`;
};

async function main(): Promise<void> {
  const load = loadAtStart();
  const dir = mkdtempSync(join(tmpdir(), 'agentdeck-timers-bench-'));
  const results: CaseResult[] = [];
  try {
    results.push(await sqliteCase(dir));
    results.push(await postgresCase(dir));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  for (const r of results) {
    const errors = r.logs.split('\n').filter((line) => line.includes('[agentdeck]'));
    if (errors.length) console.log(`${r.name} logged:\n${errors.slice(0, 20).join('\n')}`);
  }

  const lateRows = results.map((r) => [
    r.name,
    `${int(r.lateness.length)} / ${int(THREADS)}`,
    ms(percentile(r.lateness, 50)),
    ms(percentile(r.lateness, 95)),
    `**${ms(percentile(r.lateness, 99))}**`,
    ms(r.lateness.at(-1) ?? Number.NaN),
    String(r.early),
    String(r.notOnce),
  ]);
  const idleRows = results.flatMap((r) => [
    [
      `${r.name}, nothing asleep`,
      `${r.idleEmpty.seconds.toFixed(0)} s`,
      cpu(r.idleEmpty),
      r.idleEmpty.database === null ? '–' : r.idleEmpty.database.toFixed(1),
    ],
    [
      `${r.name}, ${int(THREADS + CALIBRATION)} asleep, none due`,
      `${r.idleSleeping.seconds.toFixed(0)} s`,
      `**${cpu(r.idleSleeping)}**`,
      r.idleSleeping.database === null ? '–' : r.idleSleeping.database.toFixed(1),
    ],
  ]);
  for (const row of [...lateRows, ...idleRows]) console.log(row.join(' | '));
  const p99s = results.map((r) => percentile(r.lateness, 99));
  const verdict = (p99: number) => (p99 < 1_000 ? 'PASS' : 'FAIL');
  const onceTotal = results.reduce((sum, r) => sum + r.notOnce + r.missing, 0);

  writeSection('timers.bench', [
    '## Timers at scale: 10,000 sleeping threads woken by themselves (`npm run bench:timers`)',
    '',
    `Real \`agentdeck serve\` processes (timers on, no \`tick()\` call) serving test/fixtures/scale, whose`,
    'durable `nap` workflow sleeps until `wakeAt` (`sleepUntil`) and ends. The bench starts',
    `${int(THREADS)} naps over HTTP (\`POST /workflows/nap?thread_id=…\`, ${CONCURRENCY} at a time) with wake times`,
    `uniform over ${SPREAD_S} s, the spread beginning after the last is started, and waits until every nap`,
    "has completed. **Lateness** = the ts of the run's `run.resumed` event minus the wake time asked",
    'for; **woken once** = the thread has one run with exactly one `run.resumed`. Cases: the SQLite',
    'default (one process; the file read read-only by the bench), and Postgres with two processes',
    'on one scratch database, the naps started half on each. Before them, a few hundred',
    `calibration naps (${CALIBRATION}, wake times an hour out, never woken here) measure the start rate.`,
    '',
    `**Lateness p99: SQLite ${ms(p99s[0] ?? Number.NaN)} ms (${verdict(p99s[0] ?? Number.NaN)}), Postgres with two ` +
      `processes ${ms(p99s[1] ?? Number.NaN)} ms (${verdict(p99s[1] ?? Number.NaN)})** (target: under 1 s). ` +
      `${onceTotal === 0 ? 'Every thread woken exactly once on both.' : `**${onceTotal} threads not woken exactly once.**`}`,
    '',
    `${machineLine(load)} Postgres on the same machine.`,
    '',
    ...table(
      ['case', 'woken', 'p50 ms', 'p95 ms', 'p99 ms', 'max ms', 'early', 'not once'],
      lateRows,
    ),
    '',
    `Starting the naps: ${results.map((r) => `${r.name.split(',')[0]} ${r.startSeconds.toFixed(0)} s (${int(THREADS / r.startSeconds)}/s)`).join(', ')}; ` +
      `${results.map((r) => r.dueBeforeStarted).join(' and ')} wake times fell before the last was started. ` +
      `Waking: the servers' CPU from the spread's start to the last nap completed, per nap: ` +
      `${results.map((r) => `${r.name.split(',')[0]} ${r.cpuPerWake.toFixed(1)} ms`).join(', ')} ` +
      `(last completed ${results.map((r) => `${(r.wakeSeconds - SPREAD_S).toFixed(1)} s`).join(' and ')} after the spread's end; ` +
      `load average then ${results.map((r) => r.loadAfter).join(' and ')}). ` +
      `Inside a tick (consecutive \`run.resumed\` under 250 ms apart, median gap): one wake every ` +
      `${results.map((r) => `${r.inTickMs} ms`).join(' and ')}, in ${results.map((r) => int(r.bursts)).join(' and ')} bursts.`,
    '',
    'CPU while nothing is due (utime + stime of the server processes from /proc/<pid>/stat over',
    'the window, in ms of CPU per second; with two processes, their sum and each; on Postgres also',
    "the scratch database's own backends, from pg_stat_activity):",
    '',
    ...table(['case', 'window', 'servers ms/s', 'database ms/s'], idleRows),
  ]);
}

await main();
