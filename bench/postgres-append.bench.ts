/**
 * The per-token cost of streaming on Postgres: a 10,000-token streamed turn (`run.started`,
 * 10,000 `text.delta` events, `run.completed`) appended to one run, with the SQLite default
 * measured in the same invocation for the same shape. The clock runs from the first delta to
 * the moment `run.completed`'s append resolves, when (in every mode) all of the turn is
 * durable, so writing behind is not credited with work it has not done. The headline is the
 * Postgres store in its default configuration (deltas written behind), one event per
 * `append`, each awaited before the next (a streamed turn stores a token, then yields it).
 * Each case runs several times on a fresh store (a new schema, or a new SQLite file); the
 * median is reported, with the process CPU time per event.
 *
 * Needs a Postgres server: TEST_POSTGRES_URL, default postgres://postgres@127.0.0.1:5432/test.
 * Run: `npm run bench:postgres` (or `npx tsx bench/postgres-append.bench.ts [runs]`). It
 * rewrites its own section of bench/RESULTS.md.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { TextBlock } from '../src/core/blocks.js';
import type { NewEvent } from '../src/core/events.js';
import type { EventStore } from '../src/core/store.js';
import { PostgresEventStore } from '../src/stores/postgres/events.js';
import { SqliteEventStore } from '../src/stores/sqlite/events.js';
import { loadAtStart, machineLine, median, table, writeSection } from './support/report.js';

const URL = process.env.TEST_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const TOKENS = 10_000;
const BATCH = 100;
const RUNS = Number(process.argv[2] ?? 5);

interface Case {
  name: string;
  /** `postgres`: default options (deltas written behind); `postgres-each`: `groupCommit: false`. */
  backend: 'postgres' | 'postgres-each' | 'sqlite';
  /** Events per `append` call. */
  batch: number;
  /** Wait for the next event-loop turn between appends, as tokens arriving over a socket do. */
  turns?: boolean;
  /** Postgres only: `notify: false` (no NOTIFY per statement), to price the append notices. */
  quiet?: boolean;
}

/** The first case is the headline. */
const CASES: Case[] = [
  {
    name: 'Postgres (default: deltas written behind), 1 event per append',
    backend: 'postgres',
    batch: 1,
  },
  {
    name: 'Postgres (default), 1 event per append, a turn between events',
    backend: 'postgres',
    batch: 1,
    turns: true,
  },
  { name: 'Postgres, groupCommit: false, 1 event per append', backend: 'postgres-each', batch: 1 },
  { name: `Postgres (default), ${BATCH} events per append`, backend: 'postgres', batch: BATCH },
  { name: 'SQLite (default: group commit), 1 event per append', backend: 'sqlite', batch: 1 },
  {
    name: 'SQLite (default), 1 event per append, a turn between events',
    backend: 'sqlite',
    batch: 1,
    turns: true,
  },
  {
    name: 'Postgres (default), 1 event per append, a turn between events, notify: false',
    backend: 'postgres',
    batch: 1,
    turns: true,
    quiet: true,
  },
  {
    name: 'Postgres, groupCommit: false, notify: false, 1 event per append',
    backend: 'postgres-each',
    batch: 1,
    quiet: true,
  },
];

interface Sample {
  eventsPerSecond: number;
  cpuMicrosPerEvent: number;
}

async function measure(test: Case): Promise<Sample> {
  const schema = `agentdeck_bench_${crypto.randomUUID().replaceAll('-', '')}`;
  const dir = mkdtempSync(join(tmpdir(), 'agentdeck-bench-'));
  const store: EventStore =
    test.backend === 'sqlite'
      ? new SqliteEventStore({ path: join(dir, 'state.db') })
      : new PostgresEventStore({
          url: URL,
          schema,
          groupCommit: test.backend === 'postgres',
          notify: !test.quiet,
        });
  const envelope = { runId: 'bench-run', sessionId: 's1', namespace: null, origin: 'bench' };
  try {
    await store.append([
      {
        ...envelope,
        kind: 'run.started',
        payload: { invocableType: 'agent', input: [new TextBlock('go')] },
      },
    ]);
    const delta = (i: number): NewEvent => ({
      ...envelope,
      kind: 'text.delta',
      payload: { messageId: 'msg-1', text: ` token${i}` },
    });
    const cpu = process.cpuUsage();
    const started = performance.now();
    for (let i = 0; i < TOKENS; i += test.batch) {
      const batch: NewEvent[] = [];
      for (let j = i; j < Math.min(TOKENS, i + test.batch); j += 1) batch.push(delta(j));
      await store.append(batch);
      if (test.turns) await new Promise(setImmediate);
    }
    await store.append([
      { ...envelope, kind: 'run.completed', payload: { output: [], usage: null } },
    ]);
    const seconds = (performance.now() - started) / 1000;
    const { user, system } = process.cpuUsage(cpu);
    const last = await store.getRun('bench-run');
    if (last?.lastSeq !== TOKENS + 1) {
      throw new Error(`expected lastSeq ${TOKENS + 1}, got ${last?.lastSeq}`);
    }
    const events = TOKENS + 1;
    return { eventsPerSecond: events / seconds, cpuMicrosPerEvent: (user + system) / events };
  } finally {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
    if (test.backend !== 'sqlite') await dropSchema(schema);
  }
}

