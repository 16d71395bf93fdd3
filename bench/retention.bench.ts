/**
 * Retention (issue #18), measured on SQLite (a temp file) and Postgres (a schema of its own,
 * dropped at the end):
 *
 * 1. Steady state. A simulated history of ended runs, `RUNS` over `DAYS` simulated days,
 *    with a 7-day retention: each simulated day appends its runs (small agent turns:
 *    `run.started`, 1-3 `text.delta`, `message.completed`, `run.completed`: 4-6 events), then
 *    removes the runs that ended more than 7 days ago with `pruneRuns` in batches (as the
 *    retention sweep does), and records the state's size: SQLite the main file plus its WAL,
 *    Postgres `pg_total_relation_size` of every table of the schema.
 *    The stores stamp `ts` themselves (`isoNow()`, from `Date.now()`), so time is simulated
 *    by replacing `Date.now` in this process with a clock the script sets: before each append
 *    it reads the simulated day's start plus the batch's share of the day, and before the
 *    day's prune the day's end. Nothing else is changed. The history is written many runs
 *    per `append` call (the rows are the same as a turn's own appends write; only the
 *    filling is faster), and on Postgres a few such calls are in flight at once.
 *    Each backend stops at a wall-time limit and says how far it got.
 * 2. Prune throughput: runs removed per second over the days after the plateau, and the
 *    time of one `pruneRuns` call, at 100 runs per call (the sweep's batch) or 500, in pairs
 *    of days (so that each size meets both states of the Postgres tables: vacuumed since the
 *    last prune or not).
 * 3. Live turns while pruning: with the real clock back, the store still holds the last
 *    7 simulated days, all of them now past the retention: a backlog. A short turn
 *    (`claimAndAppend` of `run.started` with its session claim, 3 `text.delta` a turn apart,
 *    `message.completed`, `endRun` with `run.completed`, as the runtime records one) is timed
 *    end to end, in blocks that alternate: no pruning; a pruning loop on the same store
 *    back to back (100 runs per call, as `agentdeck runs prune` does); the same at the
 *    sweep's pace (100 runs per call, a 50 ms pause). The loop runs only while its block's
 *    turns do (bounded in time and by the backlog). p50 and p99 per case, and each case's
 *    ratio to no pruning.
 *
 * Needs a Postgres server: TEST_POSTGRES_URL, default postgres://postgres@127.0.0.1:5432/test.
 * Run: `npm run bench:retention` (or `npx tsx bench/retention.bench.ts`). Sizes via env:
 * RETENTION_SQLITE_RUNS (1,000,000), RETENTION_PG_RUNS (500,000), RETENTION_DAYS_SIMULATED
 * (30), RETENTION_LIMIT_S (wall-time limit of each simulation, 480). It rewrites its own
 * section of bench/RESULTS.md.
 */
import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { TextBlock } from '../src/core/blocks.js';
import type { NewEvent } from '../src/core/events.js';
import type { EventStore, RunBoundaries, RunPruning } from '../src/core/store.js';
import { PostgresEventStore } from '../src/stores/postgres/events.js';
import { SqliteEventStore } from '../src/stores/sqlite/events.js';
import { loadAtStart, machineLine, median, table, writeSection } from './support/report.js';

const URL = process.env.TEST_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const DAY = 86_400_000;
const RETENTION_DAYS = 7;
const DAYS = Number(process.env.RETENTION_DAYS_SIMULATED ?? 30);
const SQLITE_RUNS = Number(process.env.RETENTION_SQLITE_RUNS ?? 1_000_000);
const PG_RUNS = Number(process.env.RETENTION_PG_RUNS ?? 500_000);
const LIMIT_MS = Number(process.env.RETENTION_LIMIT_S ?? 480) * 1000;
/** Runs per `append` call while filling the history. */
const FILL_BATCH = 250;
/** Postgres: fill calls in flight at once. */
const PG_FILL_CONCURRENCY = 4;
const ROUNDS = 5;
/** How long each block of live turns lasts, in ms. */
const BLOCK_MS = 1_000;
/** Most runs a pruning loop removes in one block (so the backlog lasts every block). */
const PRUNE_CAP_PER_BLOCK = 25_000;
const SWEEP_BATCH = 100;
const SWEEP_PAUSE_MS = 50;
/** The sweep's time budget per minute (retention-sweep.ts), for its capacity per day. */
const SWEEP_BUDGET_MS = 5_000;

