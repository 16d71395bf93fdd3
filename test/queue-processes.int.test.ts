/**
 * Background runs (#40) across processes: three `service-serve` processes on one Postgres
 * database (a Postgres cluster of this file's own) and one Redis (sessions,
 * under a key prefix of this file's own), serving test/fixtures/queue, with one scripted
 * model server. They must share one queue:
 * (a) 500 mixed runs posted round-robin to the three each start once and end once (a
 *     workflow that waits for a person counts as played), none left queued or running;
 * (b) the agent `worker`'s `queue.concurrency: 2` holds per key across the processes;
 * (c) the workflow `limited`'s `queue.rate` (2 per 0.5 s) holds across them, and a
 *     synchronous start over it is refused with 429 and Retry-After;
 * (e) a key with one run is served before a key with many queued (fair turns);
 * (f) each multitask strategy on a busy session through `POST /runs`;
 * (d) a process killed with SIGKILL mid-run: the others finish its runs, the durable workflow
 *     from its checkpoint (its first node not played again), the agent turn played again
 *     per its `queue.retry` (`run.resumed` with attempt 2). Last, as it kills servers.
 * Skipped when the local Postgres or Redis is not there.
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Event } from '../src/core/events.js';
import type { EventStore } from '../src/core/store.js';
import { type ScriptedModelServer, scriptedModelServer } from '../src/testing/index.js';
import { type OwnPostgres, startOwnPostgres } from './support/own-postgres.js';
import { postgresOrRedisUnavailable } from './support/process-backends.js';
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
  worstWindow,
} from './support/queue-runs.js';
import { killServers, type ServerProcess, startServer } from './support/server-process.js';

const PROJECT = join(resolve(import.meta.dirname), 'fixtures/queue/.agentdeck');
const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
/** Per process; three processes: 12 slots in all. */
const CONCURRENCY = 4;

const skipReason = await postgresOrRedisUnavailable(REDIS_URL);

