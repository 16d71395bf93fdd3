/**
 * What clients following a waiting run cost while nothing happens: 2,000 `GET
 * /runs/{id}/events` streams of one approval workflow run that waits for an answer, through a
 * real server (`serve()` on a socket, the clients' `fetch` in the same process), on the SQLite
 * default. Two cases, measured side by side, rounds alternating:
 *
 * - `notices`: the store as it is; a tail waits for the store's append notice
 *   (`AppendNotifier`) and reads nothing meanwhile;
 * - `polling`: the same store behind a view without `watchRun`, so each tail reads the store
 *   every 250 ms (10 ms at first, doubling), as every tail on SQLite or memory did before the
 *   stores announced appends.
 *
 * Reported: the process's CPU time (user + system) over an idle window, once every client has
 * its first frames, as cores (CPU ms per wall ms); and how long after the answer every client
 * had the run's last event (the notice path must not be slower to deliver).
 *
 * Run: `npm run bench:idle-tails` (or `npx tsx bench/idle-tails.bench.ts [rounds] [clients]`).
 * It rewrites its own section of bench/RESULTS.md.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { Agent as HttpAgent, request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Deck, type EventStore } from '../src/index.js';
import { SqliteEventStore } from '../src/stores/sqlite/events.js';
import { serve } from '../src/surfaces/http/index.js';
import { approval } from '../test/support/workflows.js';
import { loadAtStart, machineLine, median, table, writeSection } from './support/report.js';

const ROUNDS = Number(process.argv[2] ?? 3);
const CLIENTS = Number(process.argv[3] ?? 2_000);
/** The idle window measured, after every client has its first frames and a settling pause. */
const WINDOW_MS = 5_000;
const SETTLE_MS = 1_000;

type Mode = 'notices' | 'polling';

/** `store` without `watchRun`: a tail of it polls, as tails of SQLite did before notices. */
function withoutNotices(store: EventStore): EventStore {
  return new Proxy(store, {
    get(target, property) {
      if (property === 'watchRun') return undefined;
      const value: unknown = Reflect.get(target, property);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}

interface Sample {
  cores: number;
  /** ms from the answer until every client had the run's last event. */
  delivered: number;
}

/** Open a follower; resolves once its first frames arrived, with a promise of its whole body. */
function follow(agent: HttpAgent, port: number, runId: string) {
  return new Promise<{ ended: Promise<string>; close(): void }>((resolve, reject) => {
    const req = request(
      { agent, host: '127.0.0.1', port, path: `/runs/${runId}/events`, method: 'GET' },
      (res) => {
        let body = '';
        let first = true;
        const ended = new Promise<string>((done) => {
          res.on('data', (chunk: Buffer) => {
            body += chunk.toString('utf8');
            if (first) {
              first = false;
              resolve({ ended, close: () => req.destroy() });
            }
          });
          res.on('end', () => done(body));
          res.on('error', () => done(body));
          res.on('close', () => done(body));
        });
      },
    );
    req.on('error', reject);
    req.end();
  });
}

async function measure(mode: Mode): Promise<Sample> {
  const dir = mkdtempSync(join(tmpdir(), 'agentdeck-idle-tails-'));
  const store = new SqliteEventStore({ path: join(dir, 'state.db') });
  const deck = new Deck({
    eventStore: mode === 'notices' ? store : withoutNotices(store),
    workflows: [approval()],
  });
  const server = await serve(deck, { host: '127.0.0.1', port: 0, handleSignals: false });
  const agent = new HttpAgent({ keepAlive: false, maxSockets: Number.POSITIVE_INFINITY });
  try {
    const started = await fetch(`${server.url}/workflows/approval?thread_id=bench`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ amount: 3 }),
    });
    await started.text();
    const runId = started.headers.get('x-run-id') ?? '';
    const followers = [];
    for (let i = 0; i < CLIENTS; i += 100) {
      const batch = Array.from({ length: Math.min(100, CLIENTS - i) }, () =>
        follow(agent, server.port, runId),
      );
      followers.push(...(await Promise.all(batch)));
    }
    await new Promise((done) => setTimeout(done, SETTLE_MS));
    const cpuAt = process.cpuUsage();
    const wallAt = performance.now();
    await new Promise((done) => setTimeout(done, WINDOW_MS));
    const used = process.cpuUsage(cpuAt);
    const cores = (used.user + used.system) / 1000 / (performance.now() - wallAt);
    const answeredAt = performance.now();
    const answer = await fetch(`${server.url}/runs/${runId}/answer`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ value: { approved: true } }),
    });
    await answer.text();
    const bodies = await Promise.all(followers.map((f) => f.ended));
    const delivered = performance.now() - answeredAt;
    const complete = bodies.filter((body) => body.includes('"kind":"run.completed"')).length;
    if (complete !== CLIENTS) throw new Error(`${mode}: ${complete} of ${CLIENTS} saw the end`);
    return { cores, delivered };
  } finally {
    agent.destroy();
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  const load = loadAtStart();
  const modes: Mode[] = ['polling', 'notices'];
  const samples: Record<Mode, Sample[]> = { polling: [], notices: [] };
  for (let round = 0; round < ROUNDS; round += 1) {
    for (const mode of round % 2 === 0 ? modes : [...modes].reverse()) {
      const sample = await measure(mode);
      samples[mode].push(sample);
      console.log(
        `round ${round + 1} ${mode}: ${sample.cores.toFixed(3)} cores idle, ` +
          `last event to all ${sample.delivered.toFixed(0)} ms`,
      );
    }
  }
  const cores = (mode: Mode) => median(samples[mode].map((s) => s.cores));
  const delivered = (mode: Mode) => median(samples[mode].map((s) => s.delivered));
  const rows = modes.map((mode) => [
    mode === 'polling' ? 'polling (before: each tail reads every 250 ms)' : 'notices (after)',
    cores(mode).toFixed(3),
    `${(cores(mode) * 1000).toFixed(0)} ms/s`,
    `${delivered(mode).toFixed(0)} ms`,
  ]);
  writeSection('idle-tails.bench', [
    '## Idle followers of a waiting run (`npm run bench:idle-tails`)',
    '',
    `${CLIENTS} clients follow \`GET /runs/{id}/events\` of one approval run waiting for an`,
    `answer, through \`serve()\` on the SQLite default (clients in the same process); the`,
    `process's CPU over ${WINDOW_MS / 1000} s of idleness, then the time from the answer until`,
    `every client had \`run.completed\`; median of ${ROUNDS} rounds, cases alternating.`,
    '',
    ...table(['case', 'cores while idle', 'CPU', 'answer to all clients'], rows),
    '',
    machineLine(load),
  ]);
}

await main();
