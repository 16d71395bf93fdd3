/**
 * What pruning has to prove on Postgres beyond the contract suite (which runs concurrent
 * pruners on two stores): a schema written before pruning existed is migrated, its ended runs
 * getting their end, and the candidate query reads the partial index in order rather than
 * sorting the table. Every store here uses a schema of its own test run, dropped afterwards.
 */
import type pg from 'pg';
import { describe, expect, it } from 'vitest';
import { schemaStores, withClient } from '../../../test/support/postgres.js';
import { EVENT_STORE_MIGRATIONS, migrate, pruneCandidatesSql } from './migrations.js';

const { freshSchema, open } = schemaStores(4);

describe('PostgresEventStore pruning', () => {
  it('migrates a schema written before pruning: its ended runs get their end', async () => {
    const schema = freshSchema();
    await withClient(schema, async (client) => {
      const old = EVENT_STORE_MIGRATIONS.slice(0, 3);
      await migrate(client as unknown as pg.PoolClient, schema, 'events', old);
      for (const [runId, status, last] of [
        ['run-done', 'completed', 1],
        ['run-live', 'running', 0],
      ] as const) {
        await client.query(
          `INSERT INTO runs (run_id, origin, session_id, namespace, status, started_at, updated_at, last_seq)
           VALUES ($1, 'old', NULL, NULL, $2, '2025-01-01T00:00:00.000Z', $3, $4)`,
          [runId, status, `2025-01-01T00:00:0${last}.000Z`, last],
        );
        for (let seq = 0; seq <= last; seq += 1) {
          await client.query(
            `INSERT INTO events (run_id, seq, v, kind, session_id, namespace, origin, ts, payload)
             VALUES ($1, $2, 3, $3, NULL, NULL, 'old', $4, '{}')`,
            [
              runId,
              seq,
              seq === 0 ? 'run.started' : 'run.completed',
              `2025-01-01T00:00:0${seq}.000Z`,
            ],
          );
        }
      }
    });
    const store = open(schema);
    const request = { endedBefore: '2025-01-02T00:00:00Z', limit: 10 };
    expect(await store.pruneRuns(request)).toEqual([
      {
        runId: 'run-done',
        origin: 'old',
        sessionId: null,
        namespace: null,
        status: 'completed',
        startedAt: '2025-01-01T00:00:00.000Z',
        updatedAt: '2025-01-01T00:00:01.000Z',
        lastSeq: 1,
      },
    ]);
    expect(await store.read('run-done')).toEqual([]);
    expect(await store.pruneRuns({ ...request, endedBefore: '9999-01-01T00:00:00Z' })).toEqual([]);
    expect(await store.getRun('run-live')).toMatchObject({ status: 'running', lastSeq: 0 });
  });

  it('selects candidates from the partial index, in its order, on a table of many runs', async () => {
    const schema = freshSchema();
    await open(schema).connect();
    const plans = await withClient(schema, async (client) => {
      // 20,000 runs of 10 origins, one in 20 still running; then the planner's statistics.
      await client.query(`
        INSERT INTO runs (run_id, origin, status, started_at, updated_at, last_seq, ended_at)
        SELECT 'run-' || i, 'o' || (i % 10), CASE WHEN i % 20 = 0 THEN 'running' ELSE 'completed' END,
          t, t, 3, CASE WHEN i % 20 = 0 THEN NULL ELSE t END
        FROM generate_series(1, 20000) AS i,
          to_char(timestamp '2025-01-01' + i * interval '1 second', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS t`);
      await client.query('ANALYZE runs');
      const plan = async (byOrigin: boolean) => {
        await client.query(`PREPARE candidates AS ${pruneCandidatesSql(byOrigin, true)}`);
        const args = `'2026-01-01', '{completed}', 100${byOrigin ? ", 'o3'" : ''}`;
        const { rows } = await client.query(`EXPLAIN EXECUTE candidates(${args})`);
        await client.query('DEALLOCATE candidates');
        return rows.map((row) => String(row['QUERY PLAN'])).join('\n');
      };
      return { all: await plan(false), byOrigin: await plan(true) };
    });
    expect(plans.all).toMatch(/Index Scan using runs_by_end on runs/);
    expect(plans.byOrigin).toMatch(/Index Scan using runs_by_origin_end on runs/);
    for (const plan of Object.values(plans)) {
      expect(plan).toMatch(/Limit[\s\S]*LockRows/);
      expect(plan).not.toMatch(/Sort/);
    }
  });
});
