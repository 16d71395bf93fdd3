/**
 * Bytes a run takes in the event stores, per workload: a streamed 500-token agent turn
 * (`run.started`, 500 one-token `text.delta` events of one message, `message.completed`,
 * `usage.reported`, `run.completed`, each appended alone and awaited, as the runtime records
 * a turn) and a 3-node workflow run answered after an interrupt (`node.updated` per node,
 * `run.interrupted`, the resume's `control.requested` / `run.resumed` / `control.observed`,
 * `run.completed`). Each workload writes many runs (40 turns, 400 workflow runs) to a fresh SQLite file (space counted
 * with `dbstat`: the pages of the event store's tables and indexes) and a fresh Postgres
 * schema (`pg_total_relation_size` of the same, after a `VACUUM`), minus the empty store.
 *
 * Run: `npm run bench:bytes` (or `npx tsx bench/run-bytes.bench.ts [runs]`); Postgres at
 * TEST_POSTGRES_URL (default the local `test` database; `SKIP_POSTGRES=1` to leave it out).
 * `RUN_BYTES_SRC=/path/to/src` measures another checkout's stores (the layout before a
 * change) and prints without writing; otherwise it rewrites its section of bench/RESULTS.md.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import pg from 'pg';
import type { NewEvent } from '../src/core/events.js';
import type { EventStore } from '../src/core/store.js';
import { loadAtStart, machineLine, table, writeSection } from './support/report.js';

const RUNS = Number(process.argv[2] ?? 40);
const TOKENS = 500;
const SRC = resolve(process.env.RUN_BYTES_SRC ?? new URL('../src', import.meta.url).pathname);
const OTHER_SRC = process.env.RUN_BYTES_SRC !== undefined;
const PG_URL = process.env.TEST_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const TABLES = ['events', 'runs', 'control_requests'];

type Workload = (store: EventStore, runId: string) => Promise<void>;

const envelope = (runId: string, sessionId: string) => ({
  runId,
  sessionId,
  namespace: null,
  origin: 'support-agent',
});

/** One streamed agent turn, as `agent-turn.ts` records it. */
const agentTurn: Workload = async (store, runId) => {
  const env = envelope(runId, crypto.randomUUID());
  const text = { type: 'text', text: 'What is the refund policy for annual plans?' };
  await store.append([
    { ...env, kind: 'run.started', payload: { invocableType: 'agent', input: [text] } },
  ] as NewEvent[]);
  const messageId = crypto.randomUUID();
  const tokens: string[] = [];
  for (let i = 0; i < TOKENS; i += 1) {
    const token = i % 7 === 0 ? ' the' : ` word${i % 50}`;
    tokens.push(token);
    await store.append([{ ...env, kind: 'text.delta', payload: { messageId, text: token } }]);
  }
  const content = [{ type: 'text', text: tokens.join('') }];
  const usage = { requests: 1, inputTokens: 812, outputTokens: TOKENS, totalTokens: 1312 };
  await store.append([
    { ...env, kind: 'message.completed', payload: { messageId, role: 'assistant', content } },
  ] as NewEvent[]);
  await store.append([
    { ...env, kind: 'usage.reported', payload: { model: 'gpt-4o-mini', ...usage, usd: 0.0004 } },
  ]);
  await store.append([
    { ...env, kind: 'run.completed', payload: { output: content, usage: { ...usage, usd: null } } },
  ] as NewEvent[]);
};

/** A 3-node workflow run: two nodes, an interrupt answered by a resume, the last node. */
const workflowRun: Workload = async (store, runId) => {
  const env = { ...envelope(runId, crypto.randomUUID()), origin: 'refund-workflow' };
  const requestId = crypto.randomUUID();
  const node = (name: string, delta: unknown): NewEvent => ({
    ...env,
    kind: 'node.updated',
    payload: { node: name, delta },
  });
  const steps: NewEvent[] = [
    {
      ...env,
      kind: 'run.started',
      payload: { invocableType: 'workflow', input: [{ type: 'text', text: 'order 4411' }] },
    } as NewEvent,
    node('classify', { category: 'refund', confidence: 0.92 }),
    node('draft', { draft: 'We can refund order 4411 in full within 5 business days.' }),
    {
      ...env,
      kind: 'run.interrupted',
      payload: { payload: { question: 'Approve the refund of 49.00?' }, threadId: runId },
    },
    { ...env, kind: 'control.requested', payload: { verb: 'resume', reason: null, requestId } },
    { ...env, kind: 'run.resumed', payload: { requestId } },
    { ...env, kind: 'control.observed', payload: { verb: 'resume', requestId } },
    node('send', { sent: true, answer: { approved: true } }),
    {
      ...env,
      kind: 'run.completed',
      payload: { output: [{ type: 'text', text: 'refunded' }], usage: null },
    } as NewEvent,
  ];
  for (const step of steps) await store.append([step]);
};