type Store = EventStore & RunBoundaries & RunPruning;

// The simulated clock: `Date.now()` reads it while it is set, the real clock otherwise.
const realNow = Date.now.bind(Date);
let simulated: number | null = null;
Date.now = () => simulated ?? realNow();

interface Day {
  day: number;
  runsAdded: number;
  runsRemoved: number;
  pruneMs: number;
  batch: number;
  /** Size after the day's runs were added, before its prune. */
  peakBytes: number;
  /** Size after the prune. */
  bytes: number;
  /** SQLite: of `bytes`, the WAL; Postgres: dead tuples in `events`. */
  detail: number;
  /** What {@link Backend.endOfDay} did. */
  housekeeping: string;
  /** Postgres: whether `events` was vacuumed after the previous day's prune. */
  vacuumedBefore: boolean;
  wallMs: number;
}

interface Simulation {
  backend: string;
  target: number;
  runsPerDay: number;
  days: Day[];
  stoppedEarly: boolean;
  wallMs: number;
  fillMs: number;
  batchTimes: Map<number, number[]>;
  retained: number;
}

interface Backend {
  name: string;
  store: Store;
  /** Size of the state, and its detail (see {@link Day.detail}). */
  size(): Promise<{ bytes: number; detail: number }>;
  fillConcurrency: number;
  /** After the day's prune: what the server would have done in a real day (Postgres: autovacuum). */
  endOfDay(): Promise<string>;
  cleanup(): Promise<void>;
}

const fmt = (n: number) => Math.round(n).toLocaleString('en-US');
const mib = (bytes: number) => (bytes / 1024 / 1024).toFixed(1);
const percentile = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;
};
const iso = (ms: number) => new Date(ms).toISOString();
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function historyRun(runId: string, k: number): NewEvent[] {
  const envelope = { runId, sessionId: null, namespace: null, origin: 'concierge' };
  const deltas = 1 + (k % 3);
  const words = ['Sure,', ' the room', ' is booked.'].slice(0, deltas);
  return [
    {
      ...envelope,
      kind: 'run.started',
      payload: { invocableType: 'agent', input: [new TextBlock('Book me a room for Friday.')] },
    },
    ...words.map(
      (text): NewEvent => ({ ...envelope, kind: 'text.delta', payload: { messageId: 'm', text } }),
    ),
    {
      ...envelope,
      kind: 'message.completed',
      payload: { messageId: 'm', role: 'assistant', content: [new TextBlock(words.join(''))] },
    },
    {
      ...envelope,
      kind: 'run.completed',
      payload: { output: [new TextBlock(words.join(''))], usage: null },
    },
  ];
}

/** Remove what ended before `endedBefore`, `batch` runs per call; the calls' times. */
async function pruneAll(store: Store, endedBefore: string, batch: number) {
  let removed = 0;
  const times: number[] = [];
  for (;;) {
    const t0 = performance.now();
    const pruned = await store.pruneRuns({ endedBefore, limit: batch });
    times.push(performance.now() - t0);
    removed += pruned.length;
    if (pruned.length < batch) break;
  }
  return { removed, times };
}

