/**
 * Append throughput of the event stores for a token-by-token stream: 10,000 `text.delta`
 * events to one run, after its `run.started`. The case that matters (the headline) is the
 * SQLite store in its default configuration (group commit on), one event per `append` call,
 * each awaited before the next (a streamed turn stores a token, then yields it);
 * `groupCommit: false`, batched appends and the memory backend are measured for comparison.
 * Each case runs several times on a fresh store (a new SQLite file each time); the median
 * is reported, with the CPU time the process spent per event, which is less sensitive to
 * other load on a shared machine than wall-clock time.
 *
 * Run: `npm run bench:append` (or `npx tsx bench/append.bench.ts [runs]`). It rewrites its
 * own section of bench/RESULTS.md.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { TextBlock } from '../src/core/blocks.js';
import type { NewEvent } from '../src/core/events.js';
import type { EventStore } from '../src/core/store.js';
import { MemoryEventStore } from '../src/stores/memory/events.js';
import { SqliteEventStore } from '../src/stores/sqlite/events.js';
import { loadAtStart, machineLine, median, table, writeSection } from './support/report.js';

const EVENTS = 10_000;
const BATCH = 100;
const RUNS = Number(process.argv[2] ?? 7);

interface Case {
  name: string;
  /** `sqlite`: the default options (group commit on); `sqlite-each`: `groupCommit: false`. */
  backend: 'sqlite' | 'sqlite-each' | 'memory' | 'raw';
  /** Events per `append` call. */
  batch: number;
  /** Wait for the next event-loop turn between appends, as tokens arriving over a socket do. */
  turns?: boolean;
}

/** The first case is the headline: the default configuration, one awaited append per event. */
const CASES: Case[] = [
  { name: 'SQLite (default: group commit), 1 event per append', backend: 'sqlite', batch: 1 },
  {
    name: 'SQLite (default), 1 event per append, a turn between events',
    backend: 'sqlite',
    batch: 1,
    turns: true,
  },
  { name: 'SQLite, groupCommit: false, 1 event per append', backend: 'sqlite-each', batch: 1 },
  {
    name: 'SQLite, groupCommit: false, 1 event per append, a turn between events',
    backend: 'sqlite-each',
    batch: 1,
    turns: true,
  },
  { name: `SQLite (default), ${BATCH} events per append`, backend: 'sqlite', batch: BATCH },
  { name: 'reference: bare node:sqlite INSERT per event, same schema', backend: 'raw', batch: 1 },
  { name: 'memory, 1 event per append', backend: 'memory', batch: 1 },
  { name: `memory, ${BATCH} events per append`, backend: 'memory', batch: BATCH },
];

interface Sample {
  eventsPerSecond: number;
  cpuMicrosPerEvent: number;
}

async function measure(test: Case): Promise<Sample> {
  const dir = mkdtempSync(join(tmpdir(), 'agentdeck-bench-'));
  const path = join(dir, 'state.db');
  const store: EventStore =
    test.backend === 'memory'
      ? new MemoryEventStore()
      : test.backend === 'sqlite-each'
        ? new SqliteEventStore({ path, groupCommit: false })
        : new SqliteEventStore({ path });
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
    if (test.backend === 'raw') await store.close();
    const append = test.backend === 'raw' ? bareInsert(path) : (e: NewEvent[]) => store.append(e);
    const cpu = process.cpuUsage();
    const started = performance.now();
    for (let i = 0; i < EVENTS; i += test.batch) {
      const batch: NewEvent[] = [];
      for (let j = i; j < Math.min(EVENTS, i + test.batch); j += 1) batch.push(delta(j));
      await append(batch);
      if (test.turns) await new Promise(setImmediate);
    }
    const seconds = (performance.now() - started) / 1000;
    const { user, system } = process.cpuUsage(cpu);
    if (test.backend === 'raw') {
      return { eventsPerSecond: EVENTS / seconds, cpuMicrosPerEvent: (user + system) / EVENTS };
    }
    const last = await store.getRun('bench-run');
    if (last?.lastSeq !== EVENTS)
      throw new Error(`expected lastSeq ${EVENTS}, got ${last?.lastSeq}`);
    return { eventsPerSecond: EVENTS / seconds, cpuMicrosPerEvent: (user + system) / EVENTS };
  } finally {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * The floor under the store: one autocommit INSERT per event into the same table, with the
 * seq counted in JavaScript and the payload serialized once, on its own connection.
 */
function bareInsert(path: string): (events: NewEvent[]) => Promise<void> {
  const db = new DatabaseSync(path, { timeout: 5_000 });
  db.exec('PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL;');
  const insert = db.prepare(
    'INSERT INTO events (run_id, seq, kind, ts, payload, env) VALUES (?, ?, ?, ?, ?, NULL)',
  );
  let seq = 1;
  return async (events) => {
    for (const e of events) {
      const payload = JSON.stringify(e.payload);
      insert.run(e.runId, seq++, e.kind, Date.now(), payload);
      if (seq > EVENTS) db.close();
    }
  };
}

const fmt = (n: number) => Math.round(n).toLocaleString('en-US');

async function main(): Promise<void> {
  const load = loadAtStart();
  await measure(CASES[0] as Case); // warm up the JIT and the file system
  const rows: string[][] = [];
  let headline = 0;
  for (const test of CASES) {
    const samples: Sample[] = [];
    for (let i = 0; i < RUNS; i += 1) samples.push(await measure(test));
    const rates = samples.map((s) => s.eventsPerSecond);
    if (test === CASES[0]) headline = median(rates);
    const cpu = median(samples.map((s) => s.cpuMicrosPerEvent));
    const range = `${fmt(Math.min(...rates))} – ${fmt(Math.max(...rates))}`;
    const row = [test.name, `**${fmt(median(rates))}**`, range, cpu.toFixed(1), fmt(1e6 / cpu)];
    rows.push(row);
    console.log(row.join(' | '));
  }
  writeSection('append.bench', [
    '## Append throughput (`npm run bench:append`)',
    '',
    `${EVENTS.toLocaleString('en-US')} \`text.delta\` events appended to one run (after its \`run.started\`). Each case runs`,
    `${RUNS} times on a fresh store (a new SQLite file in the OS temp directory); the table shows the`,
    'median wall-clock rate and the range over the runs. "1 event per append" awaits each',
    '`append([event])` before the next, as a streamed turn does (store, then yield); "a turn between',
    'events" also waits for the next event-loop turn, as tokens arriving over a socket do. "CPU',
    'µs/event" is the process CPU time (user + system) per event, and the last column the rate that',
    'CPU time alone would allow, which other work on a shared machine disturbs less. The reference',
    'row is one bare autocommit INSERT per event through `node:sqlite`: the floor under',
    '`groupCommit: false`.',
    '',
    `**Headline: ${fmt(headline)} events/s** (median): ${EVENTS.toLocaleString('en-US')} \`text.delta\` appends, each`,
    'awaited before the next, to the SQLite store in its default configuration (group commit).',
    '',
    machineLine(load),
    '',
    ...table(['case', 'events/s (median)', 'range', 'CPU µs/event', 'events/s at CPU cost'], rows),
  ]);
}

await main();
