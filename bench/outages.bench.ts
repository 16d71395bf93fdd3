/**
 * Recovery after a backend outage (`npm run bench:outages`): how long a `service-serve`
 * process takes to answer 200 again once its backend is back, with no restart of its own.
 * Each case is repeated on servers of the bench's own (a Postgres cluster from initdb, a
 * Redis child process, a tmpfs for the full disk), under steady load from 6 clients: the
 * backend goes down for 2 s, comes back, and one probe request every 20 ms times the first
 * 200 from the moment the backend answers again (its own start command returned, or the
 * filler removed). Also printed: how clients were answered while it was down.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { scriptedModelServer } from '../src/testing/index.js';
import { type LoadKind, startLoad, statusCounts, timeToFirstOk } from '../test/support/load.js';
import { startOwnPostgres } from '../test/support/own-postgres.js';
import { startOwnRedis } from '../test/support/own-redis.js';
import { type ServerProcess, startServer } from '../test/support/server-process.js';
import { mountSmallDisk } from '../test/support/small-disk.js';
import { loadAtStart, machineLine, median, table, writeSection } from './support/report.js';

const PROJECT = join(resolve(import.meta.dirname, '..'), 'test/fixtures/scale/.agentdeck');
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const DOWN_MS = 2_000;
const sleep = (ms: number) => new Promise((done) => setTimeout(done, ms));

interface Outage {
  name: string;
  kind: LoadKind;
  /** Start what the case needs; the env of the server and a way to break and mend it. */
  setUp(): Promise<{
    env: Record<string, string>;
    cwd?: string;
    down(): Promise<void>;
    up(): Promise<void>;
    tearDown(): Promise<void>;
  }>;
}

const model = await scriptedModelServer([]);
const modelEnv = { OPENAI_BASE_URL: model.url, OPENAI_API_KEY: 'sk-bench' };

const outages: Outage[] = [
  {
    name: 'Postgres (events, claims, checkpoints) stopped with -m immediate',
    kind: 'workflow',
    async setUp() {
      const postgres = await startOwnPostgres();
      return {
        env: { SERVICE_EVENTS: postgres.url },
        down: () => postgres.stop('immediate'),
        up: () => postgres.start(),
        tearDown: () => postgres.destroy(),
      };
    },
  },
  {
    name: 'Redis (sessions) killed with SIGKILL',
    kind: 'chat',
    async setUp() {
      const redis = await startOwnRedis();
      const cwd = mkdtempSync(join(tmpdir(), 'agentdeck-bench-redis-'));
      return {
        env: { SERVICE_SESSION: redis.url },
        cwd,
        down: () => redis.stop('SIGKILL'),
        up: () => redis.start(),
        tearDown: async () => {
          await redis.destroy();
          rmSync(cwd, { recursive: true, force: true });
        },
      };
    },
  },
  {
    name: "SQLite file's disk full (a filler takes the tmpfs's last bytes)",
    kind: 'workflow',
    async setUp() {
      const disk = await mountSmallDisk(256 * 1024 * 1024);
      if ('skipped' in disk) throw new Error(`no tmpfs: ${disk.skipped}`);
      const filler = join(disk.dir, 'filler');
      return {
        env: {},
        cwd: disk.dir,
        down: async () => fill(filler),
        up: async () => rmSync(filler),
        tearDown: () => disk.unmount(),
      };
    },
  },
];

/** Write zeros until the disk refuses. */
async function fill(path: string): Promise<void> {
  const { openSync, writeSync, closeSync } = await import('node:fs');
  const fd = openSync(path, 'w');
  const chunk = Buffer.alloc(64 * 1024);
  try {
    for (let size = chunk.length; size >= 512; ) {
      try {
        writeSync(fd, chunk, 0, size);
      } catch {
        size = Math.floor(size / 2);
      }
    }
  } finally {
    closeSync(fd);
  }
}

const load = loadAtStart();
const rows: string[][] = [];
for (const outage of outages) {
  const recoveries: number[] = [];
  const during: Record<number, number> = {};
  let setUp: Awaited<ReturnType<Outage['setUp']>>;
  try {
    setUp = await outage.setUp();
  } catch (error) {
    rows.push([outage.name, 'skipped', '', '', (error as Error).message]);
    continue;
  }
  const server: ServerProcess = startServer(PROJECT, { ...modelEnv, ...setUp.env }, setUp.cwd);
  try {
    const url = await server.url;
    for (let round = 0; round < ROUNDS; round += 1) {
      const traffic = startLoad({ servers: [url], model, workers: 6, kinds: [outage.kind] });
      await sleep(500);
      await setUp.down();
      const downAt = Date.now();
      await sleep(DOWN_MS);
      const backAt = Date.now();
      await setUp.up();
      const upAt = Date.now();
      recoveries.push(await timeToFirstOk(url, outage.kind, upAt, { model, everyMs: 20 }));
      const answers = await traffic.stop();
      const counts = statusCounts(answers.filter((a) => a.at >= downAt + 300 && a.at < backAt));
      for (const [status, n] of Object.entries(counts)) {
        during[Number(status)] = (during[Number(status)] ?? 0) + n;
      }
      if (server.child.exitCode !== null) throw new Error(`server died: ${server.err()}`);
    }
    const answered = Object.entries(during)
      .map(([status, n]) => `${n} × ${status}`)
      .join(', ');
    rows.push([
      outage.name,
      `**${Math.round(median(recoveries))}**`,
      `${Math.min(...recoveries)} – ${Math.max(...recoveries)}`,
      String(recoveries.length),
      answered,
    ]);
    console.log(`${outage.name}: ${recoveries.join(', ')} ms; while down ${answered}`);
  } finally {
    server.child.kill('SIGKILL');
    await server.exited;
    await setUp.tearDown();
  }
}
await model.close();

writeSection('outages.bench', [
  '## Recovery after a backend outage (`npm run bench:outages`)',
  '',
  `One \`service-serve\` process under load from 6 clients; the backend goes down for ${DOWN_MS / 1000} s`,
  'and comes back; the time is from the moment it answers again (its start command returned, the',
  'filler removed) to the first 200 a probe sent every 20 ms gets. No process was restarted.',
  `${ROUNDS} rounds per case, on servers of the bench's own (initdb, redis-server, a tmpfs).`,
  '',
  machineLine(load),
  '',
  ...table(
    ['outage', 'first 200 after, ms (median)', 'range', 'rounds', 'answers while down'],
    rows,
  ),
]);
process.exit(0);
