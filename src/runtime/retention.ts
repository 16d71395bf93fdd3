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
import { randomUUID } from 'node:crypto';
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
import { threadClaimKey } from './workflow-run.js';

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

/** Ended runs a prune kept because the deck has no agent or workflow of their name. */
export interface SkippedRuns {
  /** The name (a run's `origin`) the deck does not know. */
  origin: string;
  /** How many of its runs ended in the range asked for. */
  runs: number;
}

export interface PruneReport {
  /** The runs removed, longest-ended first (in a dry run: those that would be). */
  runs: PrunedRun[];
  /** The workflow threads forgotten because none of their runs is left. */
  threads: PrunedThread[];
  /**
   * The runs in range kept because this deck has no agent or workflow of their name (a deck
   * removes only its own: prune them with the deck that has the name), by name; empty when
   * the prune was narrowed to one `origin`. Counted among the first
   * {@link SKIPPED_COUNT_LIMIT} runs in range beyond those removed.
   */
  skipped: SkippedRuns[];
}

/** What one pass of `pruneEnded` removed (the background sweep counts nothing else). */
export type PrunePass = Omit<PruneReport, 'skipped'>;

/** How many runs beyond those removed an on-demand prune looks at to count the ones it kept. */
export const SKIPPED_COUNT_LIMIT = 10_000;

export interface RetentionDeps {
  store: EventStore;
  engine: WorkflowEngine;
  /** The catalog: only runs of its agents and workflows are removed (see `pruneEnded`). */
  agents: ReadonlyMap<string, unknown>;
  workflows: ReadonlyMap<string, WorkflowDefinition>;
  /**
   * How old a claim must be to be taken over (the stale-run timeout): a run waiting on a
   * thread keeps its claim with no lease, and retention must not take it from it.
   */
  staleAfterMs: number;
}

export const DEFAULT_PRUNE_BATCH = 200;
const DAY_MS = 86_400_000;

/** Retention days as milliseconds. */
export function daysToMs(days: number): number {
  return days * DAY_MS;
}

/**
 * Remove the runs that ended before `now - olderThanMs`, batch by batch, and the threads
 * left without runs. Only runs of this catalog's agents and workflows are removed: a
 * workflow's threads can be checked and forgotten only with its definition, so the runs of
 * a name this deck does not know are kept (another deck sharing the store removes them). In
 * each batch the threads are forgotten first, each under its thread claim (no run can start
 * on it meanwhile), and only then are the runs removed: a failure between the two leaves runs
 * past their retention, never checkpoints nothing points to.
 */
export async function pruneEnded(
  deps: RetentionDeps,
  options: PruneOptions,
  now: number = Date.now(),
  /** Whether to stop between batches (the deck is closing). */
  stopped: () => boolean = () => false,
): Promise<PrunePass> {
  const store = pruningStore(deps.store);
  const request = checkOptions(options, now);
  const origins = originsOf(deps, options.origin);
  const batch = options.batch ?? DEFAULT_PRUNE_BATCH;
  let left = options.limit ?? Number.POSITIVE_INFINITY;
  const dryRun = options.dryRun ?? false;
  const report: PrunePass = { runs: [], threads: [] };
  for (const origin of origins) {
    while (left > 0 && !stopped()) {
      const size = Math.min(left, batch);
      // A dry run removes nothing: one call lists every candidate left.
      const candidates = await store.pruneRuns({
        ...request,
        origin,
        limit: dryRun ? Math.min(left, Number.MAX_SAFE_INTEGER) : size,
        dryRun: true,
      });
      const threads = await forgetThreads(deps, candidates, dryRun);
      let removed = candidates;
      if (!dryRun && candidates.length > 0) {
        removed = await store.pruneRuns({ ...request, origin, limit: size });
        // Runs another pruner left and this call took instead: their threads, checked now.
        const known = new Set(candidates.map((run) => run.runId));
        const extra = removed.filter((run) => !known.has(run.runId));
        if (extra.length > 0) threads.push(...(await forgetThreads(deps, extra, false)));
      }
      report.runs.push(...removed);
      report.threads.push(...threads);
      left -= removed.length;
      if (dryRun || candidates.length < size) break;
    }
  }
  return report;
}

/**
 * `pruneEnded` on demand (`deck.prune()`), which also counts the runs in range it kept because
 * the catalog has no agent or workflow of their name, so a person is told why they stay.
 */
