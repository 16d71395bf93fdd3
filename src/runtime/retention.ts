/**
 * Retention (issue #18): removing runs that ended long ago, and the checkpoints of workflow
 * threads none of whose runs is left. The event store removes the runs (its `RunPruning`
 * ability, core/store.ts); the workflow engine forgets a thread. What is never removed: a
 * run that has not ended (running, paused, waiting for an answer), however old; a thread with
 * a run still in the log; a thread whose timer is still set (a tick would wake it).
 * `pruneEnded` is one pass on demand (`deck.prune()`, `agentdeck runs prune`); the background
 * sweep of an open deck (retention-sweep.ts) calls it in small batches.
 * Tested in src/deck/retention.test.ts and test/retention-cli.test.ts.
 */
import type { WorkflowDefinition } from '../authoring/workflow-definition.js';
import { ConfigError, InvalidInputError } from '../core/errors.js';
import {
  canPruneRuns,
  type EventStore,
  type PrunedRun,
  type PruneRequest,
  type RunPruning,
} from '../core/store.js';
import type { WorkflowEngine } from './workflow-engine.js';

export type EndedStatus = NonNullable<PruneRequest['statuses']>[number];

export interface PruneOptions {
  /** Remove runs that ended more than this many milliseconds ago. */
  olderThanMs: number;
  /** Only runs that ended with these statuses. @default completed, failed and cancelled */
  statuses?: readonly EndedStatus[];
  /** Only runs of this agent or workflow. */
  origin?: string;
  /** Remove nothing; report what would go. @default false */
  dryRun?: boolean;
  /** At most this many runs in all. @default no limit */
  limit?: number;
  /** Runs removed per store call (one transaction each). @default 200 */
  batch?: number;
}

/** A workflow thread whose checkpoints were removed (or, in a dry run, would be). */
export interface PrunedThread {
  workflow: string;
  threadId: string;
}

export interface PruneReport {
  /** The runs removed, longest-ended first (in a dry run: those that would be). */
  runs: PrunedRun[];
  /** The workflow threads forgotten because none of their runs is left. */
  threads: PrunedThread[];
}

export interface RetentionDeps {
  store: EventStore;
  engine: WorkflowEngine;
  workflows: ReadonlyMap<string, WorkflowDefinition>;
}

export const DEFAULT_PRUNE_BATCH = 200;
const DAY_MS = 86_400_000;

/** Retention days as milliseconds. */
export function daysToMs(days: number): number {
  return days * DAY_MS;
}

/** Remove the runs that ended before `now - olderThanMs`, batch by batch, and the threads left empty. */
export async function pruneEnded(
  deps: RetentionDeps,
  options: PruneOptions,
  now: number = Date.now(),
): Promise<PruneReport> {
  const store = pruningStore(deps.store);
  const request = checkOptions(options, now);
  const batch = options.batch ?? DEFAULT_PRUNE_BATCH;
  const limit = options.limit ?? Number.POSITIVE_INFINITY;
  const report: PruneReport = { runs: [], threads: [] };
  // A dry run removes nothing, so one call sees every candidate at once.
  for (let left = limit; left > 0; ) {
    const size = options.dryRun ? Math.min(left, Number.MAX_SAFE_INTEGER) : Math.min(left, batch);
    const pruned = await store.pruneRuns({ ...request, limit: size });
    report.runs.push(...pruned);
    report.threads.push(...(await forgetThreads(deps, pruned, options.dryRun ?? false)));
    left -= pruned.length;
    if (options.dryRun || pruned.length < size) break;
  }
  return report;
}

function pruningStore(store: EventStore): EventStore & RunPruning {
  if (!canPruneRuns(store)) {
    throw new ConfigError(
      'this event store cannot remove runs (it has no pruneRuns); retention needs the memory, SQLite or Postgres store, or a store of your own that implements RunPruning',
    );
  }
  return store;
}

function checkOptions(options: PruneOptions, now: number): Omit<PruneRequest, 'limit'> {
  const { olderThanMs, statuses, origin } = options;
  if (!Number.isFinite(olderThanMs) || olderThanMs < 0) {
    throw new InvalidInputError(
      `prune: olderThan must be a duration of zero or more, got ${String(olderThanMs)} ms`,
    );
  }
  for (const status of statuses ?? []) {
    if (!['completed', 'failed', 'cancelled'].includes(status)) {
      throw new InvalidInputError(
        `prune: status '${status}' is not an ended status; use completed, failed or cancelled (a run that has not ended is never removed)`,
      );
    }
  }
  return {
    endedBefore: new Date(now - olderThanMs).toISOString(),
    ...(statuses && statuses.length > 0 ? { statuses } : {}),
    ...(origin !== undefined ? { origin } : {}),
    ...(options.dryRun ? { dryRun: true } : {}),
  };
}

/**
 * The threads of pruned workflow runs that no run of the log uses any more and that wait on
 * no timer: their checkpoints go too.
 */
async function forgetThreads(
  deps: RetentionDeps,
  pruned: readonly PrunedRun[],
  dryRun: boolean,
): Promise<PrunedThread[]> {
  const gone = new Set(pruned.map((run) => run.runId));
  const seen = new Set<string>();
  const forgotten: PrunedThread[] = [];
  for (const run of pruned) {
    const workflow = deps.workflows.get(run.origin);
    if (!workflow) continue; // an agent's run, or a workflow this deck does not have
    const threadId = run.sessionId ?? run.runId;
    const key = `${workflow.name}\u0000${threadId}`;
    if (seen.has(key)) continue;
    seen.add(key);
    if (run.sessionId !== null && (await stillUsed(deps.store, run, gone))) continue;
    const pauses = await deps.engine.openPauses(workflow, threadId);
    if (pauses.some((pause) => pause.wakeAt !== null)) continue; // a tick would still wake it
    if (!dryRun) await deps.engine.deleteThread(workflow, threadId);
    forgotten.push({ workflow: workflow.name, threadId });
  }
  return forgotten;
}

/** Whether a run of the same workflow on the same thread is still in the log. */
async function stillUsed(store: EventStore, run: PrunedRun, gone: ReadonlySet<string>) {
  const runs = await store.listRuns({
    origin: run.origin,
    sessionId: run.sessionId as string,
    limit: gone.size + 1,
  });
  return runs.some((other) => !gone.has(other.runId));
}