async function dropSchema(schema: string): Promise<void> {
  const client = new pg.Client({ connectionString: URL });
  await client.connect();
  await client.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
  await client.end();
}

async function serverVersion(): Promise<string> {
  const client = new pg.Client({ connectionString: URL });
  await client.connect();
  const { rows } = await client.query<{ v: string }>(
    "SELECT current_setting('server_version') AS v",
  );
  const { rows: sync } = await client.query<{ s: string }>(
    "SELECT current_setting('synchronous_commit') AS s",
  );
  await client.end();
  return `PostgreSQL ${rows[0]?.v} on 127.0.0.1 (synchronous_commit = ${sync[0]?.s})`;
}

const fmt = (n: number) => Math.round(n).toLocaleString('en-US');

async function main(): Promise<void> {
  const load = loadAtStart();
  const server = await serverVersion();
  await measure(CASES[0] as Case); // warm up the JIT, the pool code and the server
  const rows: string[][] = [];
  const medians = new Map<Case, number>();
  for (const test of CASES) {
    const samples: Sample[] = [];
    for (let i = 0; i < RUNS; i += 1) samples.push(await measure(test));
    const rates = samples.map((s) => s.eventsPerSecond);
    medians.set(test, median(rates));
    const cpu = median(samples.map((s) => s.cpuMicrosPerEvent));
    const range = `${fmt(Math.min(...rates))} – ${fmt(Math.max(...rates))}`;
    const row = [test.name, `**${fmt(median(rates))}**`, range, cpu.toFixed(1)];
    rows.push(row);
    console.log(row.join(' | '));
  }
  const headline = medians.get(CASES[0] as Case) ?? 0;
  const sqlite = medians.get(CASES[4] as Case) ?? 0;
  const each = medians.get(CASES[2] as Case) ?? 0;
  writeSection('postgres-append.bench', [
    '## Streaming on Postgres (`npm run bench:postgres`)',
    '',
    `A ${TOKENS.toLocaleString('en-US')}-token streamed turn appended to one run: \`run.started\`, ${TOKENS.toLocaleString('en-US')} \`text.delta\`,`,
    "`run.completed`. The clock runs from the first delta until `run.completed`'s append resolves,",
    'when every mode has made the whole turn durable. Each case runs',
    `${RUNS} times on a fresh store (a new Postgres schema, or a new SQLite file); the table shows the`,
    'median rate and the range. "1 event per append" awaits each `append([event])` before the',
    'next, as a streamed turn does; "a turn between events" also waits for the next event-loop',
    'turn, as tokens arriving over a socket do. "CPU µs/event" is this process\'s CPU time only',
    "(the server's is not counted).",
    '',
    `**Headline: ${fmt(headline)} events/s** (median) on Postgres in its default configuration`,
    `(deltas written behind), one awaited append per token; ${fmt(each)}/s with \`groupCommit: false\``,
    `(a round trip per token); the SQLite default, same shape, same invocation: ${fmt(sqlite)}/s.`,
    'A Postgres store also announces its appends for live tails (LISTEN/NOTIFY, on by default: one',
    'NOTIFY statement per event-loop turn, after the commit); the `notify: false` rows price it.',
    '',
    `${machineLine(load)} ${server}.`,
    '',
    ...table(['case', 'events/s (median)', 'range', 'CPU µs/event'], rows),
  ]);
}

await main();
