/**
 * Deploying while runs are in flight (#42) with one process on SQLite: `service-serve` on
 * fixture v1 with a slow streamed turn in flight, an approval waiting and a timer sleeping is
 * sent SIGTERM; it exits 0 within its deadline. Restarted on the same file with fixture v2, it
 * continues the handed-over turn at its start (the client follows it from the pause to
 * `run.completed`), the approval answered then goes on under v2 (`run.resumed.graph` v1 ->
 * v2, v2's node ran) and the timer wakes once; every run ended once, none lost.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ScriptedModelServer, scriptedModelServer } from '../src/testing/index.js';
import {
  expectHandedOver,
  expectWokeOnce,
  kindOf,
  recordedFrames,
  streamedChat,
} from './support/follow-run.js';
import type { Answer } from './support/load.js';
import { checkLog } from './support/log-checks.js';
import { killServers, type ServerProcess, startServer } from './support/server-process.js';

const FIXTURES = join(resolve(import.meta.dirname), 'fixtures/deploy');
const DRAIN_SECONDS = 1;
const dir = mkdtempSync(join(tmpdir(), 'agentdeck-deploy-'));
const eventsUrl = `sqlite://${join(dir, 'state.db')}`;

let model: ScriptedModelServer;
const servers: ServerProcess[] = [];

function serve(version: 'v1' | 'v2'): ServerProcess {
  const server = startServer(
    join(FIXTURES, version, '.agentdeck'),
    {
      SERVICE_EVENTS: eventsUrl,
      SERVICE_DRAIN_SECONDS: String(DRAIN_SECONDS),
      SERVICE_RUNTIME_HEARTBEAT_SECONDS: '0.5',
      OPENAI_BASE_URL: model.url,
      OPENAI_API_KEY: 'sk-test',
    },
    dir,
  );
  servers.push(server);
  return server;
}

const post = (url: string, body: unknown) =>
  fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
    signal: AbortSignal.timeout(8_000),
  });

beforeAll(async () => {
  model = await scriptedModelServer([]);
});

afterAll(async () => {
  await killServers(servers);
  await model?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('deploying on SQLite: one process drained and restarted on a changed graph', () => {
  it('continues the turn, answers the approval under v2, wakes the timer once', async () => {
    const first = serve('v1');
    const url1 = await first.url;
    const asked = await post(`${url1}/workflows/approval?thread_id=ap-1`, { amount: 3 });
    expect(asked.status).toBe(200);
    const approvalRun = asked.headers.get('x-run-id') as string;
    const wakeAt = new Date(Date.now() + 3_000).toISOString();
    const napped = await post(`${url1}/workflows/nap?thread_id=nap-1`, { wakeAt });
    expect(napped.status).toBe(200);
    const napRun = napped.headers.get('x-run-id') as string;
    model.push({ text: Array.from({ length: 30 }, (_, i) => `t${i} `), delayMs: 100 });
    model.push({ text: 'rest.' });
    const chat = await streamedChat(url1, 's-1');
    expect(chat.status).toBe(200);
    const chatRun = chat.headers.get('x-run-id') as string;
    const body = chat.text();
    await new Promise((r) => setTimeout(r, 300));

    const signalled = Date.now();
    first.child.kill('SIGTERM');
    expect(await body).toContain('event: paused');
    expect(await first.exited).toBe(0);
    expect(Date.now() - signalled).toBeLessThan((DRAIN_SECONDS + 7) * 1000);

    const second = serve('v2');
    const url2 = await second.url;
    const answered = await post(`${url2}/workflows/approval/ap-1/resume`, {
      value: { approved: true },
    });
    expect(answered.status).toBe(200);
    expect(await answered.json()).toMatchObject({ note: 'amount 3 approved', audited: 'v2' });
    const resumed = (await recordedFrames(url2, approvalRun))
      .map((f) => f.data as { kind: string; payload: { graph?: unknown } })
      .filter((e) => e.kind === 'run.resumed');
    expect(resumed.map((e) => e.payload.graph)).toEqual([{ from: 'v1', to: 'v2' }]);

    // The handed-over turn: resumed at the start, followed from the pause to its end.
    await expectHandedOver(url2, chatRun);
    await expectWokeOnce(url2, napRun);

    const answers: Answer[] = ['ap-1', 'nap-1', 's-1'].map((id) => ({
      kind: id === 's-1' ? 'chat' : 'workflow',
      server: url1,
      id,
      at: 0,
      ms: 0,
      status: 200,
      retryAfter: null,
      body: '',
    }));
    const report = await checkLog(eventsUrl, answers);
    expect(report.missing).toEqual([]);
    expect(report.doubleEnded).toEqual([]);
    expect(report.running).toEqual([]);
    // Restarting served at once: nothing waited out a lock on the file.
    expect(second.err()).toBe('');
    expect(report.runs.map((run) => run.status)).toEqual(['completed', 'completed', 'completed']);
    for (const run of report.runs) {
      const kinds = (await recordedFrames(url2, run.runId)).map(kindOf);
      expect(
        kinds.filter((k) => k === 'run.started'),
        run.runId,
      ).toHaveLength(1);
    }
  }, 20_000);
});
