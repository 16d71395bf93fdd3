/**
 * Background runs on the shared queue (#40), over real `service-serve` processes
 * (`npm run bench:queue`):
 *
 * 1. Enqueue-to-start latency: from a run's `run.queued` to its `run.started` (both times
 *    assigned by the store's writers, read back from the store), idle (one run queued at a
 *    time, each waited for) and under load (a steady open-loop stream of `POST /runs` at half
 *    the measured queued capacity of three processes). Goal: p50 under 5 ms idle on Postgres.
 * 2. Runs/s through the queue with one, two and three processes on one Postgres database,
 *    beside the same runs started synchronously (`POST /workflows/{name}`) against the same
 *    processes, rounds alternating. Both sides have 4 clients per process, and each process
 *    plays 4 queued runs at once (`SERVICE_QUEUE_CONCURRENCY=4`, the default). The workflow
 *    (test/fixtures/queue) is one node and no model, so the queue is what is measured.
 *    Goals: throughput grows with processes; the queue costs under 10% of a synchronous
 *    run's time (ms per run, queued against synchronous, per round pair).
 * 3. The same on SQLite with one process, for reference.
 *
 * Processes are added one at a time (1, then 2, then 3): a worker in any process on the
 * database takes queued runs, so a case with n processes needs exactly n running. The script
 * rewrites its own section of bench/RESULTS.md.
 *
 * Run: `npm run bench:queue` (or `npx tsx bench/queue.bench.ts`); BENCH_ROUNDS (3),
 * BENCH_RUNS (runs per round, 200), BENCH_IDLE (idle runs, 100), BENCH_LOAD_SECONDS (5).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { adminQuery, scratchDatabase } from '../test/support/postgres.js';
import { killServers, type ServerProcess, startServer } from '../test/support/server-process.js';
import {
  closedLoop,
  enqueueRun,
  postgresReader,
  type RunTimes,
  runSync,
  type StoreReader,
  sleep,
  sqliteReader,
  steadyStream,
  waitEnded,
} from './support/queue-runs.js';
import {
  loadAtStart,
  machineLine,
  median,
  percentile,
  table,
  writeSection,
} from './support/report.js';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const RUNS = Number(process.env.BENCH_RUNS ?? 200);
const IDLE = Number(process.env.BENCH_IDLE ?? 100);
const LOAD_SECONDS = Number(process.env.BENCH_LOAD_SECONDS ?? 5);
const PER_PROCESS = 4; // clients per process, and SERVICE_QUEUE_CONCURRENCY
const IDLE_GOAL_MS = 5;
const OVERHEAD_GOAL = 0.1;
const PROJECT = join(resolve(import.meta.dirname, '..'), 'test/fixtures/queue/.agentdeck');

interface Latency {
  label: string;
  waits: number[];
  /** `POST /runs` answered, ms, as the client saw it. */
  posts: number[];
}

interface Round {
  runs: number;
  seconds: number;
  /** Queued rounds: each run's queued-to-started and started-to-completed, ms. */
  waits: number[];
  plays: number[];
}

interface Throughput {
  label: string;
  processes: number;
  queued: Round[];
  sync: Round[];
}

const latencies: Latency[] = [];
const throughputs: Throughput[] = [];
let loadRate = 0;

function started(times: Map<string, RunTimes>, ids: readonly string[]) {
  return ids.map((id) => times.get(id)).filter((t): t is RunTimes => t !== undefined);
}

async function idleLatency(label: string, bases: string[], reader: StoreReader, count: number) {
  const ids: string[] = [];
  const posts: number[] = [];
  for (let i = 0; i < count; i++) {
    const t0 = performance.now();
    ids.push(await enqueueRun(bases[i % bases.length] as string, i));
    posts.push(performance.now() - t0);
    await waitEnded(reader, ids.slice(-1), 10_000, 5);
    await sleep(20); // the worker lets go of the entry and is idle again
  }
  const times = started(await reader.times(ids), ids);
  latencies.push({ label, waits: times.map((t) => t.started - t.queued), posts });
}

async function loadLatency(label: string, bases: string[], reader: StoreReader, rate: number) {
  const count = Math.min(2_000, Math.round(rate * LOAD_SECONDS));
  const ids = await steadyStream(bases, rate, count);
  await waitEnded(reader, ids, 60_000);
  const times = started(await reader.times(ids), ids);
  latencies.push({ label, waits: times.map((t) => t.started - t.queued), posts: [] });
}

