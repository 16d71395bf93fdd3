/**
 * Background runs (#40) on SQLite, one `service-serve` process on a file of this test's own
 * (test/fixtures/queue): a mixed batch of queued agent and workflow runs each starts once
 * and ends once (a workflow waiting for a person counts as played), none left queued or
 * running; the agent `worker` (`queue.concurrency: 2`) never plays more than 2 turns of a key
 * at once; and a busy session refuses a second run (`multitask: reject`, 409) or queues it
 * after the first (`enqueue`). The Postgres twin, with three processes: queue-processes.int.test.ts.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EventStore } from '../src/core/store.js';
import { type ScriptedModelServer, scriptedModelServer } from '../src/testing/index.js';
import {
  endedAt,
  enqueue,
  eventsOf,
  inParallel,
  mostAtOnce,
  notedLines,
  openStore,
  playedOnce,
  postRun,
  type Queued,
  sleep,
  startedAt,
  untilSettled,
} from './support/queue-runs.js';
import { killServers, type ServerProcess, startServer } from './support/server-process.js';

const PROJECT = join(resolve(import.meta.dirname), 'fixtures/queue/.agentdeck');
const dir = mkdtempSync(join(tmpdir(), 'agentdeck-queue-sqlite-'));
const eventsUrl = `sqlite://${join(dir, 'state.db')}`;
const queueLog = join(dir, 'queue.log');
const servers: ServerProcess[] = [];
let model: ScriptedModelServer;
let url: string;
let store: EventStore;

beforeAll(async () => {
  model = await scriptedModelServer([]);
  const server = startServer(
    PROJECT,
    {
      SERVICE_EVENTS: eventsUrl,
      SERVICE_QUEUE_CONCURRENCY: '4',
      SERVICE_QUEUE_POLL_MS: '100',
      QUEUE_LOG: queueLog,
      OPENAI_BASE_URL: model.url,
      OPENAI_API_KEY: 'sk-test',
    },
    dir,
  );
  servers.push(server);
  url = await server.url;
  store = openStore(eventsUrl);
}, 30_000);

afterAll(async () => {
  await killServers(servers);
  await store?.close();
  await model?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('background runs on SQLite, one process', () => {
  it('plays each of 80 mixed runs once; the concurrency limit holds per key', async () => {
    const bodies = Array.from({ length: 80 }, (_, i): Record<string, unknown> => {
      switch (i % 4) {
        case 0:
          return { agent: 'helper', input: 'hi', session_id: `h-${i}` };
        case 1:
          return { workflow: 'steps', input: { tag: `s-${i}` }, thread_id: `s-${i}` };
        case 2:
          return { workflow: 'approval', input: { amount: i }, thread_id: `a-${i}` };
        default:
          return { agent: 'worker', input: 'work', session_id: `w-${i}`, key: `k${i % 3}` };
      }
    });
    // One model call per agent turn, each a little slow, so a key's turns would overlap.
    const agentRuns = bodies.filter((body) => body.agent !== undefined).length;
    for (let i = 0; i < agentRuns; i += 1) model.push({ text: ['o', 'k'], delayMs: 60 });
    const begun = Date.now();
    const queued: Queued[] = await inParallel(bodies, 8, (body) => enqueue(url, body));
    const open = await untilSettled(
      store,
      queued.map((run) => run.runId),
      20_000,
    );
    const ms = Date.now() - begun;
    expect(open, servers[0]?.err()).toEqual([]);
    const events = await eventsOf(
      store,
      queued.map((run) => run.runId),
    );
    const played = playedOnce(events);
    expect(played.notEndedOnce).toEqual([]);
    expect(played.notStartedOnce).toEqual([]);
    expect(played.waiting).toBe(20);
    for (const run of queued) {
      const list = events.get(run.runId) ?? [];
      expect(list[0]?.kind).toBe('run.queued');
      if (run.name !== 'approval') expect(list.at(-1)?.kind).toBe('run.completed');
    }
    expect(model.remaining).toBe(0);
    const workers = queued.filter((run) => run.name === 'worker');
    const most = ['k0', 'k1', 'k2'].map((key) =>
      mostAtOnce(
        workers
          .filter((run) => run.key === key)
          .map((run) => {
            const list = events.get(run.runId) ?? [];
            return { start: startedAt(list), end: endedAt(list) };
          }),
      ),
    );
    console.log(`[queue sqlite] 80 runs settled in ${ms} ms; worker turns at once per key ${most}`);
    expect(Math.max(...most)).toBeLessThanOrEqual(2);
  }, 30_000);

  it('refuses a second run on a busy session (409), or queues it after the first', async () => {
    model.push(
      { toolCalls: [{ name: 'work', arguments: { ms: 1_000 }, callId: 'call_busy' }] },
      { text: 'first done' },
      { text: 'second done' },
    );
    const session = 'busy-sqlite';
    const first = await enqueue(url, { agent: 'worker', input: 'work', session_id: session });
    const deadline = Date.now() + 10_000;
    while (!notedLines(queueLog).some((line) => line.what === 'start' && line.id === first.runId)) {
      if (Date.now() > deadline)
        throw new Error(`the first run's tool never started: ${servers[0]?.err()}`);
      await sleep(20);
    }
    const refused = await postRun(url, { agent: 'worker', input: 'again', session_id: session });
    expect(refused.status).toBe(409);
    expect(String(refused.body.detail)).toContain(`session '${session}' is busy`);
    const after = await enqueue(url, {
      agent: 'worker',
      input: 'after',
      session_id: session,
      multitask: 'enqueue',
    });
    // While the first plays, the second waits in the queue, and says where (its position is
    // null for the moment a worker holds it to look whether its session is free).
    const waiting = (await (await fetch(`${url}/runs/${after.runId}`)).json()) as {
      status: string;
      queue: { key: string; priority: number; position: number | null; attempts: number };
    };
    expect(waiting).toMatchObject({ status: 'queued', queue: { key: 'default', priority: 0 } });
    expect(waiting.queue.position === null || waiting.queue.position >= 0).toBe(true);
    expect(waiting.queue.attempts).toBeLessThanOrEqual(1);
    expect(await untilSettled(store, [first.runId, after.runId], 10_000)).toEqual([]);
    const events = await eventsOf(store, [first.runId, after.runId]);
    const [one, two] = [events.get(first.runId) ?? [], events.get(after.runId) ?? []];
    expect(one.at(-1)?.kind).toBe('run.completed');
    expect(two.at(-1)?.kind).toBe('run.completed');
    expect(startedAt(two)).toBeGreaterThanOrEqual(endedAt(one));
    expect(model.remaining).toBe(0);
  }, 20_000);
});
