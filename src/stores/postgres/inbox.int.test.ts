/**
 * What the inbox (#29) has to prove on Postgres beyond the contract suite: listing a status
 * and a page after a cursor read the status index in order (no sort, no scan of `runs`), and
 * migration 6 applies to a schema written at version 5.
 */
import type pg from 'pg';
import { describe, expect, it } from 'vitest';
import {
  LISTING_AFTER,
  listingPlan,
  schemaStores,
  withClient,
} from '../../../test/support/postgres.js';
import { EVENT_STORE_MIGRATIONS, migrate } from './migrations.js';

const { freshSchema, open } = schemaStores(4);

const AFTER = LISTING_AFTER;

describe('PostgresEventStore inbox listing', () => {
  it('lists a status and pages it from the status index, in its order', async () => {
    const schema = freshSchema();
    await open(schema).connect();
    const plans = await withClient(schema, async (client) => {
      // 20,000 runs, one in 40 waiting for an answer; then the planner's statistics.
      await client.query(`
        INSERT INTO runs (run_id, origin, session_id, status, started_at, updated_at, last_seq)
        SELECT 'run-' || i, 'o' || (i % 10), 's-' || i,
          CASE WHEN i % 40 = 0 THEN 'waiting_human' ELSE 'completed' END, t, t, 3
        FROM generate_series(1, 20000) AS i,
          to_char(timestamp '2025-01-01' + i * interval '1 second', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS t`);
      await client.query('ANALYZE runs');
      const plan = (where: string[], limitParam: number, args: string) =>
        listingPlan(client, where, limitParam, args);
      return {
        inbox: await plan(['status = $1'], 2, "'waiting_human', 50"),
        page: await plan(
          ['status = $1', AFTER],
          4,
          "'waiting_human', '2025-01-01T01:00:00.000Z', 'run-80', 50",
        ),
      };
    });
    for (const plan of Object.values(plans)) {
      expect(plan).toMatch(/Index Scan Backward using runs_by_status on runs/);
      expect(plan).not.toMatch(/Sort|Seq Scan on runs/);
    }
  });

  it('applies migration 6 to a schema written at version 5', async () => {
    const schema = freshSchema();
    await withClient(schema, async (client) => {
      const old = EVENT_STORE_MIGRATIONS.slice(0, 5);
      await migrate(client as unknown as pg.PoolClient, schema, 'events', old);
      await client.query(
        `INSERT INTO runs (run_id, origin, session_id, status, started_at, updated_at, last_seq, v)
         VALUES ('run-old', 'approval', 'thread-1', 'waiting_human',
           '2025-01-01T00:00:00.000Z', '2025-01-01T00:00:00.000Z', 0, 3)`,
      );
    });
    const store = open(schema);
    expect(await store.listRuns({ status: 'waiting_human' })).toMatchObject([
      { runId: 'run-old', sessionId: 'thread-1', status: 'waiting_human', lastSeq: 0 },
    ]);
    const { versions, index } = await withClient(schema, async (client) => {
      const applied = await client.query(
        "SELECT version FROM schema_migrations WHERE component = 'events' ORDER BY version",
      );
      const found = await client.query(
        "SELECT indexdef FROM pg_indexes WHERE indexname = 'runs_by_status' AND schemaname = $1",
        [schema],
      );
      return {
        versions: applied.rows.map((row) => Number(row.version)),
        index: String(found.rows[0]?.indexdef),
      };
    });
    // Every migration since (7: runs_by_namespace) applies too.
    expect(versions).toEqual(EVENT_STORE_MIGRATIONS.map((m) => m.version));
    expect(index).toMatch(/\(status, started_at, created\)/);
  });
});
