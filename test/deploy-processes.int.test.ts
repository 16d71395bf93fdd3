/**
 * Deploying while runs are in flight (#42), through real processes on Postgres: A and B serve
 * fixture v1 on one cluster (and one Redis for sessions) under load: streamed chats with a
 * slow model on both, two approvals waiting and a sleeping timer (started on A). A is sent
 * SIGTERM: its readiness says draining, it exits 0 within its deadline, its chats are handed
 * over. C starts on fixture v2 (the approval gains a node after the waiting one). An approval
 * answered on C goes on under v2 (`run.resumed.graph` v1 -> v2, v2's node ran), one answered
 * on B completes under v1, the timer wakes once; every cut stream is followed on B to
 * `run.completed` gap-free; every run started once and ended once, none lost.
 */
import { randomUUID } from 'node:crypto';
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
import { parseSse } from './support/http.js';
import type { Answer } from './support/load.js';
import { checkLog } from './support/log-checks.js';
import { type OwnPostgres, startOwnPostgres } from './support/own-postgres.js';
import { postgresOrRedisUnavailable, TEST_REDIS_URL } from './support/process-backends.js';
import { killServers, type ServerProcess, startServer } from './support/server-process.js';

const FIXTURES = join(resolve(import.meta.dirname), 'fixtures/deploy');
const V1 = join(FIXTURES, 'v1/.agentdeck');
const V2 = join(FIXTURES, 'v2/.agentdeck');
const keyPrefix = `agentdeck-test:${randomUUID()}:`;
const DRAIN_SECONDS = 1;
const skipReason = await postgresOrRedisUnavailable();

let postgres: OwnPostgres | undefined;
let model: ScriptedModelServer;
const servers: ServerProcess[] = [];

