/**
 * Append throughput of the event stores for a token-by-token stream: 10,000 `text.delta`
 * events to one run, after its `run.started`. The case that matters is one event per
 * `append` call, each awaited before the next (a streamed turn stores a token, then yields
 * it); batched appends are measured for comparison, and the memory backend as a ceiling.
 * Each case runs several times on a fresh store (a new SQLite file each time); the median
 * is reported, with the CPU time the process spent per event, which is less sensitive to
 * other load on a shared machine than wall-clock time.
 *
 * Run: `npm run bench:append` (or `npx tsx bench/append.bench.ts [runs]`). It rewrites its
 * own section of bench/RESULTS.md.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { TextBlock } from '../src/core/blocks.js';
import type { NewEvent } from '../src/core/events.js';
import type { EventStore } from '../src/core/store.js';
import { MemoryEventStore } from '../src/stores/memory/events.js';
import { SqliteEventStore } from '../src/stores/sqlite/events.js';

const EVENTS = 10_000;
const BATCH = 100;
const RUNS = Number(process.argv[2] ?? 7);
const RESULTS = new URL('./RESULTS.md', import.meta.url);
const START = '<!-- append.bench:start -->';
const END = '<!-- append.bench:end -->';

interface Case {
  name: string;
  backend: 'sqlite' | 'memory';
  /** Events per `append` call. */
  batch: number;
}

const CASES: Case[] = [
  { name: 'SQLite, 1 event per append (awaited)', backend: 'sqlite', batch: 1 },
  { name: `SQLite, ${BATCH} events per append`, backend: 'sqlite', batch: BATCH },
  { name: 'memory, 1 event per append (awaited)', backend: 'memory', batch: 1 },
  { name: `memory, ${BATCH} events per append`, backend: 'memory', batch: BATCH },
];

interface Sample {
  eventsPerSecond: number;
  cpuMicrosPerEvent: number;
}

async function measure(test: Case): Promise<Sample> {
  const dir = mkdtempSync(join(tmpdir(), 'agentdeck-bench-'));
  const store: EventStore =
    test.backend === 'sqlite'
      ? new SqliteEventStore({ path: join(dir, 'state.db') })
      : new MemoryEventStore();
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
    for (let i = 0; i < EVENTS; i += test.batch) {
      const batch: NewEvent[] = [];
      for (let j = i; j < Math.min(EVENTS, i + test.batch); j += 1) batch.push(delta(j));
      await store.append(batch);
    }
    const seconds = (performance.now() - started) / 1000;
    const { user, system } = process.cpuUsage(cpu);
    const last = await store.getRun('bench-run');
    if (last?.lastSeq !== EVENTS) throw new Error(`expected lastSeq ${EVENTS}, got ${last?.lastSeq}`);
    return { eventsPerSecond: EVENTS / seconds, cpuMicrosPerEvent: (user + system) / EVENTS };
  } finally {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? (sorted[mid] ?? 0) : ((sorted[mid - 1] ?? 0) + (sorted[mid] ?? 0)) / 2;
};
const fmt = (n: number) => Math.round(n).toLocaleString('en-US');

async function main(): Promise<void> {
  const load = loadavg().map((n) => n.toFixed(2));
  await measure(CASES[0] as Case); // warm up the JIT and the file system
  const rows: string[] = [];
  for (const test of CASES) {
    const samples: Sample[] = [];
    for (let i = 0; i < RUNS; i += 1) samples.push(await measure(test));
    const rates = samples.map((s) => s.eventsPerSecond);
    const cpu = median(samples.map((s) => s.cpuMicrosPerEvent));
    const row = `| ${test.name} | **${fmt(median(rates))}** | ${fmt(Math.min(...rates))} – ${fmt(Math.max(...rates))} | ${cpu.toFixed(1)} | ${fmt(1e6 / cpu)} |`;
    rows.push(row);
    console.log(row);
  }
  const cpu = cpus()[0]?.model ?? 'unknown CPU';
  const section = [
    START,
    '## Append throughput (`npm run bench:append`)',
    '',
    `${EVENTS.toLocaleString('en-US')} \`text.delta\` events appended to one run (after its`,
    '`run.started`), each case run ' +
      `${RUNS} times on a fresh store (a new SQLite file in the OS temp directory); the`,
    'median wall-clock rate is shown, with the range over the runs. "1 event per append" awaits',
    'each `append([event])` before the next, as a streamed turn does (store, then yield). CPU',
    'µs/event is the process CPU time (user + system) per event, and the last column the rate',
    'that CPU time alone would allow: it is less affected by other work on a shared machine.',
    '',
    `Machine: ${cpus().length} cores (${cpu}), load average ${load.join(' / ')} at start; ` +
      `Node ${process.version}, SQLite ${sqliteVersion()}; ${new Date().toISOString()}.`,
    '',
    '| case | events/s (median) | range | CPU µs/event | events/s at CPU cost |',
    '|---|---:|---:|---:|---:|',
    ...rows,
    END,
  ].join('\n');
  writeResults(section);
}

function sqliteVersion(): string {
  return (process.versions as Record<string, string | undefined>).sqlite ?? 'unknown';
}

function writeResults(section: string): void {
  const header = '# Benchmarks\n\nEach script writes its own section below; rerun it to update.\n';
  const current = existsSync(RESULTS) ? readFileSync(RESULTS, 'utf8') : header;
  const start = current.indexOf(START);
  const end = current.indexOf(END);
  const next =
    start >= 0 && end > start
      ? `${current.slice(0, start)}${section}${current.slice(end + END.length)}`
      : `${current.trimEnd()}\n\n${section}\n`;
  writeFileSync(RESULTS, next);
}

await main();