async function simulate(backend: Backend, target: number, simStart: number): Promise<Simulation> {
  const { store } = backend;
  const runsPerDay = Math.round(target / DAYS);
  const started = performance.now();
  const sim: Simulation = {
    backend: backend.name,
    target,
    runsPerDay,
    days: [],
    stoppedEarly: false,
    wallMs: 0,
    fillMs: 0,
    batchTimes: new Map([
      [100, []],
      [500, []],
    ]),
    retained: 0,
  };
  let next = 0;
  for (let day = 0; day < DAYS; day++) {
    if (performance.now() - started > LIMIT_MS) {
      sim.stoppedEarly = true;
      break;
    }
    const dayStart = simStart + day * DAY;
    const dayT0 = performance.now();
    // Fill: the day's runs, FILL_BATCH per append, a few calls in flight on Postgres.
    const batches = Math.ceil(runsPerDay / FILL_BATCH);
    let b = 0;
    const worker = async () => {
      for (;;) {
        const mine = b++;
        if (mine >= batches) return;
        const events: NewEvent[] = [];
        const count = Math.min(FILL_BATCH, runsPerDay - mine * FILL_BATCH);
        for (let i = 0; i < count; i++) events.push(...historyRun(`run-${next + i}`, next + i));
        next += count;
        simulated = dayStart + Math.floor((mine / batches) * DAY);
        await store.append(events);
      }
    };
    const fillT0 = performance.now();
    await Promise.all(Array.from({ length: backend.fillConcurrency }, worker));
    sim.fillMs += performance.now() - fillT0;
    const peak = await backend.size();
    // The day's end: prune what ended more than the retention ago.
    simulated = dayStart + DAY;
    // Batch sizes in pairs of days (100, 100, 500, 500...), so that each meets both states of
    // the Postgres tables (vacuumed since the last prune or not), which alternate day by day.
    const batch = Math.floor((day + 1) / 2) % 2 === 1 ? 100 : 500;
    const vacuumedBefore = sim.days.at(-1)?.housekeeping.includes('events (vacuum') ?? false;
    const pruneT0 = performance.now();
    const { removed, times } = await pruneAll(store, iso(simulated - RETENTION_DAYS * DAY), batch);
    const pruneMs = performance.now() - pruneT0;
    if (removed > 0) sim.batchTimes.get(batch)?.push(...times.slice(0, -1)); // full batches
    const housekeeping = await backend.endOfDay();
    const after = await backend.size();
    const record: Day = {
      day: day + 1,
      runsAdded: runsPerDay,
      runsRemoved: removed,
      pruneMs,
      batch,
      peakBytes: peak.bytes,
      bytes: after.bytes,
      detail: after.detail,
      housekeeping,
      vacuumedBefore,
      wallMs: performance.now() - dayT0,
    };
    sim.days.push(record);
    console.log(
      `${backend.name} day ${record.day}: +${fmt(runsPerDay)} -${fmt(removed)} ` +
        `peak ${mib(peak.bytes)} MiB, after prune ${mib(after.bytes)} MiB ` +
        `(detail ${fmt(after.detail)}), prune ${fmt(pruneMs)} ms, day ${fmt(record.wallMs)} ms`,
    );
  }
  simulated = null;
  sim.wallMs = performance.now() - started;
  sim.retained = sim.days.reduce((n, d) => n + d.runsAdded - d.runsRemoved, 0);
  return sim;
}

// ---- live turns while pruning ----

interface LiveCase {
  name: string;
  /** `null`: no pruning; otherwise the pause between prune calls, in ms. */
  pauseMs: number | null;
}

const LIVE_CASES: LiveCase[] = [
  { name: 'no pruning', pauseMs: null },
  { name: `pruning back to back (${SWEEP_BATCH} runs per call)`, pauseMs: 0 },
  {
    name: `pruning at the sweep's pace (${SWEEP_BATCH} per call, ${SWEEP_PAUSE_MS} ms pause)`,
    pauseMs: SWEEP_PAUSE_MS,
  },
];

let liveCounter = 0;

async function liveTurn(store: Store): Promise<number> {
  const n = liveCounter++;
  const envelope = { runId: `live-${n}`, sessionId: `s-${n}`, namespace: null, origin: 'live' };
  const key = `session:s-${n}`;
  const event = (kind: string, payload: object) => ({ ...envelope, kind, payload }) as NewEvent;
  const t0 = performance.now();
  await store.claimAndAppend(
    { key, runId: envelope.runId, staleAfterMs: 3_600_000, leaseMs: 30_000 },
    [event('run.started', { invocableType: 'agent', input: [new TextBlock('Hi')] })],
  );
  for (const text of ['Hello', ' there', '!']) {
    await store.append([event('text.delta', { messageId: 'm', text })]);
    await new Promise(setImmediate);
  }
  await store.append([
    event('message.completed', {
      messageId: 'm',
      role: 'assistant',
      content: [new TextBlock('Hello there!')],
    }),
  ]);
  await store.endRun(event('run.completed', { output: [], usage: null }), key);
  return performance.now() - t0;
}

interface LiveResult {
  latencies: Map<LiveCase, number[]>;
  p50ByRound: Map<LiveCase, number[]>;
  pruned: Map<LiveCase, number>;
  pruneMs: Map<LiveCase, number>;
  emptyCalls: Map<LiveCase, number>;
}

