/**
 * For the fault-injection tests: what the event log says after an outage, read through our
 * own store (any backend). Every run a client was told about (a 200) must be there, no run
 * may have more than one terminal event, and none may be left `running` once the stale
 * sweep has had its turn.
 */
import { DatabaseSync } from 'node:sqlite';
import { isTerminal } from '../../src/core/events.js';
import type { RunSummary } from '../../src/core/store.js';
import { openEventStore } from '../../src/stores/events-url.js';
import type { Answer } from './load.js';

export interface LogReport {
  runs: RunSummary[];
  /** Runs with more than one terminal event, with how many. */
  doubleEnded: { runId: string; terminals: number }[];
  /** Runs whose status is `running`. */
  running: RunSummary[];
  /** Answers with 200 whose thread or session has no run in the log. */
  missing: Answer[];
}

/** Read every run of the store at `eventsUrl` and check them against `answers`. */
export async function checkLog(eventsUrl: string, answers: readonly Answer[]): Promise<LogReport> {
  const store = openEventStore(eventsUrl);
  try {
    const runs = await store.listRuns({ limit: 1_000_000 });
    const doubleEnded: LogReport['doubleEnded'] = [];
    for (const run of runs) {
      const terminals = (await store.read(run.runId)).filter(isTerminal).length;
      if (terminals > 1) doubleEnded.push({ runId: run.runId, terminals });
    }
    const ids = new Set(runs.map((run) => run.sessionId));
    return {
      runs,
      doubleEnded,
      running: runs.filter((run) => run.status === 'running'),
      missing: answers.filter((answer) => answer.status === 200 && !ids.has(answer.id)),
    };
  } finally {
    await store.close();
  }
}

/** Poll until no run is `running` (the stale sweep closes a gone process's runs), bounded. */
export async function untilNoneRunning(eventsUrl: string, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let running: RunSummary[] = [];
  while (Date.now() < deadline) {
    const store = openEventStore(eventsUrl);
    try {
      running = await store.listRuns({ status: 'running', limit: 100 });
    } finally {
      await store.close();
    }
    if (running.length === 0) return;
    await new Promise((done) => setTimeout(done, 200));
  }
  const ids = running.map((run) => `${run.runId} (${run.origin})`).join(', ');
  throw new Error(`runs still running after ${timeoutMs} ms: ${ids}`);
}

/** SQLite's own check of the file at `path`: `ok`, or what it found wrong. */
export function sqliteIntegrity(path: string): unknown {
  const db = new DatabaseSync(path, { readOnly: true });
  try {
    return db.prepare('PRAGMA integrity_check').all();
  } finally {
    db.close();
  }
}

/**
 * For a failure report: each run on `sessionId` with its events (seq, kind, time, and a
 * failure's type and message), and the lines of `logs` that name the session or its runs.
 */
export async function describeThread(
  eventsUrl: string,
  sessionId: string,
  logs: string,
): Promise<string> {
  const store = openEventStore(eventsUrl);
  try {
    const runs = await store.listRuns({ sessionId, limit: 10 });
    const lines: string[] = [];
    for (const run of runs) {
      lines.push(`run ${run.runId} (${run.status}):`);
      for (const event of await store.read(run.runId)) {
        const failure =
          event.kind === 'run.failed'
            ? ` ${event.payload.errorType}: ${event.payload.message}`
            : '';
        lines.push(`  ${event.seq} ${event.kind} ${event.ts}${failure}`);
      }
    }
    const names = [sessionId, ...runs.map((run) => run.runId)];
    const logged = logs.split('\n').filter((line) => names.some((name) => line.includes(name)));
    return [...lines, ...logged.map((line) => `log: ${line}`)].join('\n');
  } finally {
    await store.close();
  }
}
