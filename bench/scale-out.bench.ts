/**
 * Agent chat throughput of real `service-serve` processes (`npm run bench:scale`): the SQLite
 * default (one process, as a single machine runs it), and Postgres + Redis with one and with
 * two server processes sharing one database and one Redis (the load split between them, as
 * a load balancer would). Then the cost of a long streamed turn per token on each backend,
 * and, at the store alone, what the append notices (LISTEN/NOTIFY for live tails) cost 32
 * concurrent streamed turns.
 *
 * Each process serves test/fixtures/scale (the `helper` agent, no tools). A chat turn is one
 * model call answering 20 tokens at zero delay from a `scriptedModelServer` in this process,
 * which is also the load: 32 keep-alive connections, each sending `POST /agents/helper/chat`
 * with a fresh session (so every turn claims its session, reads and writes its history in
 * the session backend and records ~25 events), one after another. Rounds alternate the cases
 * so machine noise falls on all; req/s is the median over rounds. It rewrites its own section
 * of bench/RESULTS.md.
 *
 * Needs Postgres (TEST_POSTGRES_URL, default postgres://postgres@127.0.0.1:5432/test) and
 * Redis (TEST_REDIS_URL, default redis://127.0.0.1:6379). Run: `npm run bench:scale` or
 * `npx tsx bench/scale-out.bench.ts [rounds] [seconds]`.
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Redis } from 'ioredis';
import pg from 'pg';
import { TextBlock } from '../src/core/blocks.js';
import type { NewEvent } from '../src/core/events.js';
import { PostgresEventStore } from '../src/stores/postgres/events.js';
import { scriptedModelServer } from '../src/testing/index.js';
import { startServer } from '../test/support/server-process.js';
import { loadAtStart, machineLine, median, table, writeSection } from './support/report.js';

const ROUNDS = Number(process.argv[2] ?? 3);
const SECONDS = Number(process.argv[3] ?? 4);
const CONNECTIONS = 32;
const LONG_TOKENS = 1_000;
const LONG_TURNS = 5;
const POSTGRES_URL = process.env.TEST_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
const PROJECT = resolve(import.meta.dirname, '../test/fixtures/scale/.agentdeck');
const ANSWER = Array.from({ length: 20 }, (_, i) => `w${i} `);

const database = `agentdeck_bench_${randomUUID().replaceAll('-', '')}`;
const databaseUrl = new URL(POSTGRES_URL);
databaseUrl.pathname = `/${database}`;
const keyPrefix = `agentdeck-bench:${randomUUID()}:`;
const dir = mkdtempSync(join(tmpdir(), 'agentdeck-scale-bench-'));

async function admin(sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: POSTGRES_URL });
  await client.connect();
  await client.query(sql).finally(() => client.end());
}

interface Case {
  name: string;
  /** The servers a connection is sent to, connection i to servers[i % length]. */
  servers: string[];
}

interface Round {
  requests: number;
  seconds: number;
  latencies: number[];
  failures: number;
}

async function load(model: Awaited<ReturnType<typeof scriptedModelServer>>, test: Case) {
  const latencies: number[] = [];
  let failures = 0;
  let n = 0;
  const started = performance.now();
  const until = started + SECONDS * 1000;
  await Promise.all(
    Array.from({ length: CONNECTIONS }, async (_, i) => {
      const server = test.servers[i % test.servers.length] as string;
      while (performance.now() < until) {
        model.push({ text: ANSWER });
        const t0 = performance.now();
        const response = await fetch(`${server}/agents/helper/chat`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ session_id: `c${i}-${n++}`, message: 'When?' }),
        });
        await response.arrayBuffer();
        if (response.status === 200) latencies.push(performance.now() - t0);
        else failures++;
      }
    }),
  );
  const round: Round = {
    requests: latencies.length,
    seconds: (performance.now() - started) / 1000,
    latencies,
    failures,
  };
  return round;
}

