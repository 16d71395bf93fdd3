/**
 * Fault injection: the disk of the SQLite file fills up under load. The service's working
 * directory (where `./.agentdeck/state.db` lives) is a small tmpfs of this test's own; a
 * filler file takes its last bytes mid-load, and is removed a few seconds later. The process
 * must stay alive, answer 507 with `Retry-After` and a detail naming SQLite while the disk is
 * full (never 500), say so on `/health/ready`, serve again once space is freed, and leave an
 * intact file (`PRAGMA integrity_check`) where every acknowledged run is present, none has
 * two terminal events and none is left `running`. Half the load answers the runs it starts
 * (with an `Idempotency-Key`): an answer told 200 took effect, and one told 507 is retried,
 * once space is freed, to success. Skipped, with the reason, where a tmpfs
 * cannot be mounted.
 */
import { closeSync, openSync, rmSync, writeSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  checkAnswers,
  completedOn,
  startLoad,
  statusCounts,
  timeToFirstOk,
} from '../support/load.js';
import { checkLog, sqliteIntegrity, untilNoneRunning } from '../support/log-checks.js';
import { type ServerProcess, startServer } from '../support/server-process.js';
import { mountSmallDisk, type SmallDisk } from '../support/small-disk.js';

const PROJECT = join(resolve(import.meta.dirname, '..'), 'fixtures/scale/.agentdeck');
const sleep = (ms: number) => new Promise((done) => setTimeout(done, ms));
// Room for SQLite's WAL to grow to its checkpoint size (about 80 MB) once the filler is gone.
const mounted = await mountSmallDisk(256 * 1024 * 1024);
const skipReason = 'skipped' in mounted ? mounted.skipped : null;

let disk: SmallDisk;
let server: ServerProcess;
let url: string;

beforeAll(async () => {
  if ('skipped' in mounted) return;
  disk = mounted;
  server = startServer(PROJECT, { SERVICE_RUNTIME_HEARTBEAT_SECONDS: '0.2' }, disk.dir);
  url = await server.url;
}, 60_000);

afterAll(async () => {
  server?.child.kill('SIGKILL');
  await server?.exited;
  await disk?.unmount();
}, 30_000);

/** Write zeros to `path` until the disk refuses (ENOSPC); the bytes written. */
function fillDisk(path: string): number {
  const fd = openSync(path, 'w');
  const chunk = Buffer.alloc(64 * 1024);
  let written = 0;
  try {
    for (let size = chunk.length; size >= 512; ) {
      try {
        written += writeSync(fd, chunk, 0, size);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'ENOSPC') throw error;
        size = Math.floor(size / 2);
      }
    }
  } finally {
    closeSync(fd);
  }
  return written;
}

describe.skipIf(skipReason !== null)(`a full disk under SQLite ${skipReason ?? ''}`, () => {
  it('answers 507 while the disk is full, serves again once space is freed, loses nothing', async () => {
    const file = join(disk.dir, '.agentdeck/state.db');
    const filler = join(disk.dir, 'filler');
    const load = startLoad({ servers: [url], workers: 4, kinds: ['workflow', 'answer'] });
    await sleep(800);
    const fullAt = Date.now();
    fillDisk(filler);
    await sleep(2_000);
    const ready = await fetch(`${url}/health/ready`);
    const readyBody = await ready.text();
    const freeAt = Date.now();
    rmSync(filler);
    const recovery = await timeToFirstOk(url, 'workflow', freeAt, { timeoutMs: 20_000 });
    await sleep(1_000);
    const answers = await load.stop();

    expect(server.child.exitCode, server.err()).toBeNull();
    const during = answers.filter((a) => a.at >= fullAt + 300 && a.at + a.ms <= freeAt);
    const after = answers.filter((a) => a.at >= freeAt + recovery + 300);
    console.log(
      `[disk full] answers ${JSON.stringify(statusCounts(answers))}; while full ` +
        `${JSON.stringify(statusCounts(during))}; first 200 after freeing ${recovery} ms; answers ` +
        `${JSON.stringify(statusCounts(answers.filter((a) => a.kind === 'answer')))}`,
    );
    expect(answers.filter((a) => a.status === 500 || a.status === 0)).toEqual([]);
    expect(during.length).toBeGreaterThan(0);
    // A write that fits in WAL space already allocated still succeeds: 200 or 507, never else.
    expect(during.filter((a) => a.status === 507).length).toBeGreaterThan(during.length / 2);
    for (const answer of during.filter((a) => a.status !== 200)) {
      expect(answer.status, answer.body).toBe(507);
      expect(answer.retryAfter).toMatch(/^\d+$/);
      expect(answer.body).toMatch(/SQLite .*free space/);
    }
    expect(after.length).toBeGreaterThan(0);
    expect(after.filter((a) => a.status !== 200)).toEqual([]);
    expect(ready.status, readyBody).toBe(503);
    expect(readyBody).toMatch(/bytes free/);
    expect((await fetch(`${url}/health/ready`)).status).toBe(200);

    // Every answer told 200 took effect; every one told to retry can be, to success.
    expect(await checkAnswers(answers, completedOn(url))).toEqual({
      notInEffect: [],
      notRetried: [],
    });

    const eventsUrl = `sqlite://${file}`;
    await untilNoneRunning(eventsUrl);
    const log = await checkLog(eventsUrl, answers);
    expect(log.missing).toEqual([]);
    expect(log.doubleEnded).toEqual([]);
    expect(log.running).toEqual([]);
    expect(sqliteIntegrity(file)).toEqual([{ integrity_check: 'ok' }]);
  }, 90_000);
});
