/**
 * Pruning the SQLite event store (the RunPruning ability): the selected runs and everything
 * kept for them are deleted in one write transaction. It is a `GroupCommit.transaction`, so
 * it sees, and commits with it, what this connection holds in an open group commit (a run's
 * last events still held are part of what decides its end), and it flushes other
 * connections' groups on the file first; other processes wait on the file's write lock, so
 * two pruners never both see a run. Then one bounded `incremental_vacuum` step gives pages
 * back (`vacuum.ts`): the file shrinks as retention goes, a few MiB per call.
 */
import type { DatabaseSync, StatementSync } from 'node:sqlite';
import { type PrunedRun, runIdReservationKey } from '../../core/store.js';
import type { PruneSelection } from '../shared/prune.js';
import { toSummary } from '../shared/rows.js';
import type { GroupCommit } from './group-commit.js';
import { pruneCandidatesSql, type Statements } from './migrations.js';
import { reclaimFreePages } from './vacuum.js';

/** One connection's pruning: its two candidate queries, prepared once. */
export class Pruner {
  readonly #db: DatabaseSync;
  readonly #sql: Statements;
  readonly #writes: GroupCommit;
  readonly #candidates: { all: StatementSync; byOrigin: StatementSync };
  readonly #reclaimPages: number;

  constructor(db: DatabaseSync, sql: Statements, writes: GroupCommit, reclaimPages: number) {
    this.#db = db;
    this.#sql = sql;
    this.#writes = writes;
    this.#reclaimPages = reclaimPages;
    this.#candidates = {
      all: db.prepare(pruneCandidatesSql(false)),
      byOrigin: db.prepare(pruneCandidatesSql(true)),
    };
  }

  /** The runs `selection` picks, removed unless it is a dry run; their index rows as they were. */
  prune(selection: PruneSelection): PrunedRun[] {
    if (selection.dryRun) {
      this.#writes.flushOthers();
      return this.#select(selection);
    }
    const pruned = this.#writes.transaction(() => {
      const runs = this.#select(selection);
      for (const { runId } of runs) {
        this.#sql.pruneEvents.run(runId);
        this.#sql.pruneRun.run(runId);
        this.#sql.pruneControl.run(runId);
        this.#sql.pruneQueue.run(runId);
        this.#sql.dropContinuation.run(runId);
        this.#sql.pruneClaim.run(runIdReservationKey(runId));
      }
      return runs;
    });
    // Also after a prune that found nothing: an earlier one may have freed more than a step.
    reclaimFreePages(this.#db, this.#reclaimPages);
    return pruned;
  }

  #select({ endedBefore, statuses, origin, limit }: PruneSelection): PrunedRun[] {
    if (limit === 0 || statuses.length === 0) return [];
    const params = [endedBefore, JSON.stringify(statuses), limit];
    const rows =
      origin === null
        ? this.#candidates.all.all(...params)
        : this.#candidates.byOrigin.all(...params, origin);
    return rows.map(toSummary);
  }
}