/** One long turn at a time: ms per turn of LONG_TOKENS tokens, over HTTP, JSON answer. */
async function longTurns(model: Awaited<ReturnType<typeof scriptedModelServer>>, server: string) {
  const text = Array.from({ length: LONG_TOKENS }, (_, i) => `t${i} `);
  const times: number[] = [];
  for (let k = 0; k < LONG_TURNS; k++) {
    model.push({ text });
    const t0 = performance.now();
    const response = await fetch(`${server}/agents/helper/chat`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ session_id: `long-${randomUUID()}`, message: 'Tell me all.' }),
    });
    await response.arrayBuffer();
    if (response.status !== 200) throw new Error(`long turn failed: ${response.status}`);
    times.push(performance.now() - t0);
  }
  return median(times);
}

/**
 * Store only: 32 concurrent turns, each `run.started`, 20 `text.delta` (a turn between
 * tokens), `message.completed`, `run.completed`, on a fresh schema; turns/s.
 */
async function storeTurns(notify: boolean): Promise<number> {
  const schema = `agentdeck_bench_${randomUUID().replaceAll('-', '')}`;
  const store = new PostgresEventStore({ url: POSTGRES_URL, schema, notify });
  await store.connect();
  let turns = 0;
  const started = performance.now();
  const until = started + SECONDS * 1000;
  await Promise.all(
    Array.from({ length: CONNECTIONS }, async (_, c) => {
      for (let k = 0; performance.now() < until; k++) {
        const envelope = { runId: `r${c}-${k}`, sessionId: null, namespace: null, origin: 'b' };
        const event = (kind: string, payload: object) =>
          ({ ...envelope, kind, payload }) as NewEvent;
        await store.append([
          event('run.started', { invocableType: 'agent', input: [new TextBlock('go')] }),
        ]);
        for (const text of ANSWER) {
          await store.append([event('text.delta', { messageId: 'm', text })]);
          await new Promise(setImmediate);
        }
        await store.append([
          event('message.completed', { messageId: 'm', content: [new TextBlock(ANSWER.join(''))] }),
        ]);
        await store.append([event('run.completed', { output: [], usage: null })]);
        turns++;
      }
    }),
  );
  const rate = turns / ((performance.now() - started) / 1000);
  await store.close();
  const client = new pg.Client({ connectionString: POSTGRES_URL });
  await client.connect();
  await client.query(`DROP SCHEMA ${schema} CASCADE`).finally(() => client.end());
  return rate;
}

const percentile = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;
};
const fmt = (n: number) => Math.round(n).toLocaleString('en-US');