async function live(store: Store): Promise<LiveResult> {
  const endedBefore = iso(realNow() - RETENTION_DAYS * DAY);
  const result: LiveResult = {
    latencies: new Map(LIVE_CASES.map((c) => [c, []])),
    p50ByRound: new Map(LIVE_CASES.map((c) => [c, []])),
    pruned: new Map(LIVE_CASES.map((c) => [c, 0])),
    pruneMs: new Map(LIVE_CASES.map((c) => [c, 0])),
    emptyCalls: new Map(LIVE_CASES.map((c) => [c, 0])),
  };
  for (let i = 0; i < 30; i++) await liveTurn(store); // warm-up
  for (let round = 0; round < ROUNDS; round++) {
    // The order rotates each round, so drift on the machine falls on every case.
    const order = LIVE_CASES.map((_, i) => LIVE_CASES[(i + round) % LIVE_CASES.length] as LiveCase);
    for (const test of order) {
      let stop = false;
      const pruning =
        test.pauseMs === null
          ? Promise.resolve()
          : (async () => {
              let removed = 0;
              while (!stop && removed < PRUNE_CAP_PER_BLOCK) {
                const t0 = performance.now();
                const pruned = await store.pruneRuns({ endedBefore, limit: SWEEP_BATCH });
                result.pruneMs.set(test, (result.pruneMs.get(test) ?? 0) + performance.now() - t0);
                removed += pruned.length;
                result.pruned.set(test, (result.pruned.get(test) ?? 0) + pruned.length);
                if (pruned.length === 0) {
                  result.emptyCalls.set(test, (result.emptyCalls.get(test) ?? 0) + 1);
                }
                await sleep(test.pauseMs ?? 0);
              }
            })();
      const times: number[] = [];
      const deadline = performance.now() + BLOCK_MS;
      while (performance.now() < deadline) times.push(await liveTurn(store));
      stop = true;
      await pruning;
      result.latencies.get(test)?.push(...times);
      result.p50ByRound.get(test)?.push(median(times));
    }
  }
  return result;
}

// ---- backends ----

