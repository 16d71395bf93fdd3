/**
 * A crash at every commit boundary of the SQLite write path (issue 43). The path
 * (test/fixtures/commit-crash/path.ts: a 3-node durable run, then an approval to its
 * interrupt and its answer) is played once in this process, counting its commits; then, for
 * each n of them, a child process (child.ts) plays it on a file of its own and kills itself
 * with SIGKILL just before its n-th commit, so the file holds exactly what the first n - 1
 * commits wrote. A deck then opens on each file, as a restart would, and:
 * - nothing a caller was told is lost: a run the child printed as completed is completed, an
 *   interrupt it printed is there (waiting, or answered), an answer it printed is applied;
 * - every run's log is whole: seqs from 0 without a gap, one `run.started`, at most one
 *   terminal event and nothing after it;
 * - no run is left `running`: the stale sweep closes a dead process's run (or, for a
 *   workflow whose thread waits at its question, makes it wait again), and both sessions
 *   take a new run;
 * - the answer takes effect exactly once: a waiting approval answered now completes with
 *   the note written once.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { Deck, type Event, isInterrupt } from '../../src/index.js';
import { SqliteEventStore } from '../../src/stores/sqlite/index.js';
import { play, threeSteps, watchCommits } from '../fixtures/commit-crash/path.js';
import { approvalFlow } from '../fixtures/restart/workflows.js';

const REPO_ROOT = fileURLToPath(new URL('../..', import.meta.url));
const CHILD = fileURLToPath(new URL('../fixtures/commit-crash/child.ts', import.meta.url));
const CHILD_TIMEOUT_MS = 20_000;
/** A dead child's claims lapse after 3 heartbeats: 0.3 s. */
const HEARTBEAT_SECONDS = '0.1';

interface Crash {
  crashAt: number;
  file: string;
  sideEffects: string;
  lines: { kind: string; value: unknown }[];
  signal: NodeJS.Signals | null;
  stderr: string;
}

const dirs: string[] = [];
const children: ChildProcess[] = [];

afterEach(() => {
  for (const child of children.splice(0)) if (child.exitCode === null) child.kill('SIGKILL');
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function childEnv(file: string, sideEffects: string, crashAt: number): NodeJS.ProcessEnv {
  const env = Object.fromEntries(
    Object.entries(process.env).filter(([name]) => !name.startsWith('SERVICE_')),
  );
  return {
    ...env,
    SERVICE_EVENTS: `sqlite://${file}`,
    SERVICE_RUNTIME_HEARTBEAT_SECONDS: HEARTBEAT_SECONDS,
    RESTART_SIDE_EFFECTS: sideEffects,
    CRASH_AT_COMMIT: String(crashAt),
  };
}

function sandbox(crashAt = 0): Crash {
  const dir = mkdtempSync(join(tmpdir(), 'agentdeck-commit-crash-'));
  dirs.push(dir);
  const file = join(dir, 'state.db');
  const sideEffects = join(dir, 'side-effects.log');
  return { crashAt, file, sideEffects, lines: [], signal: null, stderr: '' };
}

function stubDeckEnv(file: string, sideEffects: string): void {
  vi.stubEnv('SERVICE_EVENTS', `sqlite://${file}`);
  vi.stubEnv('SERVICE_CHECKPOINT', `sqlite://${file}`);
  vi.stubEnv('SERVICE_RUNTIME_HEARTBEAT_SECONDS', HEARTBEAT_SECONDS);
  vi.stubEnv('RESTART_SIDE_EFFECTS', sideEffects);
}

/** Play the path in a child that kills itself before its `crashAt`-th commit. */
function crashBefore(crashAt: number): Promise<Crash> {
  const { file, sideEffects } = sandbox(crashAt);
  const child = spawn(process.execPath, ['--import', 'tsx', CHILD], {
    cwd: REPO_ROOT,
    env: childEnv(file, sideEffects, crashAt),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => {
    stdout += chunk.toString();
  });
  child.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const timer = setTimeout(() => child.kill('SIGKILL'), CHILD_TIMEOUT_MS);
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (_code, signal) => {
      clearTimeout(timer);
      const lines = stdout
        .split('\n')
        .filter((line) => line.startsWith('{'))
        .map((line) => JSON.parse(line) as { kind: string; value: unknown });
      resolve({ crashAt, file, sideEffects, lines, signal, stderr });
    });
  });
}

