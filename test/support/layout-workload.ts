/**
 * Test support for the rolling-upgrade check (CONTRIBUTING.md, "Migrations and rolling
 * upgrades"): a representative set of an event store's reads and writes (appending a run's
 * events, listing, claiming, control requests, continuations, the queue, pruning, datasets
 * and experiments), and the
 * recordings of the SQL a release's store issues for it, replayed later against a newer
 * schema. A recording is the statements and their parameters as the driver got them, so a
 * replay runs exactly what that release runs, whatever the code has become since.
 */
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { TextBlock } from '../../src/core/blocks.js';
import { hasEvalStore } from '../../src/core/evals.js';
import type { NewEvent } from '../../src/core/events.js';
import type { RunQueue } from '../../src/core/queue.js';
import type { EventStore, RunBoundaries, RunPruning } from '../../src/core/store.js';
import { REPO_ROOT } from './cli.js';

/** One statement a store ran: its SQL, its parameters, and (for a read) what it returned. */
export interface Recorded {
  sql: string;
  params: unknown[];
  /** The result's column names and row count, when it returned rows. */
  columns?: string[];
  rows?: number;
}

/** A release's workload, recorded on the schema of `layout`. */
export interface Recording {
  backend: 'sqlite' | 'postgres';
  layout: number;
  release: string;
  statements: Recorded[];
}

type FullStore = EventStore & RunBoundaries & RunPruning & RunQueue;

const envelope = (
  runId: string,
  origin = 'upgrade',
): Pick<NewEvent, 'runId' | 'sessionId' | 'namespace' | 'origin'> => ({
  runId,
  sessionId: 'session-1',
  namespace: 'acme',
  origin,
});

/**
 * The workload: fixed ids, so a recording is the same from run to run but for timestamps.
 * It covers what a release running beside a newer one does to the shared store.
 */
export async function runWorkload(store: FullStore): Promise<void> {
  const a = envelope('run-upgrade-a');
  const claimed = await store.claimAndAppend(
    { key: 'session:session-1', runId: a.runId, staleAfterMs: 60_000, leaseMs: 30_000 },
    [
      {
        ...a,
        kind: 'run.started',
        payload: { invocableType: 'agent', input: [new TextBlock('hi')] },
      },
    ],
  );
  if (!claimed.claim.acquired) throw new Error('the workload could not claim its session');
  await store.append([
    { ...a, kind: 'text.delta', payload: { messageId: 'm1', text: 'hel' } },
    { ...a, kind: 'text.delta', payload: { messageId: 'm1', text: 'lo' } },
  ]);
  await store.read(a.runId);
  await store.read(a.runId, { afterSeq: 1, limit: 10 });
  await store.getRun(a.runId);
  await store.listRuns({ limit: 10 });
  await store.listRuns({ status: 'running', limit: 10 });
  await store.listRuns({ sessionId: 'session-1', limit: 10 });
  await store.claimHolder('session:session-1');
  await store.recordControl(a.runId, 'pause', 'upgrade');
  await store.readControl(a.runId);
  await store.append([{ ...a, kind: 'run.paused', payload: { reason: 'upgrade' } }]);
  await store.saveContinuation(a.runId, '{"step":1}');
  await store.readContinuation(a.runId);
  await store.dropContinuation(a.runId);
  await store.append([{ ...a, kind: 'run.resumed', payload: { requestId: null } }]);
  await store.endRun(
    { ...a, kind: 'run.completed', payload: { output: [new TextBlock('done')], usage: null } },
    'session:session-1',
  );
  await store.claim({ key: 'thread:w:1', runId: a.runId, staleAfterMs: 60_000 });
  await store.release('thread:w:1', a.runId);

  const b = envelope('run-upgrade-b', 'queued-agent');
  await store.enqueue(
    {
      ...b,
      kind: 'run.queued',
      payload: {
        invocableType: 'agent',
        input: [new TextBlock('later')],
        key: 'acme',
        priority: 0,
      },
    },
    { concurrency: 2, rate: { limit: 10, periodMs: 60_000 } },
  );
  await store.queueEntry(b.runId);
  await store.listQueue(10);
  await store.takeToken('bucket-acme', { limit: 10, periodMs: 60_000 });
  const taken = await store.take({
    worker: 'w1',
    origins: ['queued-agent'],
    max: 1,
    leaseMs: 30_000,
  });
  if (taken.length !== 1) throw new Error('the workload could not take its queued run');
  await store.renewTaken('w1', [b.runId]);
  await store.finishTaken(b.runId, 'w1');

  await store.pruneRuns({
    endedBefore: new Date(Date.now() + 60_000).toISOString(),
    limit: 10,
    dryRun: true,
  });
  await store.pruneRuns({ endedBefore: new Date(Date.now() + 60_000).toISOString(), limit: 10 });
  await store.getRun(a.runId);
  if (hasEvalStore(store)) await evalsWorkload(store.evals);
}

