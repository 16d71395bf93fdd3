/**
 * A crash at each commit boundary of a workflow segment on Postgres (issue 43: a segment's
 * start is one commit, its end one). A deck process (test/fixtures/segment-crash/child.ts)
 * stops runs right before or right after one of them, then kills itself with SIGKILL: the
 * start of a run
 * (claim and `run.started`), its pause (`run.interrupted`), and, while it plays an answer, the
 * resume lock, the resumed start (claim and `run.resumed`) and the end (`run.completed`). A
 * deck in this process, sharing the database, then sweeps the dead process's runs and answers
 * again what was cut off. Every run must end as the docs promise (workflow-durability.md):
 * nothing recorded before the start committed, failed when the graph had not checkpointed,
 * waiting for its question when the thread waits there, completed when the graph ended; at
 * most one terminal event each; and every answer applied exactly once (`finish` runs once).
 * One process holds every case at its boundary and dies once all are held, so the test costs
 * one process start; it runs on a database of this file's own on the shared server.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { RunSummary } from '../../src/core/store.js';
import { ConflictError, Deck, type InterruptResult, isInterrupt } from '../../src/index.js';
import { openEventStore } from '../../src/stores/events-url.js';
import { crashApproval } from '../fixtures/segment-crash/workflow.js';
import { checkLog, untilNoneRunning } from '../support/log-checks.js';
import { adminQuery, scratchDatabase } from '../support/postgres.js';

const REPO_ROOT = fileURLToPath(new URL('../..', import.meta.url));
const CHILD = fileURLToPath(new URL('../fixtures/segment-crash/child.ts', import.meta.url));
/** A lease of 1.5 s (three heartbeats): the sweep closes a dead process's runs soon after. */
const RUNTIME_ENV = {
  SERVICE_RUNTIME_STALE_RUN_AFTER_SECONDS: '2',
  SERVICE_RUNTIME_HEARTBEAT_SECONDS: '0.5',
};

type Expected = 'nothing' | 'failed' | 'waits' | 'completed';
interface Case {
  name: string;
  mode: 'start' | 'answer';
  crashAt: string;
  expected: Expected;
}

const CASES: Case[] = [
  {
    name: 'before the start commits',
    mode: 'start',
    crashAt: 'run.started:before',
    expected: 'nothing',
  },
  {
    name: 'after the start commits',
    mode: 'start',
    crashAt: 'run.started:after',
    expected: 'failed',
  },
  {
    name: 'before the pause commits',
    mode: 'start',
    crashAt: 'run.interrupted:before',
    expected: 'waits',
  },
  {
    name: 'after the pause commits',
    mode: 'start',
    crashAt: 'run.interrupted:after',
    expected: 'waits',
  },
  {
    name: 'holding the resume lock',
    mode: 'answer',
    crashAt: 'agentdeck.claim:resume::after',
    expected: 'waits',
  },
  {
    name: 'before the resumed start commits',
    mode: 'answer',
    crashAt: 'run.resumed:before',
    expected: 'waits',
  },
  {
    name: 'after the resumed start commits',
    mode: 'answer',
    crashAt: 'run.resumed:after',
    expected: 'waits',
  },
  {
    name: 'before the end commits',
    mode: 'answer',
    crashAt: 'run.completed:before',
    expected: 'completed',
  },
  {
    name: 'after the end commits',
    mode: 'answer',
    crashAt: 'run.completed:after',
    expected: 'completed',
  },
];

const database = scratchDatabase();
const url = database.url.toString();
const dir = mkdtempSync(join(tmpdir(), 'agentdeck-segment-crash-'));
const sideEffects = join(dir, 'side-effects.log');
let child: ChildProcess | undefined;
const decks: Deck[] = [];

beforeAll(async () => {
  await adminQuery(`CREATE DATABASE ${database.name}`);
});

afterAll(async () => {
  if (child?.exitCode === null) child.kill('SIGKILL');
  for (const deck of decks) await deck.close();
  await adminQuery(`DROP DATABASE IF EXISTS ${database.name} WITH (FORCE)`);
  rmSync(dir, { recursive: true, force: true });
});

/** How often `node` ran for case `index` (its amount), in every process. */
function nodesRun(index: number, node: string): number {
  if (!existsSync(sideEffects)) return 0;
  return readFileSync(sideEffects, 'utf8')
    .split('\n')
    .filter((line) => line === `${node} ${index}`).length;
}

