/**
 * Fault injection: a `service-serve` process killed with SIGKILL in the middle of steady
 * traffic, on SQLite (the embedded default) and on Postgres (a cluster of this test's own).
 * A new process on the same store must find every run a client was told about (a 200),
 * close the killed process's runs through its stale sweep (one terminal event each, none
 * left `running`), and, on SQLite, leave a file that passes `PRAGMA integrity_check`. Part of
 * the load answers the runs it starts (with an `Idempotency-Key`): an answer told 200 took
 * effect, and one in flight at the kill (no response) is retried, on the new process, to
 * success.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { RESUME_LOCK_LEASE_MS } from '../../src/runtime/control/rest-cancel.js';
import { type ScriptedModelServer, scriptedModelServer } from '../../src/testing/index.js';
import { checkAnswers, completedOn, startLoad, statusCounts } from '../support/load.js';
import { checkLog, sqliteIntegrity, untilNoneRunning } from '../support/log-checks.js';
import {
  type OwnPostgres,
  ownPostgresUnavailableReason,
  startOwnPostgres,
} from '../support/own-postgres.js';
import { killServers, type ServerProcess, startServer } from '../support/server-process.js';

const PROJECT = join(resolve(import.meta.dirname, '..'), 'fixtures/scale/.agentdeck');
const sleep = (ms: number) => new Promise((done) => setTimeout(done, ms));
const servers: ServerProcess[] = [];
let model: ScriptedModelServer | undefined;
let postgres: OwnPostgres | undefined;

afterAll(async () => {
  await killServers(servers);
  await model?.close();
  await postgres?.destroy();
}, 30_000);

/** Kill a loaded server, start another on the same store, and check the log it leaves. */
async function killUnderLoad(eventsUrl: string, env: Record<string, string>, cwd?: string) {
  model ??= await scriptedModelServer([]);
  const serverEnv = {
    ...env,
    SERVICE_RUNTIME_HEARTBEAT_SECONDS: '0.2',
    OPENAI_BASE_URL: model.url,
    OPENAI_API_KEY: 'sk-test',
  };
  const victim = startServer(PROJECT, serverEnv, cwd);
  servers.push(victim);
  const load = startLoad({
    servers: [await victim.url],
    model,
    workers: 6,
    kinds: ['workflow', 'chat', 'answer'],
    requestTimeoutMs: 5_000,
  });
  // Killed once it has acknowledged steady traffic (more than 10 answers), however loaded the
  // machine is; a server that cannot answer that many within 30 s fails the test here.
  const acknowledged = () => load.answers.filter((a) => a.status === 200).length;
  for (const started = Date.now(); acknowledged() <= 10; await sleep(50)) {
    if (Date.now() - started > 30_000) throw new Error(`only ${acknowledged()} answers in 30 s`);
  }
  victim.child.kill('SIGKILL');
  await victim.exited;
  const answers = await load.stop();
  const successor = startServer(PROJECT, serverEnv, cwd);
  servers.push(successor);
  const successorUrl = await successor.url;
  await untilNoneRunning(eventsUrl);
  const log = await checkLog(eventsUrl, answers);
  console.log(
    `[kill ${eventsUrl.split(':')[0]}] answers ${JSON.stringify(statusCounts(answers))}; ` +
      `${log.runs.length} runs in the log; answers ` +
      `${JSON.stringify(statusCounts(answers.filter((a) => a.kind === 'answer')))}`,
  );
  // Requests in flight at the kill lost their connection (status 0): never acknowledged.
  expect(answers.filter((a) => a.status !== 200 && a.status !== 0)).toEqual([]);
  expect(log.missing).toEqual([]);
  expect(log.doubleEnded).toEqual([]);
  expect(log.running).toEqual([]);

  // Every answer told 200 took effect; every one cut off by the kill can be retried, on the
  // successor (the victim's address is gone), to success. An answer the victim had taken the
  // resume lock for, but not yet recorded, is refused (409) until that lock's lease ends: the
  // dead process cannot free it, so the retries may take the lease and a little more.
  const retried = await checkAnswers(
    answers.map((answer) => ({ ...answer, server: successorUrl })),
    completedOn(successorUrl),
    RESUME_LOCK_LEASE_MS + 5_000,
  );
  expect(retried, `${JSON.stringify(retried)}\n${successor.err()}`).toEqual({
    notInEffect: [],
    notRetried: [],
  });
}

describe('SIGKILL of a server under load', () => {
  it('on SQLite: nothing acknowledged is lost, the sweep closes its runs, the file is intact', async () => {
    const cwd = mkdtempSync(join(tmpdir(), 'agentdeck-kill-'));
    const file = join(cwd, '.agentdeck/state.db');
    await killUnderLoad(`sqlite://${file}`, {}, cwd);
    expect(sqliteIntegrity(file)).toEqual([{ integrity_check: 'ok' }]);
  }, 90_000);

  const skipReason = ownPostgresUnavailableReason();
  it.skipIf(skipReason !== null)(
    `on Postgres: nothing acknowledged is lost, the sweep closes its runs ${skipReason ?? ''}`,
    async () => {
      postgres = await startOwnPostgres();
      await killUnderLoad(postgres.url, { SERVICE_EVENTS: postgres.url });
    },
    90_000,
  );
});