async function queuedRound(bases: string[], reader: StoreReader, runs: number): Promise<Round> {
  const t0 = Date.now();
  const ids = await closedLoop(bases, PER_PROCESS * bases.length, runs, enqueueRun);
  await waitEnded(reader, ids, 60_000);
  const times = started(await reader.times(ids), ids);
  const last = Math.max(...times.map((t) => t.completed));
  return {
    runs: ids.length,
    seconds: (last - t0) / 1000,
    waits: times.map((t) => t.started - t.queued),
    plays: times.map((t) => t.completed - t.started),
  };
}

async function syncRound(bases: string[], runs: number): Promise<Round> {
  const t0 = performance.now();
  await closedLoop(bases, PER_PROCESS * bases.length, runs, runSync);
  return { runs, seconds: (performance.now() - t0) / 1000, waits: [], plays: [] };
}

async function throughput(label: string, bases: string[], reader: StoreReader) {
  await syncRound(bases, 40); // warm-up: the routes, the pools, the graph
  await queuedRound(bases, reader, 40);
  const result: Throughput = { label, processes: bases.length, queued: [], sync: [] };
  for (let round = 0; round < ROUNDS; round++) {
    const queuedFirst = round % 2 === 0;
    if (queuedFirst) result.queued.push(await queuedRound(bases, reader, RUNS));
    result.sync.push(await syncRound(bases, RUNS));
    if (!queuedFirst) result.queued.push(await queuedRound(bases, reader, RUNS));
    const q = rate(result.queued.at(-1));
    const s = rate(result.sync.at(-1));
    console.log(`${label} round ${round + 1}: queued ${q.toFixed(0)}/s, sync ${s.toFixed(0)}/s`);
  }
  throughputs.push(result);
  return result;
}

function rate(r: Round | undefined): number {
  return r ? r.runs / r.seconds : 0;
}

async function postgres() {
  const { name: database, url } = scratchDatabase();
  await adminQuery(`CREATE DATABASE ${database}`);
  const servers: ServerProcess[] = [];
  const bases: string[] = [];
  let reader: StoreReader | null = null;
  const env = { SERVICE_EVENTS: url.href, SERVICE_QUEUE_CONCURRENCY: String(PER_PROCESS) };
  try {
    for (let n = 1; n <= 3; n++) {
      const server = startServer(PROJECT, env);
      servers.push(server);
      bases.push(await server.url);
      reader ??= await postgresReader(url.href);
      const label = `Postgres, ${n} process${n > 1 ? 'es' : ''}`;
      const result = await throughput(label, bases, reader);
      if (n === 1 || n === 3) await idleLatency(`${label}, idle`, bases, reader, IDLE);
      if (n === 3) {
        loadRate = Math.round(median(result.queued.map(rate)) / 2);
        await loadLatency(`${label}, ${loadRate} runs/s steady`, bases, reader, loadRate);
      }
    }
  } finally {
    await reader?.close();
    await killServers(servers);
    await adminQuery(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`);
  }
}

async function sqlite() {
  const dir = mkdtempSync(join(tmpdir(), 'agentdeck-queue-bench-'));
  const file = join(dir, 'state.db');
  const server = startServer(PROJECT, {
    SERVICE_EVENTS: `sqlite://${file}`,
    SERVICE_QUEUE_CONCURRENCY: String(PER_PROCESS),
  });
  try {
    const bases = [await server.url];
    const reader = sqliteReader(file);
    try {
      await throughput('SQLite, 1 process', bases, reader);
      await idleLatency('SQLite, 1 process, idle', bases, reader, Math.min(IDLE, 50));
    } finally {
      await reader.close();
    }
  } finally {
    await killServers([server]);
    rmSync(dir, { recursive: true, force: true });
  }
}

const load = loadAtStart();
const wall = performance.now();
await postgres();
await sqlite();
console.log(`wall time ${((performance.now() - wall) / 1000).toFixed(0)} s`);
report();
process.exit(0); // keep-alive sockets of the clients would hold the process open