/** A deck here, on the test's database; `short` gives it the short lease (its sweep closes dead runs soon). */
async function openDeck(short: boolean): Promise<Deck> {
  for (const [name, value] of Object.entries(RUNTIME_ENV)) vi.stubEnv(name, short ? value : '');
  vi.stubEnv('SERVICE_EVENTS', url);
  vi.stubEnv('SERVICE_CHECKPOINT', '');
  vi.stubEnv('RESTART_SIDE_EFFECTS', sideEffects);
  const deck = await new Deck({ workflows: [crashApproval] }).open();
  decks.push(deck);
  return deck;
}

/** The deck process that holds each case at its boundary, then kills itself: how it exited. */
function crashingChild(cases: unknown[]) {
  const env: NodeJS.ProcessEnv = Object.fromEntries(
    Object.entries(process.env).filter(([name]) => !name.startsWith('SERVICE_')),
  );
  Object.assign(env, RUNTIME_ENV, { SERVICE_EVENTS: url, RESTART_SIDE_EFFECTS: sideEffects });
  child = spawn(process.execPath, ['--import', 'tsx', CHILD, JSON.stringify(cases)], {
    cwd: REPO_ROOT,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const collect = (chunk: Buffer) => {
    output += chunk.toString();
  };
  child.stdout?.on('data', collect);
  child.stderr?.on('data', collect);
  return new Promise<{ signal: NodeJS.Signals | null; output: string }>((resolve) => {
    child?.on('exit', (_code, signal) => resolve({ signal, output }));
  });
}

/** Answer as a person retrying would: with the same key, again while a dead resumer's lock is fresh. */
async function answerAgain(deck: Deck, runId: string, key: string) {
  for (const started = Date.now(); ; await new Promise((r) => setTimeout(r, 200))) {
    try {
      return await deck.answer(runId, { approved: true }, { idempotencyKey: key });
    } catch (error) {
      if (!(error instanceof ConflictError) || Date.now() - started > 5_000) throw error;
    }
  }
}

describe('a crash at each commit boundary of a workflow segment (Postgres)', () => {
  it('leaves every run where a restart closes it correctly, each answer applied once', async () => {
    const session = (index: number) => `crash-${index}-${randomUUID().slice(0, 8)}`;
    const sessions: string[] = CASES.map((_, index) => session(index));
    // The runs an answer is cut off in wait for it first: played here, to the question, by
    // a deck with the default lease, closed before the crash (no sweep of this process runs
    // while the child holds its cases).
    const setup = await openDeck(false);
    const specs = [];
    for (const [index, c] of CASES.entries()) {
      if (c.mode === 'start') {
        specs.push({ mode: 'start', id: sessions[index], amount: index, crashAt: c.crashAt });
        continue;
      }
      const paused = await setup.run(
        crashApproval.name,
        { amount: index },
        { sessionId: sessions[index] as string },
      );
      const runId = (paused as InterruptResult).runId as string;
      specs.push({ mode: 'answer', id: runId, key: `key-${index}`, crashAt: c.crashAt });
    }
    await setup.close();
    const exit = await crashingChild(specs);
    expect(exit).toMatchObject({ signal: 'SIGKILL' });

    // A restart: a deck on the same database, whose stale sweep closes the dead process's runs.
    const deck = await openDeck(true);
    await untilNoneRunning(url, 15_000);
    const store = openEventStore(url);
    try {
      for (const [index, c] of CASES.entries()) {
        const runs = await store.listRuns({ sessionId: sessions[index] as string });
        const what = `${c.name} (${c.crashAt})`;
        if (c.expected === 'nothing') {
          expect(runs, what).toEqual([]);
          expect(nodesRun(index, 'prepare'), what).toBe(0);
          continue;
        }
        expect(runs, what).toHaveLength(1);
        const [run] = runs as [RunSummary];
        if (c.expected === 'failed') {
          expect(run.status, what).toBe('failed');
          expect(nodesRun(index, 'prepare'), what).toBe(0);
          continue;
        }
        expect(run.status, what).toBe(c.expected === 'waits' ? 'waiting_human' : 'completed');
        const result = await answerAgain(deck, run.runId, `key-${index}`);
        expect(isInterrupt(result), what).toBe(false);
        expect(result, what).toMatchObject({ approved: true, note: `amount ${index} approved` });
        expect((await store.getRun(run.runId))?.status, what).toBe('completed');
        expect(nodesRun(index, 'prepare'), what).toBe(1);
        expect(nodesRun(index, 'finish'), what).toBe(1);
      }
    } finally {
      await store.close();
    }
    const report = await checkLog(url, []);
    expect(report.doubleEnded).toEqual([]);
    expect(report.running).toEqual([]);
  }, 60_000);
});
