/**
 * Fault injection: the Redis that holds conversation sessions is killed under load and
 * started again a few seconds later (a server of this test's own, on a free port). The
 * `service-serve` process (events in SQLite) must stay alive, answer the chats that need
 * Redis with 503 naming it (with `Retry-After`, never 500), streamed ones too (before the
 * stream's first byte, never a 200 whose only frame is `event: error`), while the workflows
 * that do not need it go on answering 200; log the refusals once, not a line per refused
 * turn; serve chats again without a restart, and leave a log where every acknowledged run is
 * present with one terminal event and none is left `running`. Workflow answers never touch
 * Redis (a workflow's checkpoints and log are in the events' store), so part of the load
 * answers the runs it starts and every answer sent while Redis is down must succeed (200) and
 * take effect.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ScriptedModelServer, scriptedModelServer } from '../../src/testing/index.js';
import {
  checkAnswers,
  completedOn,
  startLoad,
  statusCounts,
  timeToFirstOk,
} from '../support/load.js';
import { checkLog, untilNoneRunning } from '../support/log-checks.js';
import { type OwnRedis, startOwnRedis } from '../support/own-redis.js';
import { type ServerProcess, startServer } from '../support/server-process.js';

const PROJECT = join(resolve(import.meta.dirname, '..'), 'fixtures/scale/.agentdeck');
const sleep = (ms: number) => new Promise((done) => setTimeout(done, ms));
const cwd = mkdtempSync(join(tmpdir(), 'agentdeck-redis-outage-'));
const eventsUrl = `sqlite://${join(cwd, '.agentdeck/state.db')}`;

let redis: OwnRedis;
let model: ScriptedModelServer;
let server: ServerProcess;
let url: string;

beforeAll(async () => {
  redis = await startOwnRedis();
  model = await scriptedModelServer([]);
  server = startServer(
    PROJECT,
    {
      SERVICE_SESSION: redis.url,
      SERVICE_RUNTIME_HEARTBEAT_SECONDS: '0.2',
      OPENAI_BASE_URL: model.url,
      OPENAI_API_KEY: 'sk-test',
    },
    cwd,
  );
  url = await server.url;
}, 60_000);

afterAll(async () => {
  server?.child.kill('SIGKILL');
  await server?.exited;
  await model?.close();
  await redis?.destroy();
}, 30_000);

describe('a Redis restart under load', () => {
  it('answers chats 503 while Redis is down, workflows 200, and serves chats again after', async () => {
    const load = startLoad({
      servers: [url],
      model,
      workers: 4,
      kinds: ['workflow', 'chat', 'answer'],
    });
    await sleep(1_000);
    const downAt = Date.now();
    const logBefore = server.err().length;
    await redis.stop('SIGKILL');
    await sleep(500);
    const streamed = await Promise.all(
      Array.from({ length: 4 }, (_, i) =>
        fetch(`${url}/agents/helper/chat?stream=true`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ session_id: `stream-${i}`, message: 'hi' }),
        }).then(async (r) => ({
          status: r.status,
          retryAfter: r.headers.get('retry-after'),
          body: await r.text(),
        })),
      ),
    );
    await sleep(2_000);
    const ready = await fetch(`${url}/health/ready`);
    const readyBody = await ready.text();
    const restartAt = Date.now();
    const outageLog = server.err().slice(logBefore);
    await redis.start();
    const upAt = Date.now();
    const recovery = await timeToFirstOk(url, 'chat', upAt, { model, timeoutMs: 20_000 });
    await sleep(1_500);
    const answers = await load.stop();

    expect(server.child.exitCode, server.err()).toBeNull();
    // The refusals are logged as every outage's are (once, then once per 30 s), not per turn.
    const logLines = outageLog.split('\n').filter((line) => line.startsWith('[agentdeck]'));
    expect(logLines.length, outageLog).toBeGreaterThan(0);
    expect(logLines.length, outageLog).toBeLessThanOrEqual(2);
    for (const stream of streamed) {
      expect(stream.status, stream.body).toBe(503);
      expect(stream.retryAfter).toMatch(/^\d+$/);
      expect(stream.body).toMatch(/Redis session store at redis:\/\/127\.0\.0\.1/);
    }
    // Commands wait up to a reconnect attempt before failing: judge those sent well inside.
    const during = answers.filter((a) => a.at >= downAt + 500 && a.at + a.ms <= restartAt);
    const after = answers.filter((a) => a.at >= upAt + recovery + 300);
    console.log(
      `[redis outage] answers ${JSON.stringify(statusCounts(answers))}; chats while down ` +
        `${JSON.stringify(statusCounts(during.filter((a) => a.kind === 'chat')))}; ` +
        `first chat 200 after restart ${recovery} ms; answers ` +
        `${JSON.stringify(statusCounts(answers.filter((a) => a.kind === 'answer')))}`,
    );
    expect(answers.filter((a) => a.status === 500 || a.status === 0)).toEqual([]);
    const chatsDown = during.filter((a) => a.kind === 'chat');
    expect(chatsDown.length).toBeGreaterThan(0);
    for (const chat of chatsDown) {
      expect(chat.status, chat.body).toBe(503);
      expect(chat.retryAfter).toMatch(/^\d+$/);
      expect(chat.body).toMatch(/Redis session store at redis:\/\/127\.0\.0\.1/);
    }
    const workflowsDown = during.filter((a) => a.kind === 'workflow');
    expect(workflowsDown.length).toBeGreaterThan(0);
    expect(workflowsDown.filter((a) => a.status !== 200)).toEqual([]);
    const answersDown = during.filter((a) => a.kind === 'answer');
    expect(answersDown.length).toBeGreaterThan(0);
    expect(answersDown.filter((a) => a.status !== 200)).toEqual([]);
    expect(after.length).toBeGreaterThan(0);
    expect(after.filter((a) => a.status !== 200)).toEqual([]);
    expect(ready.status, readyBody).toBe(503);
    expect(readyBody).toMatch(/redis/i);
    expect((await fetch(`${url}/health/ready`)).status).toBe(200);

    // Every answer told 200 (all of them: none needs Redis) took effect.
    expect(await checkAnswers(answers, completedOn(url))).toEqual({
      notInEffect: [],
      notRetried: [],
    });

    await untilNoneRunning(eventsUrl);
    const log = await checkLog(eventsUrl, answers);
    expect(log.missing).toEqual([]);
    expect(log.doubleEnded).toEqual([]);
    expect(log.running).toEqual([]);
  }, 90_000);
});