function serve(project: string): ServerProcess {
  const server = startServer(project, {
    SERVICE_EVENTS: (postgres as OwnPostgres).url,
    SERVICE_SESSION: TEST_REDIS_URL,
    SERVICE_SESSION_KEY_PREFIX: keyPrefix,
    SERVICE_DRAIN_SECONDS: String(DRAIN_SECONDS),
    SERVICE_RUNTIME_HEARTBEAT_SECONDS: '0.5',
    OPENAI_BASE_URL: model.url,
    OPENAI_API_KEY: 'sk-test',
  });
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

const deltasOf = (sse: string) =>
  parseSse(sse)
    .filter((f) => f.event === undefined)
    .map((f) => (f.data as { delta: string }).delta)
    .join('');

describe.skipIf(skipReason !== null)(
  `deploying while runs are in flight ${skipReason ?? ''}`,
  () => {
    beforeAll(async () => {
      [postgres, model] = await Promise.all([startOwnPostgres(), scriptedModelServer([])]);
    }, 30_000);

    afterAll(async () => {
      await killServers(servers);
      await model?.close();
      await postgres?.destroy();
    });

    it('drains A, deploys v2 on C: every run ends or waits, once; every stream completes', async () => {
      const a = serve(V1);
      const b = serve(V1);
      const [A, B] = await Promise.all([a.url, b.url]);
      const answers: Answer[] = [];
      const record = (kind: Answer['kind'], server: string, id: string, status: number) =>
        answers.push({
          kind,
          server,
          id,
          at: Date.now(),
          ms: 0,
          status,
          retryAfter: null,
          body: '',
        });

      // Waiting work, started on A: two approvals and a timer that wakes after A is gone.
      const approvals = ['ap-1', 'ap-2'];
      const approvalRuns: Record<string, string> = {};
      for (const thread of approvals) {
        const asked = await post(`${A}/workflows/approval?thread_id=${thread}`, { amount: 7 });
        expect(asked.status).toBe(200);
        expect(await asked.json()).toMatchObject({ type: 'interrupt', thread_id: thread });
        approvalRuns[thread] = asked.headers.get('x-run-id') as string;
        record('workflow', A, thread, 200);
      }
      const wakeAt = new Date(Date.now() + 3_500).toISOString();
      const napped = await post(`${A}/workflows/nap?thread_id=nap-1`, { wakeAt });
      expect(napped.status).toBe(200);
      const napRun = napped.headers.get('x-run-id') as string;
      record('workflow', A, 'nap-1', 200);

      // Streamed chats: three on A (slow: still streaming at A's deadline), two on B.
      const slow = { text: Array.from({ length: 30 }, (_, i) => `t${i} `), delayMs: 100 };
      const onA = ['a-1', 'a-2', 'a-3'];
      const onB = ['b-1', 'b-2'];
      model.push(slow, slow, slow, slow, slow);
      model.push({ text: 'rest.' }, { text: 'rest.' }, { text: 'rest.' });
      const chats = await Promise.all([
        ...onA.map((s) => streamedChat(A, s)),
        ...onB.map((s) => streamedChat(B, s)),
      ]);
      const chatRuns = chats.map((r) => r.headers.get('x-run-id') as string);
      for (const [i, session] of [...onA, ...onB].entries()) {
        expect(chats[i]?.status).toBe(200);
        record('chat', i < onA.length ? A : B, session, 200);
      }
      const bodies = chats.map((r) => r.text());
      await new Promise((r) => setTimeout(r, 300));

      const signalled = Date.now();
      a.child.kill('SIGTERM');
      await new Promise((r) => setTimeout(r, 150));
      const ready = await fetch(`${A}/health/ready`);
      expect(ready.status).toBe(503);
      expect(((await ready.json()) as { status: string }).status).toBe('draining');
      expect((await fetch(`${A}/health`)).status).toBe(200);
      expect(await a.exited).toBe(0);
      const drainedMs = Date.now() - signalled;
      expect(drainedMs).toBeLessThan((DRAIN_SECONDS + 7) * 1000);

      const c = serve(V2);
      const C = await c.url;
      // ap-1 answered under v2 on C, ap-2 under v1 on B.
      const [onC, onBAnswer] = await Promise.all([
        post(`${C}/workflows/approval/ap-1/resume`, { value: { approved: true } }),
        post(`${B}/workflows/approval/ap-2/resume`, { value: { approved: true } }),
      ]);
      expect(onC.status).toBe(200);
      expect(onBAnswer.status).toBe(200);
      expect(await onC.json()).toMatchObject({ note: 'amount 7 approved', audited: 'v2' });
      const underV1 = (await onBAnswer.json()) as Record<string, unknown>;
      expect(underV1).toMatchObject({ note: 'amount 7 approved' });
      expect(underV1.audited).toBeUndefined();
      const resumedOf = async (runId: string) =>
        (await recordedFrames(B, runId))
          .map((f) => f.data as { kind: string; payload: { graph?: unknown } })
          .filter((e) => e.kind === 'run.resumed');
      expect((await resumedOf(approvalRuns['ap-1'] as string)).map((e) => e.payload.graph)).toEqual(
        [{ from: 'v1', to: 'v2' }],
      );
      expect((await resumedOf(approvalRuns['ap-2'] as string)).map((e) => e.payload.graph)).toEqual(
        [undefined],
      );

      // Every chat stream is complete: A's cut ones after following them on B.
      const texts = await Promise.all(bodies);
      for (const [i, runId] of chatRuns.entries()) {
        const got = texts[i] as string;
        if (i >= onA.length) {
          expect(got).toContain('event: done');
          continue;
        }
        expect(got).toContain('event: paused');
        // The client saw everything up to the pause: follow from there, as EventSource would.
        const upToPause = await expectHandedOver(B, runId);
        const textOf = (frames: typeof upToPause) =>
          frames
            .filter((f) => kindOf(f) === 'text.delta')
            .map((f) => (f.data as { payload: { text: string } }).payload.text)
            .join('');
        expect(deltasOf(got)).toBe(textOf(upToPause));
      }

      // The timer wakes once, on B or C, and completes.
      await expectWokeOnce(B, napRun);

      const report = await checkLog((postgres as OwnPostgres).url, answers);
      expect(report.missing).toEqual([]);
      expect(report.doubleEnded).toEqual([]);
      expect(report.running).toEqual([]);
      for (const run of report.runs) {
        const kinds = (await recordedFrames(B, run.runId)).map(kindOf);
        expect(
          kinds.filter((k) => k === 'run.started'),
          run.runId,
        ).toHaveLength(1);
        expect(run.status, run.runId).toBe('completed');
      }
      expect(report.runs).toHaveLength(approvals.length + 1 + onA.length + onB.length);
      console.log(`A drained in ${drainedMs} ms`);
    }, 25_000);
  },
);
