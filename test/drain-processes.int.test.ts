/**
 * Draining across real processes on Postgres (#42): two servers; A plays streamed turns with
 * a slow model and is sent SIGTERM. A's readiness goes 503 at once, health stays 200, a new
 * chat is refused with 503; the turns still streaming at the deadline are paused and B
 * continues them; each ends once (`run.completed`), every client's stream is complete after
 * it follows the run on B with `Last-Event-ID`, and A exits within its deadline.
 */
import { randomUUID } from 'node:crypto';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ScriptedModelServer, scriptedModelServer } from '../src/testing/index.js';
import {
  streamedChat as chat,
  followFrom,
  gapFree,
  kindOf,
  recordedFrames,
} from './support/follow-run.js';
import { adminQuery, scratchDatabase } from './support/postgres.js';
import { killServers, type ServerProcess, startServer } from './support/server-process.js';

const PROJECT = join(resolve(import.meta.dirname), 'fixtures/scale/.agentdeck');
const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
const { name: database, url: databaseUrl } = scratchDatabase();
const keyPrefix = `agentdeck-test:${randomUUID()}:`;
const DRAIN_SECONDS = 1;

let model: ScriptedModelServer;
const servers: ServerProcess[] = [];

function serve(): ServerProcess {
  const server = startServer(PROJECT, {
    SERVICE_EVENTS: databaseUrl.href,
    SERVICE_SESSION: REDIS_URL,
    SERVICE_SESSION_KEY_PREFIX: keyPrefix,
    SERVICE_DRAIN_SECONDS: String(DRAIN_SECONDS),
    OPENAI_BASE_URL: model.url,
    OPENAI_API_KEY: 'sk-test',
  });
  servers.push(server);
  return server;
}

beforeAll(async () => {
  await adminQuery(`CREATE DATABASE ${database}`);
  model = await scriptedModelServer([]);
}, 30_000);

afterAll(async () => {
  await killServers(servers);
  await model?.close();
  await adminQuery(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`);
});

describe('draining a process on SIGTERM', () => {
  it('hands its streamed turns to the other process; each ends once, no stream misses anything', async () => {
    const a = serve();
    const b = serve();
    const [A, B] = await Promise.all([a.url, b.url]);
    const tokens = Array.from({ length: 30 }, (_, i) => `t${i} `);
    model.push({ text: tokens, delayMs: 100 }, { text: tokens, delayMs: 100 });
    model.push({ text: 'rest one.' }, { text: 'rest two.' });
    const responses = await Promise.all([chat(A, 'd-1'), chat(A, 'd-2')]);
    const runIds = responses.map((r) => r.headers.get('x-run-id') ?? '');
    const bodies = responses.map((r) => r.text());
    await new Promise((r) => setTimeout(r, 300));
    const signalled = Date.now();
    a.child.kill('SIGTERM');
    await new Promise((r) => setTimeout(r, 150));
    const ready = await fetch(`${A}/health/ready`);
    expect(ready.status).toBe(503);
    expect(((await ready.json()) as { status: string }).status).toBe('draining');
    expect((await fetch(`${A}/health`)).status).toBe(200);
    const refused = await chat(A, 'd-3');
    expect(refused.status).toBe(503);
    expect(refused.headers.get('retry-after')).toBeTruthy();
    // Each chat stream ends with `event: paused`; the client follows the rest on B.
    for (const body of bodies) expect(await body).toContain('event: paused');
    expect(await a.exited).toBe(0);
    expect(Date.now() - signalled).toBeLessThan((DRAIN_SECONDS + 7) * 1000);
    for (const runId of runIds) {
      const first = await recordedFrames(B, runId);
      const lastSeen = first.at(-1)?.id ?? '0';
      const frames = [...first, ...(await followFrom(B, runId, String(lastSeen)))];
      expect(gapFree(frames)).toBe(true);
      const kinds = frames.map(kindOf);
      expect(kinds.filter((k) => k === 'run.completed')).toHaveLength(1);
      expect(kinds.filter((k) => k.startsWith('run.'))).toEqual([
        'run.started',
        'run.paused',
        'run.resumed',
        'run.completed',
      ]);
    }
  }, 20_000);
});