describe.skipIf(skipReason !== null)(`three processes on one run queue ${skipReason ?? ''}`, () => {
  // A cluster of its own: three servers' pools under 500 runs would take the shared one's
  // connections from the other files running beside this one.
  let postgres: OwnPostgres;
  const keyPrefix = `agentdeck-test:${randomUUID()}:`;
  const dir = mkdtempSync(join(tmpdir(), 'agentdeck-queue-pg-'));
  const queueLog = join(dir, 'queue.log');
  const servers: ServerProcess[] = [];
  let urls: string[] = [];
  let model: ScriptedModelServer;
  let store: EventStore;

  const logs = () => servers.map((server) => server.err()).join('\n');

  beforeAll(async () => {
    postgres = await startOwnPostgres();
    model = await scriptedModelServer([]);
    const env = {
      SERVICE_EVENTS: postgres.url,
      SERVICE_SESSION: REDIS_URL,
      SERVICE_SESSION_KEY_PREFIX: keyPrefix,
      SERVICE_RUNTIME_HEARTBEAT_SECONDS: '0.5',
      SERVICE_QUEUE_CONCURRENCY: String(CONCURRENCY),
      SERVICE_QUEUE_POLL_MS: '200',
      QUEUE_LOG: queueLog,
      OPENAI_BASE_URL: model.url,
      OPENAI_API_KEY: 'sk-test',
    };
    for (let i = 0; i < 3; i += 1) servers.push(startServer(PROJECT, env, dir));
    // All three at once; the migrations serialize on an advisory lock.
    urls = await Promise.all(servers.map((server) => server.url));
    store = openStore(postgres.url);
  }, 60_000);

  afterAll(async () => {
    await killServers(servers);
    await store?.close();
    await model?.close();
    await postgres?.destroy();
    const redis = new Redis(REDIS_URL, { maxRetriesPerRequest: 1 });
    let cursor = '0';
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', `${keyPrefix}*`, 'COUNT', 500);
      if (keys.length > 0) await redis.del(...keys);
      cursor = next;
    } while (cursor !== '0');
    await redis.quit();
    rmSync(dir, { recursive: true, force: true });
  }, 30_000);

  /** Wait (bounded) until the fixture noted `what id`; that line. */
  async function untilNoted(what: string, id: string, ms = 10_000) {
    const deadline = Date.now() + ms;
    for (;;) {
      const line = notedLines(queueLog).find((l) => l.what === what && l.id === id);
      if (line) return line;
      if (Date.now() > deadline) throw new Error(`'${what} ${id}' never noted; logs: ${logs()}`);
      await sleep(20);
    }
  }

  const intervals = (runs: readonly Queued[], events: ReadonlyMap<string, readonly Event[]>) =>
    runs.map((run) => {
      const list = events.get(run.runId) ?? [];
      return { start: startedAt(list), end: endedAt(list) };
    });

  it('(a) plays each of 500 mixed runs, posted round-robin to the three, exactly once', async () => {
    const bodies = Array.from({ length: 500 }, (_, i): Record<string, unknown> => {
      switch (i % 4) {
        case 0:
          return { agent: 'helper', input: 'hi', session_id: `h-${i}` };
        case 1:
          return { workflow: 'steps', input: { tag: `s-${i}` }, thread_id: `s-${i}` };
        case 2:
          return { workflow: 'approval', input: { amount: i }, thread_id: `a-${i}` };
        default:
          return { agent: 'worker', input: 'work', session_id: `w-${i}`, key: `k${i % 10}` };
      }
    });
    for (let i = 0; i < 250; i += 1) model.push({ text: 'ok' });
    const begun = Date.now();
    const queued = await inParallel(bodies, 12, (body, i) => enqueue(urls[i % 3] as string, body));
    const postedMs = Date.now() - begun;
    const ids = queued.map((run) => run.runId);
    const open = await untilSettled(store, ids, 30_000);
    const settledMs = Date.now() - begun;
    expect(open, logs()).toEqual([]);
    const events = await eventsOf(store, ids);
    const played = playedOnce(events);
    console.log(
      `[queue pg] 500 runs on 3 processes: posted in ${postedMs} ms, all settled in ${settledMs} ms`,
    );
    expect(played.notEndedOnce).toEqual([]);
    expect(played.notStartedOnce).toEqual([]);
    expect(played.waiting).toBe(125);
    // No worker lost its hold and another played it again: no run resumed, none failed.
    const resumed = [...events].filter(([, list]) => list.some((e) => e.kind === 'run.resumed'));
    expect(resumed.map(([runId]) => runId)).toEqual([]);
    expect(await store.listRuns({ status: 'queued', limit: 10 })).toEqual([]);
    expect(await store.listRuns({ status: 'running', limit: 10 })).toEqual([]);
    expect(model.remaining).toBe(0);
  }, 45_000);

  it('(b) holds the concurrency limit of 2 per key across the processes', async () => {
    const keys = ['c0', 'c1', 'c2'];
    const runs = 24;
    for (let i = 0; i < runs; i += 1) {
      model.push(
        { toolCalls: [{ name: 'work', arguments: { ms: 150 }, callId: `call_${i}` }] },
        { text: 'worked' },
      );
    }
    const queued = await inParallel(
      Array.from({ length: runs }, (_, i) => i),
      12,
      (i) =>
        enqueue(urls[i % 3] as string, {
          agent: 'worker',
          input: 'work',
          session_id: `c-${i}`,
          key: keys[i % keys.length],
        }),
    );
    expect(
      await untilSettled(
        store,
        queued.map((run) => run.runId),
        15_000,
      ),
      logs(),
    ).toEqual([]);
    const events = await eventsOf(
      store,
      queued.map((run) => run.runId),
    );
    expect(playedOnce(events).notEndedOnce).toEqual([]);
    const lines = notedLines(queueLog);
    const byRun = new Map(queued.map((run) => [run.runId, run]));
    const toolSpans = (key: string) => {
      const starts = lines.filter((l) => l.what === 'start' && byRun.get(l.id)?.key === key);
      return starts.map((s) => ({
        start: s.at,
        end: lines.find((l) => l.what === 'end' && l.id === s.id && l.at >= s.at)?.at ?? Infinity,
      }));
    };
    const runsAtOnce = keys.map((key) =>
      mostAtOnce(
        intervals(
          queued.filter((run) => run.key === key),
          events,
        ),
      ),
    );
    const toolsAtOnce = keys.map((key) => mostAtOnce(toolSpans(key)));
    const pids = new Set(lines.filter((l) => byRun.has(l.id)).map((l) => l.pid));
    console.log(
      `[queue pg] concurrency 2 per key: runs at once per key ${runsAtOnce}, tools at once ${toolsAtOnce}, on ${pids.size} processes`,
    );
    expect(Math.max(...runsAtOnce, ...toolsAtOnce)).toBe(2);
    expect(pids.size).toBeGreaterThan(1);
    expect(model.remaining).toBe(0);
  }, 30_000);

  it('(c) holds the rate limit (2 per 0.5 s per key) across the processes; a synchronous start over it is 429', async () => {
    const runs = 12;
    const queued = await inParallel(
      Array.from({ length: runs }, (_, i) => i),
      12,
      (i) =>
        enqueue(urls[i % 3] as string, {
          workflow: 'limited',
          input: { tag: `r-${i}` },
          key: 'r1',
        }),
    );
    expect(
      await untilSettled(
        store,
        queued.map((run) => run.runId),
        15_000,
      ),
      logs(),
    ).toEqual([]);
    const events = await eventsOf(
      store,
      queued.map((run) => run.runId),
    );
    expect(playedOnce(events).notEndedOnce).toEqual([]);
    const starts = queued
      .map((run) => startedAt(events.get(run.runId) ?? []))
      .sort((a, b) => a - b);
    const span = (starts.at(-1) as number) - (starts[0] as number);
    // A token bucket: 2 at once, then one per 250 ms; 12 starts take at least 2.5 s.
    const perSecond = ((runs - 2) * 1000) / span;
    const tags = new Set(queued.map((_, i) => `r-${i}`));
    const pids = new Set(
      notedLines(queueLog)
        .filter((l) => l.what === 'rate' && tags.has(l.id))
        .map((l) => l.pid),
    );
    console.log(
      `[queue pg] rate 2 per 0.5 s: 12 starts over ${span} ms, ${perSecond.toFixed(2)} per s after the burst (bound 4), on ${pids.size} processes`,
    );
    // Measured from the runs' `run.started` (written a moment after the token was taken, a
    // moment that grows with the machine's load): 150 ms of slack either way. With no limit
    // the 12 would start within a few tens of ms: 9 over the bound.
    expect(worstWindow(starts, 2, 500, 150)).toBeLessThanOrEqual(0);
    expect(span).toBeGreaterThanOrEqual(2_500 - 150);
    expect(pids.size).toBeGreaterThan(1);

    // Synchronous starts take from the same buckets (key: the tenant, else 'default').
    const sync = await Promise.all(
      [0, 1, 2, 3].map((i) =>
        fetch(`${urls[i % 3]}/workflows/limited`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ tag: `sync-${i}` }),
        }),
      ),
    );
    const refused = sync.filter((response) => response.status === 429);
    expect(refused.length).toBeGreaterThan(0);
    expect(Number(refused[0]?.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    await Promise.all(sync.map((response) => response.text()));
  }, 30_000);

  it('(e) serves a key with one run before the many queued runs of another (fair turns)', async () => {
    const many = 36;
    const queuedA = await inParallel(
      Array.from({ length: many }, (_, i) => i),
      12,
      (i) =>
        enqueue(urls[i % 3] as string, {
          workflow: 'steps',
          input: { tag: `fa-${i}`, slowMs: 250 },
          thread_id: `fa-${i}`,
          key: 'fair-a',
        }),
    );
    const b = await enqueue(urls[0] as string, {
      workflow: 'steps',
      input: { tag: 'fb-0', slowMs: 250 },
      thread_id: 'fb-0',
      key: 'fair-b',
    });
    const ids = [...queuedA.map((run) => run.runId), b.runId];
    expect(await untilSettled(store, ids, 20_000), logs()).toEqual([]);
    const events = await eventsOf(store, ids);
    expect(playedOnce(events).notEndedOnce).toEqual([]);
    const bList = events.get(b.runId) ?? [];
    const bQueued = Date.parse(bList[0]?.ts ?? '');
    const bStarted = startedAt(bList);
    const aStarts = queuedA.map((run) => startedAt(events.get(run.runId) ?? []));
    const aWaitingAtB = aStarts.filter((at) => at > bQueued).length;
    const aBetween = aStarts.filter((at) => at > bQueued && at < bStarted).length;
    const aBefore = aStarts.filter((at) => at < bStarted).length;
    console.log(
      `[queue pg] fairness: B queued with ${aWaitingAtB} of A's ${many} runs still to start (FIFO would start them all first); ` +
        `${aBetween} of A's started between B's enqueue and B's start (${aBefore} before B in all); B waited ${bStarted - bQueued} ms; ${3 * CONCURRENCY} slots`,
    );
    expect(aWaitingAtB).toBeGreaterThan(3 * CONCURRENCY); // the test means something
    expect(aBetween).toBeLessThanOrEqual(3 * CONCURRENCY);
  }, 30_000);

  describe('(f) multitask on a busy session through POST /runs', () => {
    /** A `worker` turn on `session` whose tool works `ms`; resolves once the tool started. */
    async function busy(session: string, message: string, ms: number) {
      model.push({ toolCalls: [{ name: 'work', arguments: { ms }, callId: `call_${session}` }] });
      const first = await enqueue(urls[0] as string, {
        agent: 'worker',
        input: message,
        session_id: session,
        key: session,
      });
      await untilNoted('start', first.runId);
      return first;
    }

    it('reject (the default) answers 409; enqueue plays the new run after the first', async () => {
      const first = await busy('mt-enqueue', 'first message', 800);
      model.push({ text: 'first done' }, { text: 'second done' });
      const refused = await postRun(urls[1] as string, {
        agent: 'worker',
        input: 'x',
        session_id: 'mt-enqueue',
      });
      expect(refused.status).toBe(409);
      expect(String(refused.body.detail)).toContain("session 'mt-enqueue' is busy");
      const explicit = await postRun(urls[2] as string, {
        agent: 'worker',
        input: 'x',
        session_id: 'mt-enqueue',
        multitask: 'reject',
      });
      expect(explicit.status).toBe(409);
      const after = await enqueue(urls[1] as string, {
        agent: 'worker',
        input: 'second message',
        session_id: 'mt-enqueue',
        key: 'mt-enqueue',
        multitask: 'enqueue',
      });
      expect(await untilSettled(store, [first.runId, after.runId], 10_000), logs()).toEqual([]);
      const events = await eventsOf(store, [first.runId, after.runId]);
      const [one, two] = [events.get(first.runId) ?? [], events.get(after.runId) ?? []];
      expect(one.at(-1)?.kind).toBe('run.completed');
      expect(two.at(-1)?.kind).toBe('run.completed');
      expect(startedAt(two)).toBeGreaterThanOrEqual(endedAt(one));
      expect(model.remaining).toBe(0);
    });

    for (const strategy of ['interrupt', 'rollback'] as const) {
      it(`${strategy} cancels the first run and plays the new one${strategy === 'rollback' ? ", the first's message gone from the session" : ''}`, async () => {
        const session = `mt-${strategy}`;
        const first = await busy(session, `first message ${strategy}`, 8_000);
        model.push({ text: 'second done' });
        const after = await enqueue(urls[2] as string, {
          agent: 'worker',
          input: `second message ${strategy}`,
          session_id: session,
          key: session,
          multitask: strategy,
        });
        expect(await untilSettled(store, [first.runId, after.runId], 10_000), logs()).toEqual([]);
        const events = await eventsOf(store, [first.runId, after.runId]);
        const [one, two] = [events.get(first.runId) ?? [], events.get(after.runId) ?? []];
        expect(one.at(-1)?.kind).toBe('run.cancelled');
        expect(two.at(-1)?.kind).toBe('run.completed');
        expect(startedAt(two)).toBeGreaterThanOrEqual(endedAt(one));
        expect(model.remaining).toBe(0);
        const history = (await (await fetch(`${urls[1]}/sessions/${session}`)).json()) as {
          items: unknown[];
        };
        const text = JSON.stringify(history.items);
        expect(text).toContain(`second message ${strategy}`);
        if (strategy === 'rollback') expect(text).not.toContain('first message');
        else expect(text).toContain('first message');
      });
    }

    it("rollback on a workflow's thread is refused (422): use interrupt", async () => {
      const refused = await postRun(urls[0] as string, {
        workflow: 'steps',
        input: { tag: 'mt-wf' },
        thread_id: 'mt-wf',
        multitask: 'rollback',
      });
      expect(refused.status).toBe(422);
    });
  });

  it('(d) finishes the runs of a process killed with SIGKILL: the workflow from its checkpoint, the agent per its retry', async () => {
    model.push(
      { toolCalls: [{ name: 'work', arguments: { ms: 20_000 }, callId: 'call_kill' }] },
      { text: 'played again' },
    );
    const agentRun = await enqueue(urls[0] as string, {
      agent: 'worker',
      input: 'work',
      session_id: 'kill-agent',
      key: 'kill',
    });
    const flowRun = await enqueue(urls[1] as string, {
      workflow: 'steps',
      input: { tag: 'kill-wf', slowMs: 20_000 },
      thread_id: 'kill-wf',
      key: 'kill',
    });
    const toolLine = await untilNoted('start', agentRun.runId);
    const nodeLine = await untilNoted('second', 'kill-wf');
    const victims = servers.filter(
      (server) => server.child.pid === toolLine.pid || server.child.pid === nodeLine.pid,
    );
    expect(victims.length).toBeGreaterThan(0);
    expect(victims.length).toBeLessThan(3);
    await killServers(victims);
    const killedAt = Date.now();
    const open = await untilSettled(store, [agentRun.runId, flowRun.runId], 15_000);
    console.log(
      `[queue pg] SIGKILL of ${victims.length} of 3 processes: its runs settled ${Date.now() - killedAt} ms after`,
    );
    expect(open, logs()).toEqual([]);
    const events = await eventsOf(store, [agentRun.runId, flowRun.runId]);
    const agentEvents = events.get(agentRun.runId) ?? [];
    const flowEvents = events.get(flowRun.runId) ?? [];
    const kinds = (list: readonly Event[]) => list.map((event) => event.kind);
    expect(agentEvents.at(-1)?.kind, JSON.stringify(kinds(agentEvents))).toBe('run.completed');
    expect(flowEvents.at(-1)?.kind, JSON.stringify(kinds(flowEvents))).toBe('run.completed');
    for (const list of [agentEvents, flowEvents]) {
      expect(kinds(list).filter((kind) => kind === 'run.started')).toHaveLength(1);
      expect(kinds(list).filter((kind) => kind === 'run.resumed')).toHaveLength(1);
    }
    const resumed = agentEvents.find((event) => event.kind === 'run.resumed');
    expect(resumed?.payload).toMatchObject({ retry: { attempt: 2 } });
    // The workflow went on from its checkpoint after `first`: `first` once, `second` twice.
    const lines = notedLines(queueLog);
    expect(lines.filter((l) => l.what === 'first' && l.id === 'kill-wf')).toHaveLength(1);
    const seconds = lines.filter((l) => l.what === 'second' && l.id === 'kill-wf');
    expect(seconds).toHaveLength(2);
    expect(seconds[1]?.pid).not.toBe(seconds[0]?.pid);
    // The agent's turn was played again from its input: the tool ran once (the retry's model
    // call answered at once), and never ended on the killed process.
    expect(lines.filter((l) => l.id === agentRun.runId).map((l) => l.what)).toEqual(['start']);
    expect(model.remaining).toBe(0);
  }, 30_000);
});
