/**
 * A durable workflow paused on `interrupt()` or `sleepUntil()` survives its process: one
 * child process runs it to the pause and exits (or is killed), a second one answers or
 * ticks it and gets the final state. All of them share one SQLite file (events and, with
 * SERVICE_CHECKPOINT unset, checkpoints). Nothing is lost, and nothing runs twice except
 * the interrupted node. The children are fresh Node processes (this process's Node, with
 * tsx) running test/fixtures/restart/child.ts.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import type { Event } from '../src/index.js';
import { SqliteEventStore } from '../src/stores/sqlite/index.js';

const REPO_ROOT = fileURLToPath(new URL('..', import.meta.url));
const CHILD = fileURLToPath(new URL('./fixtures/restart/child.ts', import.meta.url));
/** A child that takes longer than this is killed and reported. */
const CHILD_TIMEOUT_MS = 20_000;
const TEST_TIMEOUT_MS = 30_000;

interface Sandbox {
  dir: string;
  db: string;
  sideEffects: string;
}

interface ChildRun {
  args: string[];
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  lines: { kind: string; value: unknown }[];
  ms: number;
}

const dirs: string[] = [];
const children: ChildProcess[] = [];

afterEach(() => {
  for (const child of children.splice(0)) {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  }
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function sandbox(): Sandbox {
  const dir = mkdtempSync(join(tmpdir(), 'agentdeck-restart-'));
  dirs.push(dir);
  return { dir, db: join(dir, 'state.db'), sideEffects: join(dir, 'side-effects.log') };
}

/**
 * Run the child script in a fresh process on the sandbox's file. With `killOn`, the child
 * is sent SIGKILL as soon as it prints a line of that kind.
 */
function runChild(box: Sandbox, args: string[], killOn?: string): Promise<ChildRun> {
  // No SERVICE_* setting leaks in from this process (vitest sets memory:// ones). Only
  // SERVICE_EVENTS is set: with SERVICE_CHECKPOINT unset, checkpoints go to the events'
  // SQLite file, the default under test.
  const env: NodeJS.ProcessEnv = Object.fromEntries(
    Object.entries(process.env).filter(([name]) => !name.startsWith('SERVICE_')),
  );
  env.SERVICE_EVENTS = `sqlite://${box.db}`;
  env.RESTART_SIDE_EFFECTS = box.sideEffects;
  const started = Date.now();
  const child = spawn(process.execPath, ['--import', 'tsx', CHILD, ...args], {
    cwd: REPO_ROOT,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => {
    stdout += chunk.toString();
    if (killOn && parseLines(stdout).some((line) => line.kind === killOn)) child.kill('SIGKILL');
  });
  child.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const timer = setTimeout(() => {
    stderr += `\n[test] killed after ${CHILD_TIMEOUT_MS} ms`;
    child.kill('SIGKILL');
  }, CHILD_TIMEOUT_MS);
  return new Promise((resolve, reject) => {
    child.on('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      const ms = Date.now() - started;
      resolve({ args, code, signal, stdout, stderr, lines: parseLines(stdout), ms });
    });
  });
}

function parseLines(stdout: string): { kind: string; value: unknown }[] {
  return stdout
    .split('\n')
    .filter((line) => line.startsWith('{"kind":'))
    .map((line) => JSON.parse(line) as { kind: string; value: unknown });
}

function describeRun(run: ChildRun): string {
  return (
    `child [${run.args.join(' ')}] exited with code ${run.code}, signal ${run.signal} ` +
    `after ${run.ms} ms\n--- stdout ---\n${run.stdout}\n--- stderr ---\n${run.stderr}`
  );
}

function expectExitedCleanly(run: ChildRun): void {
  expect(run.code, describeRun(run)).toBe(0);
  expect(run.signal, describeRun(run)).toBeNull();
}

/** The value of the child's output line of `kind` (the assertion fails when it is missing). */
function output<T = unknown>(run: ChildRun, kind: string): T {
  const line = run.lines.find((l) => l.kind === kind);
  expect(line, `no '${kind}' line in the output of ${describeRun(run)}`).toBeDefined();
  return line?.value as T;
}

/** Read the log in this process, after the children exited. */
async function readLog(box: Sandbox, runId: string, claimKey: string) {
  const store = new SqliteEventStore({ path: box.db });
  try {
    return {
      events: await store.read(runId),
      runs: await store.listRuns(),
      claim: await store.claimHolder(claimKey),
    };
  } finally {
    await store.close();
  }
}

/**
 * What the SQLite checkpointer holds in the sandbox's (events) file: the stored thread ids
 * of its checkpoints, and its pending timers.
 */
function checkpointsInFile(box: Sandbox) {
  const db = new DatabaseSync(box.db);
  try {
    return {
      threads: db
        .prepare('SELECT DISTINCT thread_id FROM lg_checkpoints ORDER BY thread_id')
        .all()
        .map((row) => row.thread_id),
      wakeups: db
        .prepare('SELECT thread_id, wake_at FROM lg_wakeups ORDER BY thread_id')
        .all()
        .map((row) => ({ ...row })),
    };
  } finally {
    db.close();
  }
}

function sideEffects(box: Sandbox): string[] {
  if (!existsSync(box.sideEffects)) return [];
  return readFileSync(box.sideEffects, 'utf8').split('\n').filter(Boolean);
}

/** `[kind, node]` for each event: the node's name for `node.updated`, otherwise null. */
function shape(events: readonly Event[]): [string, string | null][] {
  return events.map((e) => [e.kind, e.kind === 'node.updated' ? e.payload.node : null]);
}

const APPROVAL = 'restart-approval';
const TIMER = 'restart-timer';

interface RunLine {
  interrupted: boolean;
  result: { type?: string; payload?: unknown; threadId?: string; runId?: string | null };
}

/**
 * Process 2 of the approval: a new deck on the same file lists the run as pending and
 * answers it; then the log, the claim and the side effects are checked in this process.
 */
async function answerAndCheck(box: Sandbox, sessionId: string, runId: string): Promise<void> {
  const second = await runChild(box, ['answer', runId, JSON.stringify({ approved: true })]);
  expectExitedCleanly(second);
  expect(output(second, 'pending')).toEqual([
    {
      runId,
      threadId: sessionId,
      payload: { question: 'approve?', amount: 120 },
      invocable: APPROVAL,
      kind: 'workflow',
      reason: 'interrupt',
      sessionId,
    },
  ]);
  expect(output(second, 'status-before')).toBe('waiting_human');
  const finalState = { amount: 120, note: 'amount 120 approved', approved: true };
  expect(output(second, 'answered')).toEqual({ interrupted: false, result: finalState });
  expect(output(second, 'status-after')).toBe('completed');

  const log = await readLog(box, runId, `thread:${APPROVAL}:${sessionId}`);
  expect(log.runs.map((r) => [r.runId, r.status])).toEqual([[runId, 'completed']]);
  expect(new Set(log.events.map((e) => e.runId))).toEqual(new Set([runId]));
  expect(log.events.map((e) => e.seq)).toEqual([0, 1, 2, 3, 4, 5, 6]);
  expect(shape(log.events)).toEqual([
    ['run.started', null],
    ['node.updated', 'prepare'],
    ['run.interrupted', null],
    ['run.resumed', null],
    ['node.updated', 'ask'],
    ['node.updated', 'finish'],
    ['run.completed', null],
  ]);
  expect(log.events.filter((e) => e.kind === 'node.updated').map((e) => e.payload)).toEqual([
    { node: 'prepare', delta: { note: 'amount 120' } },
    { node: 'ask', delta: { approved: true } },
    { node: 'finish', delta: { note: 'amount 120 approved' } },
  ]);
  expect(log.events[2]).toMatchObject({
    kind: 'run.interrupted',
    payload: { payload: { question: 'approve?', amount: 120 }, threadId: sessionId },
  });
  expect(log.events[6]).toMatchObject({
    kind: 'run.completed',
    payload: { output: [{ type: 'data', data: finalState }] },
  });
  expect(log.claim, 'the thread claim is freed when the run completes').toBeNull();
  // Only the interrupted node ran twice.
  expect(sideEffects(box)).toEqual(['prepare', 'ask', 'ask', 'finish']);
}

describe('durable workflows across processes (SQLite file, checkpoints in the same file)', () => {
  it(
    'a run paused on interrupt() is answered by a second process',
    async () => {
      const box = sandbox();
      const sessionId = 'order-7';
      const first = await runChild(box, ['interrupt-start', sessionId, '120']);
      expectExitedCleanly(first);
      const paused = output<RunLine>(first, 'run');
      expect(paused).toMatchObject({
        interrupted: true,
        result: {
          type: 'interrupt',
          payload: { question: 'approve?', amount: 120 },
          threadId: sessionId,
        },
      });
      const runId = paused.result.runId as string;
      expect(typeof runId).toBe('string');
      expect(sideEffects(box)).toEqual(['prepare', 'ask']);
      // SERVICE_CHECKPOINT unset: the checkpoints are in the events' file.
      expect(checkpointsInFile(box)).toEqual({
        threads: [`${APPROVAL}:${sessionId}`],
        wakeups: [],
      });

      await answerAndCheck(box, sessionId, runId);
    },
    TEST_TIMEOUT_MS,
  );

  it(
    'a run paused on sleepUntil() is woken by tick() in a second process',
    async () => {
      const box = sandbox();
      const sessionId = 'reminder-1';
      // In the past of the real clock: the thread still sleeps until a tick.
      const due = '2025-06-01T09:00:00Z';
      const wakeAt = '2025-06-01T09:00:00.000Z';
      const first = await runChild(box, ['timer-start', sessionId, due]);
      expectExitedCleanly(first);
      const paused = output<RunLine>(first, 'run');
      expect(paused).toMatchObject({
        interrupted: true,
        result: {
          type: 'interrupt',
          payload: { type: 'agentdeck.timer', wake_at: wakeAt },
          threadId: sessionId,
        },
      });
      const runId = paused.result.runId as string;
      expect(typeof runId).toBe('string');
      expect(sideEffects(box)).toEqual(['prepare', 'wait']);
      expect(checkpointsInFile(box)).toEqual({
        threads: [`${TIMER}:${sessionId}`],
        wakeups: [{ thread_id: `${TIMER}:${sessionId}`, wake_at: wakeAt }],
      });

      const now = new Date().toISOString();
      const second = await runChild(box, ['tick', now, '2025-06-01T08:59:59Z']);
      expectExitedCleanly(second);
      expect(output(second, 'due-before')).toEqual([]);
      expect(output(second, 'due')).toEqual([{ workflow: TIMER, threadId: sessionId, wakeAt }]);
      const finalState = { due, note: `due ${due} woke`, woke: true };
      expect(output(second, 'ticked')).toEqual([
        { workflow: TIMER, threadId: sessionId, runId, result: finalState, error: null },
      ]);
      expect(output(second, 'due-after')).toEqual([]);

      const log = await readLog(box, runId, `thread:${TIMER}:${sessionId}`);
      expect(log.runs.map((r) => [r.runId, r.status])).toEqual([[runId, 'completed']]);
      expect(new Set(log.events.map((e) => e.runId))).toEqual(new Set([runId]));
      expect(log.events.map((e) => e.seq)).toEqual([0, 1, 2, 3, 4, 5, 6]);
      expect(shape(log.events)).toEqual([
        ['run.started', null],
        ['node.updated', 'prepare'],
        ['run.paused', null],
        ['run.resumed', null],
        ['node.updated', 'wait'],
        ['node.updated', 'finish'],
        ['run.completed', null],
      ]);
      expect(log.events[2]).toMatchObject({
        kind: 'run.paused',
        payload: { reason: `sleeping until ${wakeAt}` },
      });
      expect(log.events[6]).toMatchObject({
        kind: 'run.completed',
        payload: { output: [{ type: 'data', data: finalState }] },
      });
      expect(log.claim, 'the thread claim is freed when the run completes').toBeNull();
      expect(sideEffects(box)).toEqual(['prepare', 'wait', 'wait', 'finish']);
      expect(checkpointsInFile(box).wakeups, 'the woken timer is no longer indexed').toEqual([]);
    },
    TEST_TIMEOUT_MS,
  );

  it(
    'a process killed (SIGKILL) right after the interrupt, deck never closed, leaves an answerable run',
    async () => {
      const box = sandbox();
      const sessionId = 'order-killed';
      const first = await runChild(box, ['interrupt-hold', sessionId, '120'], 'run');
      expect(first.signal, describeRun(first)).toBe('SIGKILL');
      const paused = output<RunLine>(first, 'run');
      expect(paused).toMatchObject({
        interrupted: true,
        result: { type: 'interrupt', threadId: sessionId },
      });
      const runId = paused.result.runId as string;
      expect(sideEffects(box)).toEqual(['prepare', 'ask']);

      await answerAndCheck(box, sessionId, runId);
    },
    TEST_TIMEOUT_MS,
  );
});