const told = (crash: Crash, kind: string) => crash.lines.find((line) => line.kind === kind);

/** The log of a run is whole: gap-free seqs, one start, at most one end, nothing after it. */
function expectWhole(events: Event[], where: string): void {
  expect(
    events.map((event) => event.seq),
    where,
  ).toEqual(events.map((_, index) => index));
  expect(
    events.filter((event) => event.kind === 'run.started'),
    where,
  ).toHaveLength(1);
  const ends = events.filter((event) => TERMINAL_KINDS.has(event.kind));
  expect(ends.length, where).toBeLessThanOrEqual(1);
  if (ends.length === 1) expect(events.at(-1)?.kind, where).toBe(ends[0]?.kind);
}

const TERMINAL_KINDS = new Set(['run.completed', 'run.failed', 'run.cancelled']);

/** Open a deck on the crashed file as a restart would, and check what it finds. */
async function checkAfter(crash: Crash): Promise<void> {
  const where = `crash before commit ${crash.crashAt} (${JSON.stringify(told(crash, 'crash'))})`;
  stubDeckEnv(crash.file, crash.sideEffects);
  const deck = await new Deck({ workflows: [threeSteps, approvalFlow] }).open();
  const log = new SqliteEventStore({ path: crash.file });
  try {
    // The stale sweep closes what the dead process left running (once per 0.3 s lease).
    await vi.waitFor(
      async () => {
        const running = (await log.listRuns()).filter((run) => run.status === 'running');
        expect(running, where).toEqual([]);
      },
      { timeout: 5_000, interval: 100 },
    );
    const runs = await log.listRuns();
    for (const run of runs) expectWhole(await log.read(run.runId), `${where}, ${run.runId}`);
    const three = runs.filter((run) => run.origin === threeSteps.name);
    expect(three.length, where).toBeLessThanOrEqual(1);
    if (told(crash, 'ran')) expect(three[0]?.status, where).toBe('completed');
    const cycle = runs.filter((run) => run.origin === approvalFlow.name);
    expect(cycle.length, where).toBeLessThanOrEqual(1);
    if (told(crash, 'interrupted')) expect(cycle[0], where).toBeDefined();
    if (told(crash, 'answered')) expect(cycle[0]?.status, where).toBe('completed');
    const approval = cycle[0];
    const status: string | undefined = approval?.status;
    if (approval && status === 'waiting_human') {
      const result = await deck.answer(approval.runId, { approved: true });
      expect(result, where).toMatchObject({ note: 'amount 7 approved', approved: true });
    } else if (approval && status === 'completed') {
      const end = (await log.read(approval.runId)).at(-1);
      expect(JSON.stringify(end?.payload), where).toContain('"note":"amount 7 approved"');
    } else if (approval) {
      expect(told(crash, 'interrupted'), `${where}: a failed approval was never told`).toBe(
        undefined,
      );
    }
    // Both sessions take a new run: no claim is left behind.
    expect(await deck.run(threeSteps.name, { n: 0 }, { sessionId: 'three' }), where).toMatchObject({
      n: 3,
    });
    const again = await deck.run(approvalFlow.name, { amount: 8 }, { sessionId: 'cycle' });
    expect(isInterrupt(again), where).toBe(true);
  } finally {
    await deck.close();
    await log.close();
  }
}

describe('a crash at each commit boundary (SQLite)', () => {
  it('leaves every run closed correctly, nothing told lost, the answer applied once', async () => {
    const whole = sandbox();
    stubDeckEnv(whole.file, whole.sideEffects);
    const deck = await new Deck({ workflows: [threeSteps, approvalFlow] }).open();
    let commits = 0;
    const stop = watchCommits(() => {
      commits += 1;
    });
    try {
      await play(deck, (kind, value) => whole.lines.push({ kind, value }));
    } finally {
      stop();
      await deck.close();
    }
    expect(commits).toBeGreaterThan(2);
    await checkAfter(whole);
    const points = Array.from({ length: commits }, (_, index) => index + 1);
    const crashes = await Promise.all(points.map(crashBefore));
    for (const crash of crashes) {
      expect(crash.signal, `crash ${crash.crashAt}: ${crash.stderr}`).toBe('SIGKILL');
      expect(told(crash, 'crash'), `crash ${crash.crashAt}: ${crash.stderr}`).toBeDefined();
      await checkAfter(crash);
    }
  }, 90_000);
});