/** Datasets and experiments (core/evals.ts), with fixed ids. */
async function evalsWorkload(evals: import('../../src/core/evals.js').EvalStore): Promise<void> {
  const createdAt = '2026-01-01T00:00:00.000Z';
  const item = (id: string) => ({ id, input: 'hi', reference: 'hello', runId: 'run-upgrade-a' });
  await evals.createDataset({ namespace: 'acme', name: 'qa', description: '', createdAt }, [
    item('item-1'),
  ]);
  await evals.addDatasetItems('acme', 'qa', [item('item-2')]);
  await evals.listDatasets('acme');
  await evals.getDataset('acme', 'qa');
  await evals.datasetItems('acme', 'qa');
  const target = { type: 'agent' as const, name: 'upgrade' };
  const experiment = { id: 'exp-upgrade', namespace: 'acme', name: 'baseline', dataset: 'qa' };
  await evals.createExperiment(
    {
      ...experiment,
      target,
      variant: null,
      scorers: ['exact'],
      status: 'running',
      error: null,
      createdAt,
    },
    ['item-1', 'item-2'],
  );
  await evals.setExperimentRun('exp-upgrade', 'item-1', 'run-upgrade-a');
  await evals.finishExperiment('exp-upgrade', 'completed', null);
  await evals.getExperiment('acme', 'exp-upgrade');
  await evals.listExperiments('acme', 'qa');
  await evals.experimentItems('exp-upgrade');
  await evals.deleteDataset('acme', 'qa');
}

/** The recordings kept in `dir` (`events-<layout>.json`), oldest layout first. */
export function recordingsIn(dir: string): Recording[] {
  return readdirSync(dir)
    .filter((name) => /^events-\d+\.json$/.test(name))
    .map((name) => JSON.parse(readFileSync(join(dir, name), 'utf8')) as Recording)
    .sort((x, y) => x.layout - y.layout);
}

/** Keep `recording` in `dir` as `events-<layout>.json`. */
export function keepRecording(dir: string, recording: Recording): void {
  writeFileSync(
    join(dir, `events-${recording.layout}.json`),
    `${JSON.stringify(recording, null, 1)}\n`,
  );
}

/** Parameters as JSON keeps them (a bigint as its digits, bytes as an array). */
export function plain(value: unknown): unknown {
  if (typeof value === 'bigint') return Number(value);
  if (value instanceof Uint8Array) return { bytes: [...value] };
  return value;
}

/** The last migration of each list made before the policy (CONTRIBUTING.md); later ones keep it. */
export const BEFORE_THE_POLICY = { events: 8, checkpoints: 1 } as const;

/** What an `expand` from `before` to `after` broke for the previous release's statements (each table's columns: name → `type NULL|NOT NULL default`). */
export function expandBreaks(
  before: Map<string, Map<string, string>>,
  after: Map<string, Map<string, string>>,
): string[] {
  const broken: string[] = [];
  for (const [table, old] of before) {
    const now = after.get(table);
    if (!now) {
      broken.push(`table ${table} is gone`);
      continue;
    }
    for (const [column, shape] of old) {
      if (!now.has(column)) broken.push(`${table}.${column} is gone`);
      else if (now.get(column) !== shape)
        broken.push(`${table}.${column} is now ${now.get(column)}`);
    }
    for (const [column, shape] of now) {
      if (!old.has(column) && / NOT NULL $/.test(shape)) {
        broken.push(`${table}.${column} is new, NOT NULL and has no default`);
      }
    }
  }
  return broken;
}

/** The package's own version: the release a migration of this tree ships in. */
export const PACKAGE_VERSION = (
  JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as { version: string }
).version;

/** Where a backend's recorded workloads live, one file per layout. */
export function recordingsDir(backend: 'sqlite' | 'postgres'): string {
  return join(REPO_ROOT, 'test/fixtures/layouts', backend);
}