/** Name, workload, how many runs: enough that page granularity (4-8 KiB) is noise. */
const WORKLOADS: Array<[string, Workload, number]> = [
  [`agent turn, ${TOKENS} text.delta`, agentTurn, RUNS],
  ['workflow, 3 nodes, interrupt + answer', workflowRun, RUNS * 10],
];

async function sqliteBytes(workload: Workload, runs: number): Promise<number> {
  const { SqliteEventStore } = await import(join(SRC, 'stores/sqlite/events.ts'));
  const dir = mkdtempSync(join(tmpdir(), 'agentdeck-bytes-'));
  const path = join(dir, 'state.db');
  const pages = () => {
    const db = new DatabaseSync(path);
    try {
      const rows = db
        .prepare('SELECT name, tbl_name FROM sqlite_schema WHERE type IN (?, ?)')
        .all('table', 'index')
        .filter((row) => TABLES.includes(String(row.tbl_name)))
        .map((row) => String(row.name));
      const sum = db.prepare('SELECT coalesce(sum(pgsize), 0) AS b FROM dbstat WHERE name = ?');
      return rows.reduce((total, name) => total + Number(sum.get(name)?.b), 0);
    } finally {
      db.close();
    }
  };
  try {
    const store = new SqliteEventStore({ path }) as EventStore;
    await store.getRun('none');
    await store.close();
    const empty = pages();
    const again = new SqliteEventStore({ path }) as EventStore;
    for (let i = 0; i < runs; i += 1) await workload(again, crypto.randomUUID());
    await again.close();
    return (pages() - empty) / runs;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

async function postgresBytes(workload: Workload, runs: number): Promise<number> {
  const { PostgresEventStore } = await import(join(SRC, 'stores/postgres/events.ts'));
  const schema = `agentdeck_bytes_${crypto.randomUUID().replaceAll('-', '')}`;
  const admin = new pg.Client({ connectionString: PG_URL });
  await admin.connect();
  const size = async () => {
    let total = 0;
    for (const name of TABLES) {
      await admin.query(`VACUUM ${schema}.${name}`);
      const { rows } = await admin.query('SELECT pg_total_relation_size($1) AS b', [
        `${schema}.${name}`,
      ]);
      total += Number(rows[0].b);
    }
    return total;
  };
  try {
    const store = new PostgresEventStore({ url: PG_URL, schema }) as EventStore;
    await store.getRun('none');
    const empty = await size();
    for (let i = 0; i < runs; i += 1) await workload(store, crypto.randomUUID());
    await store.close();
    return ((await size()) - empty) / runs;
  } finally {
    await admin.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
    await admin.end();
  }
}

const fmt = (n: number) => Math.round(n).toLocaleString('en-US');

async function main(): Promise<void> {
  const load = loadAtStart();
  const rows: string[][] = [];
  for (const [name, workload, runs] of WORKLOADS) {
    const sqlite = await sqliteBytes(workload, runs);
    const postgres = process.env.SKIP_POSTGRES ? Number.NaN : await postgresBytes(workload, runs);
    rows.push([
      `${name} (${runs} runs)`,
      fmt(sqlite),
      Number.isNaN(postgres) ? 'n/a' : fmt(postgres),
    ]);
    console.log(`${name}: SQLite ${fmt(sqlite)} B/run, Postgres ${fmt(postgres)} B/run`);
  }
  const lines = [
    '## Bytes per run (`npm run bench:bytes`)',
    '',
    'Bytes a run takes in the event store (its tables and indexes: SQLite `dbstat`, Postgres',
    '`pg_total_relation_size` after `VACUUM`), over many runs, the empty store subtracted.',
    '',
    ...table(['workload', 'SQLite B/run', 'Postgres B/run'], rows),
    '',
    machineLine(load),
    '',
  ];
  console.log(lines.join('\n'));
  if (!OTHER_SRC) writeSection('run-bytes.bench', lines);
}

await main();
