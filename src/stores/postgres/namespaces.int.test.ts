/**
 * What tenants (docs/tenants.md) need of the Postgres store beyond the contract suite: one
 * tenant's runs and a page of them are read from `runs_by_namespace` (migration 7) in its
 * order (no sort, no scan of `runs`), and migration 7 applies to a schema written at version 6.
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

const { freshSchema, open } = schemaStores(2);

const AFTER = LISTING_AFTER;

describe('PostgresEventStore listing by namespace (tenants)', () => {
  it("lists and pages one tenant's runs from runs_by_namespace, in its order", async () => {
    const schema = freshSchema();
    await open(schema).connect();
    const plans = await withClient(schema, async (client) => {
      // 20,000 runs over 50 tenants; then the planner's statistics.
      await client.query(`
        INSERT INTO runs (run_id, origin, session_id, namespace, status, started_at, updated_at, last_seq)
        SELECT 'run-' || i, 'o' || (i % 10), 's-' || i, 'tenant-' || (i % 50), 'completed', t, t, 3
        FROM generate_series(1, 20000) AS i,
          to_char(timestamp '2025-01-01' + i * interval '1 second', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS t`);
      await client.query('ANALYZE runs');
      const plan = (where: string[], limitParam: number, args: string) =>
        listingPlan(client, where, limitParam, args);
      return {
        list: await plan(['namespace = $1'], 2, "'tenant-7', 50"),
        page: await plan(
          ['namespace = $1', AFTER],
          4,
          "'tenant-7', '2025-01-01T01:00:00.000Z', 'run-7', 50",
        ),
      };
    });
    for (const plan of Object.values(plans)) {
      expect(plan).toMatch(/Index Scan Backward using runs_by_namespace on runs/);
      expect(plan).not.toMatch(/Sort|Seq Scan on runs/);
    }
  });

  it('applies migration 7 to a schema written at version 6', async () => {
    const schema = freshSchema();
    await withClient(schema, async (client) => {
      const old = EVENT_STORE_MIGRATIONS.slice(0, 6);
      await migrate(client as unknown as pg.PoolClient, schema, 'events', old);
      await client.query(
        `INSERT INTO runs (run_id, origin, session_id, namespace, status, started_at, updated_at, last_seq, v)
         VALUES ('run-old', 'chat', NULL, 'acme', 'running',
           '2025-01-01T00:00:00.000Z', '2025-01-01T00:00:00.000Z', 0, 3)`,
      );
    });
    const store = open(schema);
    expect(await store.listRunsIn('acme')).toMatchObject([{ runId: 'run-old', namespace: 'acme' }]);
    expect(await store.listRunsIn('other')).toEqual([]);
    const index = await withClient(schema, async (client) => {
      const found = await client.query(
        "SELECT indexdef FROM pg_indexes WHERE indexname = 'runs_by_namespace' AND schemaname = $1",
        [schema],
      );
      return String(found.rows[0]?.indexdef);
    });
    expect(index).toMatch(/\(namespace, started_at, created\)/);
  });
});
