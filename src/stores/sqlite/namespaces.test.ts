/**
 * What tenants (docs/tenants.md) need of the SQLite store beyond the contract suite: one
 * tenant's runs, a page of them and its inbox are read from `runs_by_namespace` (migration 7)
 * or the status index, in order (no sort, no scan of `runs`), and migration 7 applies to a
 * file written at version 6.
 */
import { DatabaseSync } from 'node:sqlite';
import { describe, expect, it } from 'vitest';
import {
  LISTING_AFTER,
  listingPlan,
  openSqliteStore,
  tempStateFile,
} from '../../../test/support/sqlite-files.js';
import { EVENT_STORE_MIGRATIONS, migrate } from './migrations.js';

const AFTER = LISTING_AFTER;

describe('SqliteEventStore listing by namespace (tenants)', () => {
  it("lists and pages one tenant's runs from runs_by_namespace, without sorting", () => {
    const store = openSqliteStore(tempStateFile('tenants'));
    const db = store.connection as DatabaseSync;
    // 20,000 runs over 50 tenants, one in 40 waiting for an answer; then the statistics.
    db.exec(`
      WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 20000)
      INSERT INTO runs (run_id, origin, session_id, namespace, status, started_at)
      SELECT 'run-' || i, 'o' || (i % 10), 's-' || i, 'tenant-' || (i % 50),
        CASE WHEN i % 40 = 0 THEN 'waiting_human' ELSE 'completed' END,
        strftime('%Y-%m-%dT%H:%M:%fZ', '2025-01-01', '+' || i || ' seconds') FROM n;
      ANALYZE;`);
    const plan = (where: string[], args: unknown[]) => listingPlan(db, where, args);
    const list = plan(['r.namespace = ?'], ['tenant-7']);
    expect(list[0]).toMatch(/^SEARCH r USING INDEX runs_by_namespace \(namespace=\?\)/);
    const page = plan(['r.namespace = ?', AFTER], ['tenant-7', '2025-01-01T01:00:00.000Z', 'x']);
    expect(page[0]).toMatch(
      /^SEARCH r USING INDEX runs_by_namespace \(namespace=\? AND started_at<\?\)/,
    );
    const inbox = plan(['r.namespace = ?', 'r.status = ?'], ['tenant-7', 'waiting_human']);
    expect(inbox[0]).toMatch(/^SEARCH r USING INDEX runs_by_(namespace|status)/);
    for (const steps of [list, page, inbox]) {
      expect(steps.join('\n')).not.toMatch(/TEMP B-TREE|^SCAN r/m);
    }
  });

  it('applies migration 7 to a file written at version 6', async () => {
    const path = tempStateFile('tenants');
    const old = new DatabaseSync(path);
    expect(migrate(old, 'events', EVENT_STORE_MIGRATIONS.slice(0, 6))).toEqual([1, 2, 3, 4, 5, 6]);
    old
      .prepare(
        `INSERT INTO runs (run_id, origin, session_id, namespace, status, started_at, v)
         VALUES (?, 'chat', NULL, 'acme', 'running', '2025-01-01T00:00:00.000Z', 3)`,
      )
      .run('run-old');
    old
      .prepare(`INSERT INTO events (run_id, seq, kind, ts, payload) VALUES (?, 0, ?, ?, '{}')`)
      .run('run-old', 'run.started', Date.parse('2025-01-01T00:00:00.000Z'));
    old.close();
    const store = openSqliteStore(path);
    const db = store.connection as DatabaseSync;
    const index = db
      .prepare("SELECT sql FROM sqlite_master WHERE name = 'runs_by_namespace'")
      .get();
    expect(String(index?.sql)).toMatch(/\(namespace, started_at\)/);
    expect(await store.listRunsIn('acme')).toMatchObject([{ runId: 'run-old', namespace: 'acme' }]);
    expect(await store.listRunsIn('other')).toEqual([]);
  });
});