async function sqliteBackend(): Promise<Backend> {
  const dir = mkdtempSync(join(tmpdir(), 'agentdeck-retention-'));
  const path = join(dir, 'state.db');
  const store = new SqliteEventStore({ path });
  const fileSize = (p: string) => (existsSync(p) ? statSync(p).size : 0);
  return {
    name: 'SQLite',
    store,
    fillConcurrency: 1,
    endOfDay: async () => '',
    size: async () => {
      const wal = fileSize(`${path}-wal`);
      return { bytes: fileSize(path) + wal, detail: wal };
    },
    cleanup: async () => {
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

async function postgresBackend(): Promise<Backend> {
  const schema = `agentdeck_bench_${crypto.randomUUID().replaceAll('-', '')}`;
  const store = new PostgresEventStore({ url: URL, schema });
  await store.connect();
  const admin = new pg.Client({ connectionString: URL });
  await admin.connect();
  return {
    name: 'Postgres',
    store,
    fillConcurrency: PG_FILL_CONCURRENCY,
    endOfDay: async () => {
      // Autovacuum, simulated: a table past autovacuum's vacuum threshold (50 + 20% of its
      // rows by default), or its analyze threshold (50 + 10% of its rows changed), is vacuumed
      // or analyzed by the next naptime (1 minute), long before a real day ends.
      const { rows } = await admin.query<{ relname: string; vacuum: boolean; analyze: boolean }>(
        `SELECT relname,
                n_dead_tup > current_setting('autovacuum_vacuum_threshold')::float8
                  + current_setting('autovacuum_vacuum_scale_factor')::float8 * n_live_tup AS vacuum,
                n_mod_since_analyze > current_setting('autovacuum_analyze_threshold')::float8
                  + current_setting('autovacuum_analyze_scale_factor')::float8 * n_live_tup AS analyze
           FROM pg_stat_user_tables WHERE schemaname = $1`,
        [schema],
      );
      const done: string[] = [];
      for (const { relname, vacuum, analyze } of rows) {
        if (!vacuum && !analyze) continue;
        const what = [vacuum ? 'VACUUM' : '', analyze ? 'ANALYZE' : ''].filter(Boolean);
        await admin.query(
          `${vacuum ? 'VACUUM' : 'ANALYZE'} ${vacuum && analyze ? '(ANALYZE) ' : ''}${schema}.${relname}`,
        );
        done.push(`${relname} (${what.join('+').toLowerCase()})`);
      }
      return done.join(', ');
    },
    size: async () => {
      const { rows } = await admin.query<{ bytes: string; dead: string }>(
        `SELECT (SELECT COALESCE(sum(pg_total_relation_size(c.oid)), 0)
                   FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
                  WHERE n.nspname = $1 AND c.relkind = 'r') AS bytes,
                (SELECT COALESCE(sum(n_dead_tup), 0) FROM pg_stat_user_tables
                  WHERE schemaname = $1 AND relname = 'events') AS dead`,
        [schema],
      );
      return { bytes: Number(rows[0]?.bytes ?? 0), detail: Number(rows[0]?.dead ?? 0) };
    },
    cleanup: async () => {
      await store.close();
      await admin.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
      await admin.end();
    },
  };
}

async function serverLine(): Promise<string> {
  const client = new pg.Client({ connectionString: URL });
  await client.connect();
  const { rows } = await client.query<{ v: string; a: string; n: string }>(
    `SELECT current_setting('server_version') AS v, current_setting('autovacuum') AS a,
            current_setting('autovacuum_naptime') AS n`,
  );
  await client.end();
  const row = rows[0];
  return `PostgreSQL ${row?.v} on 127.0.0.1 (autovacuum ${row?.a}, naptime ${row?.n})`;
}

// ---- report ----

interface Measured {
  sim: Simulation;
  live: LiveResult;
}

/** Days after the retention has filled (day 8 on): the plateau. */
function plateau(sim: Simulation): Day[] {
  return sim.days.filter((d) => d.day > RETENTION_DAYS + 1);
}

function throughput(sim: Simulation, batch: number, vacuumed?: boolean): number {
  const days = plateau(sim).filter(
    (d) => d.batch === batch && (vacuumed === undefined || d.vacuumedBefore === vacuumed),
  );
  const removed = days.reduce((n, d) => n + d.runsRemoved, 0);
  const ms = days.reduce((n, d) => n + d.pruneMs, 0);
  return ms > 0 ? removed / (ms / 1000) : 0;
}

function simulationLines(m: Measured): string[] {
  const { sim } = m;
  const flat = plateau(sim);
  const sizes = flat.map((d) => d.bytes);
  const peaks = flat.map((d) => d.peakBytes);
  const lastDay = sim.days.at(-1);
  const runsWritten = sim.days.reduce((n, d) => n + d.runsAdded, 0);
  const plateauMiB = sizes.length > 0 ? mib(median(sizes)) : 'n/a';
  const perRun = sizes.length > 0 ? median(sizes) / (sim.runsPerDay * RETENTION_DAYS) : 0;
  return [
    `**${sim.backend}:** ${fmt(runsWritten)} runs written over ${sim.days.length} simulated days ` +
      `(${fmt(sim.runsPerDay)} a day; target ${fmt(sim.target)}${sim.stoppedEarly ? `, **stopped at the ${LIMIT_MS / 1000} s wall-time limit**` : ''}) ` +
      `in ${(sim.wallMs / 1000).toFixed(0)} s (filling ${(sim.fillMs / 1000).toFixed(0)} s); ` +
      `${fmt(sim.retained)} runs kept at the end. ` +
      (sizes.length > 0
        ? `Plateau from day ${RETENTION_DAYS + 2} on: **${plateauMiB} MiB after each day's prune** ` +
          `(range ${mib(Math.min(...sizes))} – ${mib(Math.max(...sizes))}), ` +
          `${mib(median(peaks))} MiB at the daily peak (before the prune); ` +
          `about ${fmt(perRun)} bytes per retained run. Last day: ${mib(lastDay?.bytes ?? 0)} MiB.`
        : 'It did not reach the plateau.'),
  ];
}

function dayTable(m: Measured): string[] {
  const detail = m.sim.backend === 'SQLite' ? 'of which WAL MiB' : 'dead tuples in events';
  const rows = m.sim.days.map((d) => [
    String(d.day),
    fmt(d.runsAdded),
    fmt(d.runsRemoved),
    fmt(d.runsAdded * d.day - m.sim.days.slice(0, d.day).reduce((n, x) => n + x.runsRemoved, 0)),
    mib(d.peakBytes),
    `**${mib(d.bytes)}**`,
    m.sim.backend === 'SQLite' ? mib(d.detail) : fmt(d.detail),
    String(d.batch),
    ...(m.sim.backend === 'SQLite' ? [] : [d.housekeeping || '–']),
    d.runsRemoved > 0 ? fmt(d.runsRemoved / (d.pruneMs / 1000)) : '–',
  ]);
  return table(
    [
      'day',
      'runs added',
      'runs removed',
      'runs kept',
      'MiB before prune',
      'MiB after prune',
      detail,
      'batch',
      ...(m.sim.backend === 'SQLite' ? [] : ['autovacuum']),
      'removed/s',
    ],
    rows,
  );
}

function liveRows(m: Measured): string[][] {
  const { live: result } = m;
  const base = LIVE_CASES[0] as LiveCase;
  const baseAll = result.latencies.get(base) ?? [];
  const baseP50 = result.p50ByRound.get(base) ?? [];
  return LIVE_CASES.map((test) => {
    const all = result.latencies.get(test) ?? [];
    const p50s = result.p50ByRound.get(test) ?? [];
    const ratios = p50s.map((p, i) => p / (baseP50[i] ?? p));
    const pruned = result.pruned.get(test) ?? 0;
    const pruneMs = result.pruneMs.get(test) ?? 0;
    const p99Ratio = percentile(all, 99) / percentile(baseAll, 99);
    return [
      `${m.sim.backend}: ${test.name}`,
      String(all.length),
      `**${percentile(all, 50).toFixed(2)}**`,
      percentile(all, 99).toFixed(2),
      test === base ? '(baseline)' : `${median(ratios).toFixed(2)}×`,
      test === base ? '(baseline)' : `${p99Ratio.toFixed(2)}×`,
      test === base ? '–' : fmt(pruned),
      test === base || pruneMs === 0 ? '–' : fmt(pruned / (pruneMs / 1000)),
      test === base ? '–' : fmt(result.emptyCalls.get(test) ?? 0),
    ];
  });
}

function throughputRows(m: Measured): string[][] {
  return [100, 500].map((batch) => {
    const times = m.sim.batchTimes.get(batch) ?? [];
    return [
      `${m.sim.backend}, ${batch} runs per call`,
      `**${fmt(throughput(m.sim, batch))}**`,
      ...(m.sim.backend === 'SQLite'
        ? ['–', '–']
        : [fmt(throughput(m.sim, batch, true)), fmt(throughput(m.sim, batch, false))]),
      times.length > 0 ? percentile(times, 50).toFixed(1) : '–',
      times.length > 0 ? percentile(times, 99).toFixed(1) : '–',
      fmt(times.length),
    ];
  });
}

/** Runs a sweep can remove per day at 100 per call, 50 ms pause, 5 s per minute. */
function sweepCapacity(m: Measured): number {
  const times = m.sim.batchTimes.get(100) ?? [];
  if (times.length === 0) return 0;
  const perCall = percentile(times, 50) + SWEEP_PAUSE_MS;
  return (SWEEP_BUDGET_MS / perCall) * SWEEP_BATCH * 1440;
}

async function main(): Promise<void> {
  const load = loadAtStart();
  const server = await serverLine();
  // The simulated history ends 10 real days ago, so that with the real clock back all of its
  // last 7 days are past the retention: the backlog the live phase prunes.
  const simStart = Math.floor(realNow() / DAY) * DAY - (DAYS + 10) * DAY;
  const measured: Measured[] = [];
  for (const [make, target] of [
    [sqliteBackend, SQLITE_RUNS],
    [postgresBackend, PG_RUNS],
  ] as const) {
    const backend = await make();
    try {
      const sim = await simulate(backend, target, simStart);
      console.log(`${backend.name}: live turns`);
      const result = await live(backend.store);
      measured.push({ sim, live: result });
      for (const row of liveRows({ sim, live: result })) console.log(row.join(' | '));
    } finally {
      await backend.cleanup();
    }
  }
  const [sqlite, postgres] = measured as [Measured, Measured];
  const capacity = measured.map((m) => `${m.sim.backend} ${fmt(sweepCapacity(m))}`).join(', ');
  writeSection('retention.bench', [
    '## Retention (`npm run bench:retention`)',
    '',
    `A simulated history of ended runs with a ${RETENTION_DAYS}-day retention, on SQLite (a temp`,
    'file, default options) and Postgres (a fresh schema, default options). Each simulated day',
    'appends its runs, small agent turns of 4-6 events (`run.started`, 1-3 `text.delta`,',
    '`message.completed`, `run.completed`), then removes the runs that ended more than 7 days',
    "before the day's end with `pruneRuns`, in batches (100 runs per call or 500, alternating in",
    'pairs of days), and records the size of the state: SQLite the main file plus the WAL, Postgres',
    '`pg_total_relation_size` (tables, indexes, TOAST) of every table of the schema. The stores',
    'stamp `ts` themselves from `Date.now()`, so the script replaces `Date.now` with a simulated',
    "clock: the day's start plus the batch's share of the day while it appends, the day's end",
    'while it prunes. The history is written',
    `${FILL_BATCH} runs per \`append\` call (Postgres: ${PG_FILL_CONCURRENCY} calls in flight), which writes the same rows as`,
    'turns do, only faster. A simulated day passes in seconds, where Postgres autovacuum (1-minute',
    "naptime) would run many times in a real day; so at each day's end the script vacuums, and",
    "analyzes, each table of the schema past autovacuum's own thresholds (`autovacuum_vacuum_*`,",
    '`autovacuum_analyze_*`, read from the server), as autovacuum would have by then. (On this',
    'test server autovacuum is off, so these are the only vacuums.) Timings of `pruneRuns` do not',
    'include them.',
    '',
    ...simulationLines(sqlite),
    '',
    ...simulationLines(postgres),
    '',
    `${machineLine(load)} ${server}.`,
    '',
    '### Size by simulated day',
    '',
    '"runs kept" is what the store holds after the day\'s prune; Postgres "autovacuum" names the',
    'tables the simulated autovacuum vacuumed or analyzed that day.',
    '',
    `SQLite (${fmt(sqlite.sim.runsPerDay)} runs a day):`,
    '',
    ...dayTable(sqlite),
    '',
    `Postgres (${fmt(postgres.sim.runsPerDay)} runs a day):`,
    '',
    ...dayTable(postgres),
    '',
    '### Prune throughput',
    '',
    'Over the plateau days (day 9 on), runs removed per second of `pruneRuns` calls, and the',
    "time of one full call. At the sweep's defaults (100 runs per call, 50 ms pause, 5 s per",
    `minute) that time allows, in runs a day: ${capacity}.`,
    '',
    ...table(
      [
        'backend, batch',
        'runs removed/s',
        'events vacuumed since last prune',
        'not vacuumed',
        'ms per call p50',
        'p99',
        'calls',
      ],
      [...throughputRows(sqlite), ...throughputRows(postgres)],
    ),
    '',
    '### Live turns while pruning',
    '',
    'With the real clock back, the store holds the last 7 simulated days, all past the',
    'retention. A short turn as the runtime records one (`claimAndAppend` of `run.started` with',
    'its session claim, 3 `text.delta` a turn apart, `message.completed`, `endRun` with',
    `\`run.completed\`) is timed end to end, one after another for ${BLOCK_MS / 1000} s a block, ${ROUNDS} rounds of one block`,
    'per case, the order rotating; the pruning loop runs in the same process on the same store',
    `only while its block's turns do (and removes at most ${fmt(PRUNE_CAP_PER_BLOCK)} runs a block). "p50 ratio" is the`,
    "median over the rounds of the block's p50 against the",
    'no-pruning block of the same round; "p99 ratio" compares the pooled p99s.',
    '',
    ...table(
      [
        'case',
        'turns',
        'ms p50',
        'ms p99',
        'p50 ratio',
        'p99 ratio',
        'runs pruned meanwhile',
        'pruned/s',
        'empty calls',
      ],
      [...liveRows(sqlite), ...liveRows(postgres)],
    ),
  ]);
}

await main();