function report() {
  const fmt = (n: number, digits = 0) =>
    n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });
  const pct = (n: number) => `${n >= 0 ? '+' : ''}${fmt(100 * n)}%`;
  const latencyRows = latencies.map((l) => {
    const p50 = percentile(l.waits, 50);
    const goal = l.label.startsWith('Postgres') && l.label.endsWith('idle');
    return [
      l.label,
      String(l.waits.length),
      `**${fmt(p50, 1)}**`,
      fmt(percentile(l.waits, 99), 1),
      fmt(Math.max(...l.waits), 1),
      l.posts.length ? fmt(percentile(l.posts, 50), 1) : '',
      goal ? (p50 < IDLE_GOAL_MS ? 'PASS' : 'FAIL') : '',
    ];
  });
  const overheads = (t: Throughput) => t.queued.map((q, i) => rate(t.sync[i]) / rate(q) - 1); // queued ms/run over sync ms/run
  const pg1 = throughputs.find((t) => t.label.startsWith('Postgres') && t.processes === 1);
  const base = (mode: 'queued' | 'sync') => median((pg1?.[mode] ?? []).map(rate));
  const throughputRows = throughputs.map((t) => {
    const q = median(t.queued.map(rate));
    const s = median(t.sync.map(rate));
    const o = overheads(t);
    const scale = t.label.startsWith('Postgres')
      ? `${fmt(q / base('queued'), 2)}x / ${fmt(s / base('sync'), 2)}x`
      : '';
    return [
      t.label,
      `**${fmt(q)}**`,
      `**${fmt(s)}**`,
      scale,
      `${fmt(1000 / q, 2)} / ${fmt(1000 / s, 2)}`,
      `**${pct(median(o))}** (${o.map(pct).join(', ')})`,
      `${fmt(
        percentile(
          t.queued.flatMap((r) => r.waits),
          50,
        ),
        0,
      )} / ${fmt(
        percentile(
          t.queued.flatMap((r) => r.plays),
          50,
        ),
        0,
      )}`,
      median(o) < OVERHEAD_GOAL ? 'PASS' : 'FAIL',
    ];
  });
  const idle = latencies.find((l) => l.label === 'Postgres, 1 process, idle');
  const grows = throughputs
    .filter((t) => t.label.startsWith('Postgres'))
    .map((t) => median(t.queued.map(rate)));
  const growsOk = grows.every((v, i) => i === 0 || v > (grows[i - 1] ?? 0));
  const pgCosts = throughputs
    .filter((t) => t.label.startsWith('Postgres'))
    .map((t) => median(overheads(t)));
  const costsOk = pgCosts.every((c) => c < OVERHEAD_GOAL);
  writeSection('queue.bench', [
    '## Background runs on the shared queue (`npm run bench:queue`)',
    '',
    'Real `service-serve` processes on one Postgres database (a scratch database, `synchronous_commit = on`),',
    'the one-node, no-model workflow `tick` of test/fixtures/queue. Latency: `run.queued` to `run.started`, both',
    `times the store's writers assigned, read back from the store; idle is ${IDLE} runs queued one at a time`,
    '(each waited for, 20 ms apart); under load, a steady open-loop stream of `POST /runs` at half the three',
    `processes' measured queued capacity for ${LOAD_SECONDS} s. Throughput: ${RUNS} runs per round from ${PER_PROCESS}`,
    'clients per process, queued (`POST /runs`, each process playing 4 at once: `SERVICE_QUEUE_CONCURRENCY=4`;',
    "from the first request to the last run's `run.completed`) against synchronous (`POST /workflows/tick`, to",
    `the last answer), against the same processes; after a 40-run warm-up, ${ROUNDS} rounds in alternating order,`,
    'runs/s the median over rounds. Processes are added one at a time (any worker on the database takes',
    'queued runs). The bench client runs on the same 2 cores as the servers and Postgres.',
    '',
    `**Headline: idle enqueue-to-start p50 ${fmt(percentile(idle?.waits ?? [], 50), 1)} ms on Postgres (goal under ${IDLE_GOAL_MS} ms): ${percentile(idle?.waits ?? [], 50) < IDLE_GOAL_MS ? 'PASS' : 'FAIL'}; queued runs/s ${grows.map((g) => fmt(g)).join(' / ')} with 1 / 2 / 3 processes (goal: grows): ${growsOk ? 'PASS' : 'FAIL'}; the queue's cost per run against a synchronous run ${pgCosts.map(pct).join(' / ')} (goal under 10%): ${costsOk ? 'PASS' : 'FAIL'}.**`,
    '',
    machineLine(load),
    '',
    ...table(
      [
        'enqueue to start',
        'runs',
        'p50 ms',
        'p99 ms',
        'max ms',
        '`POST /runs` p50 ms',
        `goal (p50 < ${IDLE_GOAL_MS} ms)`,
      ],
      latencyRows,
    ),
    '',
    ...table(
      [
        'throughput',
        'queued runs/s',
        'sync runs/s',
        'against 1 process (queued / sync)',
        'ms per run (queued / sync)',
        'queue cost per run (per round)',
        'queued: wait / play p50 ms',
        'goal (< 10%)',
      ],
      throughputRows,
    ),
  ]);
}
