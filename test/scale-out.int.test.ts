/**
 * Scale-out with real processes: two `service-serve` processes (A and B, two ports) on one
 * Postgres database (events, claims, checkpoints) and one Redis (sessions), serving the
 * project in test/fixtures/scale, with one scripted model server for both. They must behave
 * as one service: a workflow paused on A is answered on B, a conversation started on A goes
 * on on B, a session busy on A is busy on B, a run played on A is followed live on B, a run
 * paused on A by the `service` command is resumed through B (its tool not run again), and a
 * run whose process is killed is closed as failed once its heartbeat stops, with nothing it
 * recorded lost. The database and the Redis keys are this file's own and are dropped after.
 */
import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ScriptedModelServer, scriptedModelServer } from '../src/testing/index.js';
import { binArgs } from './support/cli.js';
import { parseSse } from './support/http.js';
import { adminQuery, scratchDatabase } from './support/postgres.js';
import { killServers, type ServerProcess, startServer } from './support/server-process.js';

const PROJECT = join(resolve(import.meta.dirname), 'fixtures/scale/.agentdeck');
const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
const { name: database, url: databaseUrl } = scratchDatabase();
const keyPrefix = `agentdeck-test:${randomUUID()}:`;
/** Where the `booker` agent's slow tool writes `start <room>` / `done <room>`. */
const bookerDir = mkdtempSync(join(tmpdir(), 'agentdeck-scale-'));
const bookerLog = join(bookerDir, 'booker.log');
/** The slow tool ends when this file exists: the test decides, however loaded the machine. */
const bookerGate = join(bookerDir, 'booker.go');
/**
 * A live run renews its claim every 500 ms; missing three renewals (1.5 s) makes it stale. A
 * shorter lease let the other process's sweep close a live run on a loaded machine (a process
 * stalled past 600 ms while starting its naps), which its caller then saw as a bare 500.
 */
const HEARTBEAT_SECONDS = '0.5';

let model: ScriptedModelServer;
const servers: ServerProcess[] = [];
let A: string;
let B: string;

function serve(): ServerProcess {
  const server = startServer(PROJECT, {
    SERVICE_EVENTS: databaseUrl.href,
    SERVICE_SESSION: REDIS_URL,
    SERVICE_SESSION_KEY_PREFIX: keyPrefix,
    SERVICE_RUNTIME_HEARTBEAT_SECONDS: HEARTBEAT_SECONDS,
    BOOKER_LOG: bookerLog,
    BOOKER_GATE: bookerGate,
    OPENAI_BASE_URL: model.url,
    OPENAI_API_KEY: 'sk-test',
  });
  servers.push(server);
  return server;
}

beforeAll(async () => {
  await adminQuery(`CREATE DATABASE ${database}`);
  model = await scriptedModelServer([]);
  // Both start at once; the migrations serialize on an advisory lock.
  [A, B] = await Promise.all([serve().url, serve().url]);
}, 60_000);

