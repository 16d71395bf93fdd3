/**
 * Fault injection: a Postgres restart under load. Two `service-serve` processes keep their
 * events, claims and checkpoints in a Postgres cluster of this test's own (initdb in a temp
 * dir, a free port), which is stopped (`pg_ctl -m immediate`, a crash) in the middle of
 * steady traffic and started again a few seconds later. Both processes must stay alive,
 * answer 503 naming Postgres with `Retry-After` while it is down (never 500), serve again
 * without a restart, and leave a log where every acknowledged run is present, none has two
 * terminal events and none stays `running`. A live tail opened before the outage follows
 * the run to its end after it, through the LISTEN connection's reconnect. Part of the load
 * answers the runs it starts (with an `Idempotency-Key`): an answer told 200 took effect, and
 * one told 503 (or cut off) is retried, once Postgres is back, to success.
 */
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ScriptedModelServer, scriptedModelServer } from '../../src/testing/index.js';
import { parseSse } from '../support/http.js';
import {
  type Answer,
  checkAnswers,
  completedOn,
  startLoad,
  statusCounts,
  timeToFirstOk,
} from '../support/load.js';
import { checkLog, describeThread, untilNoneRunning } from '../support/log-checks.js';
import {
  type OwnPostgres,
  ownPostgresUnavailableReason,
  startOwnPostgres,
} from '../support/own-postgres.js';
import { killServers, type ServerProcess, startServer } from '../support/server-process.js';

const PROJECT = join(resolve(import.meta.dirname, '..'), 'fixtures/scale/.agentdeck');
const skipReason = ownPostgresUnavailableReason();
const sleep = (ms: number) => new Promise((done) => setTimeout(done, ms));

let postgres: OwnPostgres;
let model: ScriptedModelServer;
const servers: ServerProcess[] = [];
let urls: string[] = [];

beforeAll(async () => {
  if (skipReason) return;
  postgres = await startOwnPostgres();
  model = await scriptedModelServer([]);
  const env = {
    SERVICE_EVENTS: postgres.url,
    // A lease of 1.5 s: short enough for the sweep to close a gone process's runs within the
    // test, long enough that renewals queued behind a pool reconnecting after the restart, on
    // a loaded machine, do not lapse (a live run closed by a sweep fails its caller).
    SERVICE_RUNTIME_HEARTBEAT_SECONDS: '0.5',
    OPENAI_BASE_URL: model.url,
    OPENAI_API_KEY: 'sk-test',
  };
  servers.push(startServer(PROJECT, env), startServer(PROJECT, env));
  urls = await Promise.all(servers.map((server) => server.url));
}, 60_000);

afterAll(async () => {
  await killServers(servers);
  await model?.close();
  await postgres?.destroy();
}, 30_000);