async function main(): Promise<void> {
  const loadStart = loadAtStart();
  await admin(`CREATE DATABASE ${database}`);
  const model = await scriptedModelServer([]);
  const common = { OPENAI_BASE_URL: model.url, OPENAI_API_KEY: 'sk-bench' };
  const shared = {
    ...common,
    SERVICE_EVENTS: databaseUrl.href,
    SERVICE_SESSION: REDIS_URL,
    SERVICE_SESSION_KEY_PREFIX: keyPrefix,
  };
  const processes = [
    startServer(PROJECT, { ...common, SERVICE_EVENTS: `sqlite://${join(dir, 'state.db')}` }),
    startServer(PROJECT, shared),
    startServer(PROJECT, shared),
  ];
  try {
    const [sqlite, pg1, pg2] = await Promise.all(processes.map((p) => p.url));
    const cases: Case[] = [
      {
        name: 'SQLite default (events + checkpoints in one file, in-process sessions), 1 process',
        servers: [sqlite as string],
      },
      { name: 'Postgres + Redis, 1 process', servers: [pg1 as string] },
      {
        name: 'Postgres + Redis, 2 processes (connections split)',
        servers: [pg1 as string, pg2 as string],
      },
    ];
    await load(model, {
      name: 'warm-up',
      servers: [sqlite as string, pg1 as string, pg2 as string],
    });
    const rounds = new Map<Case, Round[]>(cases.map((test) => [test, []]));
    for (let r = 0; r < ROUNDS; r++) {
      const order = r % 2 === 0 ? cases : [...cases].reverse();
      for (const test of order) {
        const round = await load(model, test);
        rounds.get(test)?.push(round);
        console.log(
          `${test.name}: ${fmt(round.requests / round.seconds)} req/s, ${round.failures} failed`,
        );
      }
    }
    const rows = cases.map((test) => {
      const list = rounds.get(test) ?? [];
      const rates = list.map((round) => round.requests / round.seconds);
      const all = list.flatMap((round) => round.latencies);
      return [
        test.name,
        `**${fmt(median(rates))}**`,
        `${fmt(Math.min(...rates))} – ${fmt(Math.max(...rates))}`,
        percentile(all, 50).toFixed(1),
        percentile(all, 99).toFixed(1),
        String(list.reduce((sum, round) => sum + round.failures, 0)),
      ];
    });
    const longSqlite = await longTurns(model, sqlite as string);
    const longPg = await longTurns(model, pg1 as string);
    const perToken = (ms: number) => ((ms * 1000) / LONG_TOKENS).toFixed(0);
    const notices: Record<'on' | 'off', number[]> = { on: [], off: [] };
    for (let r = 0; r < ROUNDS; r++) {
      notices.on.push(await storeTurns(true));
      notices.off.push(await storeTurns(false));
    }
    const noticeRow = (name: string, rates: number[]) => [
      name,
      `**${fmt(median(rates))}**`,
      `${fmt(Math.min(...rates))} – ${fmt(Math.max(...rates))}`,
    ];
    const rates = rows.map((row) => (row[1] ?? '').replaceAll('*', ''));
    writeSection('scale-out.bench', [
      '## Scale-out: chat over 1 and 2 server processes (`npm run bench:scale`)',
      '',
      `Real \`service-serve\` processes serving test/fixtures/scale (agent \`helper\`, no tools), ${CONNECTIONS}`,
      'keep-alive connections from the bench process, each sending `POST /agents/helper/chat` with a fresh',
      'session one after another; a turn is one model call answering 20 tokens at zero delay',
      '(`scriptedModelServer`, in the bench process). With 2 processes, connection i goes to process i mod 2',
      `(a load balancer's split). ${ROUNDS} rounds of ${SECONDS} s per case, alternating order; req/s is the`,
      'median over rounds, latencies over all requests.',
      '',
      `**Chat req/s: SQLite default ${rates[0]}, Postgres + Redis with 1 process ${rates[1]}, with 2 processes ${rates[2]}.**`,
      '',
      `A ${fmt(LONG_TOKENS)}-token answer, one turn at a time (median of ${LONG_TURNS}, request to last byte of`,
      `the JSON answer): SQLite ${longSqlite.toFixed(0)} ms (${perToken(longSqlite)} µs per token), Postgres + Redis`,
      `${longPg.toFixed(0)} ms (${perToken(longPg)} µs per token); the store's own per-token cost is in the`,
      '`bench:postgres` section above.',
      '',
      `${machineLine(loadStart)} Postgres and Redis on the same machine.`,
      '',
      ...table(['case', 'req/s (median)', 'range', 'p50 ms', 'p99 ms', 'failed'], rows),
      '',
      `The append notices at the store alone: ${CONNECTIONS} concurrent streamed turns (\`run.started\`, 20 deltas a`,
      'turn apart, `message.completed`, `run.completed`) on one `PostgresEventStore`, with the notices on',
      `(the default) and off (\`notify: false\`), alternating, ${ROUNDS} rounds of ${SECONDS} s:`,
      '',
      ...table(
        ['store', 'turns/s (median)', 'range'],
        [
          noticeRow('Postgres, notify on (default)', notices.on),
          noticeRow('Postgres, notify: false', notices.off),
        ],
      ),
    ]);
  } finally {
    for (const p of processes) p.child.kill('SIGTERM');
    await Promise.all(processes.map((p) => p.exited));
    await model.close();
    await admin(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`);
    const redis = new Redis(REDIS_URL);
    let cursor = '0';
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', `${keyPrefix}*`, 'COUNT', 1000);
      if (keys.length > 0) await redis.del(...keys);
      cursor = next;
    } while (cursor !== '0');
    await redis.quit();
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