export async function pruneOnDemand(
  deps: RetentionDeps,
  options: PruneOptions,
  now: number,
  stopped: () => boolean,
): Promise<PruneReport> {
  const report = await pruneEnded(deps, options, now, stopped);
  if (options.origin !== undefined) return { ...report, skipped: [] };
  // Every name's runs in range (in a dry run the catalog's are still there), then the others'.
  const inRange = await pruningStore(deps.store).pruneRuns({
    ...checkOptions(options, now),
    limit: report.runs.length + SKIPPED_COUNT_LIMIT,
    dryRun: true,
  });
  const counts = new Map<string, number>();
  for (const { origin } of inRange) {
    if (deps.agents.has(origin) || deps.workflows.has(origin)) continue;
    counts.set(origin, (counts.get(origin) ?? 0) + 1);
  }
  const skipped = [...counts].map(([origin, runs]) => ({ origin, runs }));
  return {
    ...report,
    skipped: skipped.sort((a, b) => b.runs - a.runs || (a.origin < b.origin ? -1 : 1)),
  };
}

/** The origins a prune may touch: the one asked for (it must be the catalog's), else every one. */
function originsOf(deps: RetentionDeps, origin: string | undefined): string[] {
  const known = [...deps.agents.keys(), ...deps.workflows.keys()];
  if (origin === undefined) return known;
  if (!known.includes(origin)) {
    throw new InvalidInputError(
      `prune: '${origin}' is no agent or workflow of this deck; its runs are kept (a workflow's threads can be checked only with its definition). Known: [${known.map((n) => `'${n}'`).join(', ')}]`,
    );
  }
  return [origin];
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
  const { olderThanMs, statuses } = options;
  for (const [name, value, least] of [
    ['batch', options.batch, 1],
    ['limit', options.limit, 0],
  ] as const) {
    if (value !== undefined && !(Number.isSafeInteger(value) && value >= least)) {
      throw new InvalidInputError(
        `prune: \`${name}\` must be a whole number of runs, ${least} or more, got ${String(value)}`,
      );
    }
  }
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
  };
}

/**
 * The threads of these (about to be removed) workflow runs that no other run of the log uses
 * and that wait on nothing (no question, no timer): their checkpoints go. Each is checked and
 * deleted holding the thread's claim, the one every run on it takes, so no run starts on it
 * meanwhile; a thread whose claim is held (a run plays on it) is kept.
 */
async function forgetThreads(
  deps: RetentionDeps,
  runs: readonly PrunedRun[],
  dryRun: boolean,
): Promise<PrunedThread[]> {
  const gone = new Set(runs.map((run) => run.runId));
  const seen = new Set<string>();
  const forgotten: PrunedThread[] = [];
  for (const run of runs) {
    const workflow = deps.workflows.get(run.origin);
    if (!workflow) continue; // an agent's run
    const threadId = run.sessionId ?? run.runId;
    const key = threadClaimKey(workflow.name, threadId);
    if (seen.has(key)) continue;
    seen.add(key);
    const holder = `retention-${randomUUID()}`;
    // A short lease of its own: a process that dies here holds the thread for seconds, not an
    // hour. Another's claim is stale as every claimer judges it (a waiting run's is not).
    const claim = await deps.store.claim({
      key,
      runId: holder,
      staleAfterMs: deps.staleAfterMs,
      leaseMs: THREAD_CHECK_LEASE_MS,
    });
    if (!claim.acquired) continue; // a run holds the thread
    try {
      if (run.sessionId !== null && (await stillUsed(deps.store, run, gone))) continue;
      if ((await deps.engine.openPauses(workflow, threadId)).length > 0) continue;
      if (!dryRun) await deps.engine.deleteThread(workflow, threadId);
      forgotten.push({ workflow: workflow.name, threadId });
    } finally {
      await deps.store.release(key, holder);
    }
  }
  return forgotten;
}

/** How long retention may hold a thread's claim while it checks and forgets the thread. */
const THREAD_CHECK_LEASE_MS = 30_000;

/** Whether a run of the same workflow on the same thread is still in the log. */
async function stillUsed(store: EventStore, run: PrunedRun, gone: ReadonlySet<string>) {
  const runs = await store.listRuns({
    origin: run.origin,
    sessionId: run.sessionId as string,
    limit: gone.size + 1,
  });
  return runs.some((other) => !gone.has(other.runId));
}