describe.skipIf(skipReason !== null)(`a Postgres restart under load ${skipReason ?? ''}`, () => {
  it('keeps both servers alive, answers 503 while down, serves again and loses nothing', async () => {
    const [A, B] = urls as [string, string];
    // A run waiting for its answer, followed live on B across the outage.
    const waiting = await fetch(`${A}/workflows/approval?thread_id=followed`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ amount: 1 }),
    });
    expect(waiting.status).toBe(200);
    const runId = await runOf(B, 'followed');
    const tail = follow(B, runId);
    tail.catch(() => {}); // awaited below; a failure before then is reported there

    const load = startLoad({
      servers: urls,
      model,
      workers: 6,
      kinds: ['workflow', 'chat', 'answer'],
    });
    await sleep(1_000);
    const downAt = Date.now();
    await postgres.stop('immediate');
    await sleep(2_500);
    const whileDown = await Promise.all(urls.map((url) => fetch(`${url}/health/ready`)));
    const readyBodies = await Promise.all(whileDown.map((response) => response.text()));
    const restartAt = Date.now();
    await postgres.start();
    const upAt = Date.now();
    const recovery = await Promise.all(
      urls.map((url) => timeToFirstOk(url, 'workflow', upAt, { timeoutMs: 20_000 })),
    );
    await sleep(2_000);
    const answers = await load.stop();

    for (const server of servers) expect(server.child.exitCode, server.err()).toBeNull();
    const during = answers.filter((a) => a.at >= downAt + 200 && a.at + a.ms <= restartAt);
    const after = answers.filter((a) => a.at >= upAt + Math.max(...recovery) + 300);
    console.log(
      `[postgres outage] answers ${JSON.stringify(statusCounts(answers))}; while down ` +
        `${JSON.stringify(statusCounts(during))}; first 200 after restart ${recovery.join(' / ')} ms; ` +
        `answers ${JSON.stringify(statusCounts(answers.filter((a) => a.kind === 'answer')))}`,
    );
    const logged = servers.flatMap((server) =>
      server
        .err()
        .split('\n')
        .filter((line) => /request failed|ended without|failed with/.test(line)),
    );
    expect(
      answers.filter((a) => a.status === 500 || a.status === 0),
      logged.join('\n'),
    ).toEqual([]);
    expect(during.length).toBeGreaterThan(0);
    for (const answer of during) expectUnavailable(answer, /postgres/i);
    expect(
      after.length,
      `answers after ${upAt}: ${answers.filter((a) => a.at > upAt).length}`,
    ).toBeGreaterThan(0);
    expect(after.filter((a) => a.status !== 200)).toEqual([]);
    for (const [i, response] of whileDown.entries()) {
      expect(response.status, readyBodies[i]).toBe(503);
      expect(readyBodies[i]).toMatch(/postgres/i);
    }
    for (const url of urls) expect((await fetch(`${url}/health/ready`)).status).toBe(200);

    // The followed run, answered after the outage, is seen to its end on B with no gap.
    const answered = await fetch(`${A}/workflows/approval/followed/resume`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ value: { approved: true } }),
    });
    expect(answered.status).toBe(200);
    const frames = await tail;
    const seqs = frames.map((frame) => Number(frame.id));
    expect(seqs).toEqual(seqs.map((_, i) => (seqs[0] ?? 0) + i));
    expect((frames.at(-1)?.data as { kind?: string } | undefined)?.kind).toBe('run.completed');

    // Every answer told 200 took effect; every one told to retry can be, to success.
    const retried = await checkAnswers(answers, completedOn(A));
    const logs = `[outage ${downAt}..${upAt}]\n${servers.map((server) => server.err()).join('\n')}`;
    const threads = await Promise.all(
      [...retried.notInEffect, ...retried.notRetried].map((answer) =>
        describeThread(postgres.url, answer.id, logs),
      ),
    );
    expect(
      retried,
      `${JSON.stringify(retried)}\n${logs.split('\n')[0]}\n${threads.join('\n')}`,
    ).toEqual({
      notInEffect: [],
      notRetried: [],
    });

    await untilNoneRunning(postgres.url);
    const log = await checkLog(postgres.url, answers);
    expect(log.missing).toEqual([]);
    expect(log.doubleEnded).toEqual([]);
    expect(log.running).toEqual([]);
  }, 90_000);
});

function expectUnavailable(answer: Answer, backend: RegExp): void {
  expect(answer.status, answer.body).toBe(503);
  expect(answer.retryAfter, answer.body).toMatch(/^\d+$/);
  expect(answer.body).toMatch(backend);
}

async function runOf(server: string, thread: string): Promise<string> {
  const response = await fetch(`${server}/runs?session_id=${thread}`);
  const body = (await response.json()) as { runs: { run_id: string }[] };
  const runId = body.runs[0]?.run_id;
  if (!runId) throw new Error(`no run on thread ${thread}`);
  return runId;
}

/** Read `GET /runs/{id}/events` to its end; the frames. */
async function follow(server: string, runId: string) {
  const response = await fetch(`${server}/runs/${runId}/events`);
  expect(response.status).toBe(200);
  return parseSse(await response.text());
}
