/**
 * Pruning the Postgres event store (the RunPruning ability), safe from any number of
 * processes at once. A run's `runs` row is the lock every append already takes (append.ts),
 * so a prune takes it too: in one transaction it selects the runs to remove with
 * `FOR UPDATE SKIP LOCKED`, which gives each pruner rows no other pruner holds (two pruners
 * never report the same run) and passes over a run an appender holds (it is taking events, so
 * its end is moving anyway); then, in a second statement, it deletes everything kept for the
 * locked runs. The second statement matters: in READ COMMITTED a statement reads with the
 * snapshot it started with, so deleting in the locking statement could miss an event committed
 * between that snapshot and the lock, leaving it behind without its run; once the rows are
 * locked no append can slip in, and the next statement's snapshot sees every event. An
 * appender that waited on a pruned row then writes a new run under that id, from seq 0.
 */
import type pg from 'pg';
import { type PrunedRun, runIdReservationKey } from '../../core/store.js';
import type { PruneSelection } from '../shared/prune.js';
import { toSummary } from '../shared/rows.js';
import { PRUNE_RUNS, pruneCandidatesSql } from './migrations.js';
import { inTransaction } from './pool.js';

/** The runs `selection` picks, removed unless it is a dry run; their index rows as they were. */
export async function pruneRuns(pool: pg.Pool, selection: PruneSelection): Promise<PrunedRun[]> {
  const { endedBefore, statuses, origin, limit, dryRun } = selection;
  if (limit === 0 || statuses.length === 0) return [];
  const params: unknown[] = [endedBefore, statuses, limit];
  if (origin !== null) params.push(origin);
  const byOrigin = origin !== null;
  if (dryRun) {
    const { rows } = await pool.query(pruneCandidatesSql(byOrigin, false), params);
    return rows.map(toSummary);
  }
  return inTransaction(pool, async (client) => {
    const { rows } = await client.query(pruneCandidatesSql(byOrigin, true), params);
    const runs = rows.map(toSummary);
    if (runs.length > 0) {
      const runIds = runs.map((run) => run.runId);
      await client.query(PRUNE_RUNS, [runIds, runIds.map(runIdReservationKey)]);
    }
    return runs;
  });
}