afterAll(async () => {
  await killServers(servers);
  await model?.close();
  await adminQuery(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`);
  const redis = new Redis(REDIS_URL, { maxRetriesPerRequest: 1 });
  let cursor = '0';
  do {
    const [next, keys] = await redis.scan(cursor, 'MATCH', `${keyPrefix}*`, 'COUNT', 500);
    if (keys.length > 0) await redis.del(...keys);
    cursor = next;
  } while (cursor !== '0');
  await redis.quit();
}, 30_000);

const post = (url: string, body: unknown) =>
  fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });

const sleep = (ms: number) => new Promise((done) => setTimeout(done, ms));

/** Wait until `check` returns a value (not undefined), reading every 20 ms. */
async function until<T>(what: string, check: () => Promise<T | undefined>, ms = 10_000) {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    const value = await check();
    if (value !== undefined) return value;
    await sleep(20);
  }
  throw new Error(`timed out waiting for ${what}`);
}

/** The id of the run on `sessionId`, as any server lists it once it has started. */
async function runOn(server: string, sessionId: string): Promise<string> {
  return until(`a run on session ${sessionId}`, async () => {
    const response = await fetch(`${server}/runs?session_id=${sessionId}`);
    // A moment's refusal (a busy machine's database) is read again, as a client would.
    if (!response.ok) return undefined;
    const body = (await response.json()) as { runs: { run_id: string }[] };
    return body.runs[0]?.run_id;
  });
}

interface TailFrame {
  at: number;
  seq: number;
  kind: string;
  event: Record<string, unknown>;
}

/** Follow `GET /runs/{id}/events` on `server`, frame by frame, with the time each arrived. */
function tail(server: string, runId: string) {
  const frames: TailFrame[] = [];
  const done = (async () => {
    const response = await fetch(`${server}/runs/${runId}/events`);
    expect(response.status).toBe(200);
    const decoder = new TextDecoder();
    let buffer = '';
    for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
      buffer += decoder.decode(chunk, { stream: true });
      const end = buffer.lastIndexOf('\n\n');
      if (end < 0) continue;
      for (const frame of parseSse(buffer.slice(0, end + 2))) {
        const event = frame.data as Record<string, unknown>;
        frames.push({ at: Date.now(), seq: Number(frame.id), kind: String(event.kind), event });
      }
      buffer = buffer.slice(end + 2);
    }
  })();
  return { frames, done };
}

describe('two service-serve processes on one Postgres and one Redis', () => {
  it('answers on B a workflow interrupted on A', async () => {
    const paused = await post(`${A}/workflows/approval?thread_id=t-1`, { amount: 5 });
    const question = {
      type: 'interrupt',
      payload: { question: 'approve?', amount: 5 },
      thread_id: 't-1',
    };
    expect(await paused.json()).toEqual(question);
    expect(await (await fetch(`${B}/workflows/approval/pending`)).json()).toEqual([question]);
    const answered = await post(`${B}/workflows/approval/t-1/resume`, {
      value: { approved: true },
    });
    expect(await answered.json()).toEqual({ amount: 5, approved: true, note: 'amount 5 approved' });
    expect(await (await fetch(`${A}/workflows/approval/pending`)).json()).toEqual([]);
  });

  it('continues on B a conversation begun on A, with its history', async () => {
    model.push({ text: 'Nice to meet you, Ada.' }, { text: 'Your name is Ada.' });
    const first = await post(`${A}/agents/helper/chat`, {
      session_id: 'conv-1',
      message: 'My name is Ada.',
    });
    expect(await first.json()).toEqual({ output: 'Nice to meet you, Ada.' });
    const second = await post(`${B}/agents/helper/chat`, {
      session_id: 'conv-1',
      message: 'What is my name?',
    });
    expect(await second.json()).toEqual({ output: 'Your name is Ada.' });
    const input = JSON.stringify(model.requests.at(-1)?.body.input);
    expect(input).toContain('My name is Ada.');
    expect(input).toContain('Nice to meet you, Ada.');
    expect(input).toContain('What is my name?');
    model.assertConsumed();
  });

  it('refuses on B (409) a turn on a session whose turn A is playing', async () => {
    model.push({ text: ['slow ', 'answer'], delayMs: 600 });
    const calls = model.requests.length;
    const first = post(`${A}/agents/helper/chat`, { session_id: 'conv-2', message: 'hi' });
    await until('the model call of the turn on A', async () =>
      model.requests.length > calls ? true : undefined,
    );
    const second = await post(`${B}/agents/helper/chat`, { session_id: 'conv-2', message: 'hey' });
    expect(second.status).toBe(409);
    expect(((await second.json()) as { detail: string }).detail).toMatch(
      /session 'conv-2' is busy: run '[^']+' holds it/,
    );
    expect(await (await first).json()).toEqual({ output: 'slow answer' });
    model.assertConsumed();
  });

  it('follows live on B a run played on A', async () => {
    const tokens = Array.from({ length: 12 }, (_, i) => `tok${i} `);
    model.push({ text: tokens, delayMs: 100 });
    // Streamed (a JSON chat asks the model for its whole reply: one delta).
    const chat = post(`${A}/agents/helper/chat?stream=true`, {
      session_id: 'live-1',
      message: 'stream',
    });
    const runId = await runOn(B, 'live-1');
    const follow = tail(B, runId);
    const answer = await (await chat).text();
    const answeredAt = Date.now();
    expect(answer).toContain(`"output": "${tokens.join('')}"`);
    await follow.done;
    const { frames } = follow;
    expect(frames.map((frame) => frame.seq)).toEqual(frames.map((_, i) => i));
    expect(frames[0]?.kind).toBe('run.started');
    expect(frames.at(-1)?.kind).toBe('run.completed');
    const deltas = frames.filter((frame) => frame.kind === 'text.delta');
    expect(deltas.map((frame) => (frame.event.payload as { text: string }).text)).toEqual(tokens);
    // As it happens: B had the first token while A was still streaming (about 1 s to go).
    expect(answeredAt - (deltas[0]?.at ?? answeredAt)).toBeGreaterThan(300);
    model.assertConsumed();
  });

  it('closes as failed a run whose process is killed, once its heartbeat stops; nothing recorded is lost', async () => {
    const victim = serve();
    const url = await victim.url;
    const tokens = Array.from({ length: 60 }, (_, i) => `t${i} `);
    model.push({ text: tokens, delayMs: 100 });
    // The stream is read to its end: a response dropped unread is closed when it is collected,
    // and the server cancels a turn whose client went away.
    const reading = post(`${url}/agents/helper/chat?stream=true`, {
      session_id: 'conv-k',
      message: 'go',
    }).then((response) => response.text());
    reading.catch(() => {}); // it fails at the kill
    const runId = await runOn(B, 'conv-k');
    const follow = tail(B, runId);
    await until('three tokens seen on B', async () =>
      follow.frames.filter((frame) => frame.kind === 'text.delta').length >= 3 ? true : undefined,
    ).catch((error: Error) => {
      const seen = follow.frames.map((frame) => frame.kind).join(', ');
      throw new Error(`${error.message}; B saw [${seen}]; the victim logged: ${victim.err()}`);
    });
    victim.child.kill('SIGKILL');
    await victim.exited;
    const killedAt = Date.now();
    const seenBeforeKill = follow.frames.map((frame) => frame.event);

    // Three missed heartbeats (1.5 s) make the claim stale; B's next sweep (every 1.5 s)
    // closes the run, with no new turn on its session: the tail on B ends with it.
    await Promise.race([follow.done, sleep(8_000)]);
    expect(Date.now() - killedAt).toBeLessThan(5_000); // not the 3600 s stale-run timeout
    expect(follow.frames.at(-1)?.kind).toBe('run.failed');
    model.push({ text: 'fresh start' });
    // The sweeper frees the session a moment after it records run.failed (it holds the claim
    // while it closes the run, so a stalled process renewing then finds it taken; it always
    // has): a turn asked in between is told 409 and to try again, as a client would.
    let next = await post(`${B}/agents/helper/chat`, { session_id: 'conv-k', message: 'again' });
    for (let tries = 0; next.status === 409 && tries < 20; tries += 1) {
      await sleep(100);
      next = await post(`${B}/agents/helper/chat`, { session_id: 'conv-k', message: 'again' });
    }
    expect(await next.json()).toEqual({ output: 'fresh start' });

    const stored = parseSse(await (await fetch(`${B}/runs/${runId}/events?follow=false`)).text());
    const events = stored.map((frame) => frame.data as Record<string, unknown>);
    expect(events.map((event) => event.seq)).toEqual(events.map((_, i) => i));
    expect(events.slice(0, seenBeforeKill.length)).toEqual(seenBeforeKill);
    expect(events.at(-1)).toMatchObject({
      kind: 'run.failed',
      payload: {
        error_type: 'StaleRunError',
        message: expect.stringMatching(
          /not renewed for 1\.5 s \(its process stopped its heartbeat/,
        ),
      },
    });
    const run = (await (await fetch(`${B}/runs/${runId}`)).json()) as { status: string };
    expect(run.status).toBe('failed');
    model.assertConsumed();
  }, 40_000); // a process started, killed and swept on a loaded machine: 20 s was not always enough

  it('pauses a run on A with the service command, and resume through B continues it', async () => {
    model.push(
      { toolCalls: [{ name: 'book', arguments: { room: '7' }, callId: 'call_7' }] },
      { text: 'Room 7 is booked.' },
    );
    const streamed = post(`${A}/agents/booker/chat?stream=true`, {
      session_id: 'ctl-1',
      message: 'Book room 7',
    }).then((response) => response.text());
    const booked = () =>
      existsSync(bookerLog) ? readFileSync(bookerLog, 'utf8').trim().split('\n') : [];
    await until('the tool started on A', async () =>
      booked().includes('start 7') ? true : undefined,
    );
    const runId = await runOn(B, 'ctl-1');
    const signal = await promisify(execFile)(
      process.execPath,
      binArgs('service', 'runs', 'signal', runId, 'pause', '--reason', 'audit'),
      { env: { ...process.env, SERVICE_EVENTS: databaseUrl.href }, timeout: 30_000 },
    );
    expect(signal.stdout).toContain('recorded pause request');
    // A saw the request (its run records control.requested): the tool ends now, and the turn
    // pauses at its next safe point.
    await until('A observed the pause', async () => {
      const events = await fetch(`${B}/runs/${runId}/events?follow=false`);
      return (await events.text()).includes('"control.requested"') ? true : undefined;
    });
    writeFileSync(bookerGate, '');
    await until('paused', async () => {
      const run = (await (await fetch(`${B}/runs/${runId}`)).json()) as { status: string };
      return run.status === 'paused' ? true : undefined;
    });
    await streamed; // A's stream ends at the pause (WIRE.md renders no pause frame)
    expect(booked()).toEqual(['start 7', 'done 7']);

    const resumed = await fetch(`${B}/runs/${runId}/resume`, { method: 'POST' });
    expect(resumed.status).toBe(200);
    expect(await resumed.json()).toMatchObject({ run_id: runId, status: 'completed' });
    expect(booked()).toEqual(['start 7', 'done 7']); // the tool did not run again on B
    model.assertConsumed();
    const kinds = parseSse(
      await (await fetch(`${A}/runs/${runId}/events?follow=false`)).text(),
    ).map((frame) => (frame.data as { kind: string }).kind);
    expect(
      kinds.filter((k) => ['control.observed', 'run.paused', 'run.resumed'].includes(k)),
    ).toEqual(['control.observed', 'run.paused', 'run.resumed']);
    expect(kinds.at(-1)).toBe('run.completed');
  });
});

describe('timers on two processes', () => {
  it('wakes each sleeping thread once, at its time, with no tick() call', async () => {
    const wakeAt = new Date(Date.now() + 1_500).toISOString();
    const threads = Array.from({ length: 8 }, (_, i) => `nap-${randomUUID()}-${i}`);
    // Half the naps start on A, half on B: both processes arm their timers.
    const started = await Promise.all(
      threads.map((thread, i) =>
        post(`${i % 2 ? A : B}/workflows/nap?thread_id=${thread}`, { wakeAt }),
      ),
    );
    for (const answer of started) {
      const body = await answer.json();
      // A start that did not reach its timer says why in the servers' logs: print them.
      const logs = () => servers.map((server) => server.err()).join('\n');
      expect(body, `${answer.status}: ${logs()}`).toMatchObject({
        payload: { type: 'agentdeck.timer', wake_at: wakeAt },
      });
    }
    const runIds = await Promise.all(threads.map((thread) => runOn(A, thread)));
    for (const runId of runIds) {
      await until(`${runId} completed`, async () => {
        const run = (await (await fetch(`${A}/runs/${runId}`)).json()) as { status: string };
        return run.status === 'completed' ? true : undefined;
      }).catch(async (error: Error) => {
        const logs = servers.map((server) => server.err()).join('\n');
        throw new Error(`${error.message}; logs: ${logs} ${await debugWakeups()}`);
      });
    }
    for (const runId of runIds) {
      const events = parseSse(
        await (await fetch(`${B}/runs/${runId}/events?follow=false`)).text(),
      ).map((frame) => frame.data as { kind: string; ts: string });
      const resumed = events.filter((event) => event.kind === 'run.resumed');
      expect(resumed, servers.map((s) => s.err()).join('\n')).toHaveLength(1); // exactly once, whichever process woke it
      expect(Date.parse(resumed[0]?.ts ?? '')).toBeGreaterThanOrEqual(Date.parse(wakeAt));
      expect(Date.parse(resumed[0]?.ts ?? '') - Date.parse(wakeAt)).toBeLessThan(2_000);
    }
  });
});

async function debugWakeups(): Promise<string> {
  if (!process.env.DEBUG_WAKE) return '';
  const { default: pg } = await import('pg');
  const client = new pg.Client({ connectionString: databaseUrl.href });
  await client.connect();
  const rows = (await client.query('SELECT * FROM agentdeck_wakeups')).rows;
  const claims = (
    await client.query("SELECT * FROM claims WHERE key LIKE 'timers%' OR key LIKE 'thread:nap%'")
  ).rows;
  await client.end();
  return JSON.stringify({ rows, claims, now: new Date().toISOString() }, null, 1);
}
