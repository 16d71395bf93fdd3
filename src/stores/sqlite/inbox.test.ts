import { DatabaseSync } from 'node:sqlite';
import { describe, expect, it } from 'vitest';
import {
  LISTING_AFTER,
  listingPlan,
  openSqliteStore,
  tempStateFile,
} from '../../../test/support/sqlite-files.js';
import { EVENT_STORE_MIGRATIONS, migrate } from './migrations.js';

const tempFile = () => tempStateFile('inbox');

const open = openSqliteStore;

const AFTER = LISTING_AFTER;

describe('SqliteEventStore inbox listing', () => {
  it('lists a status, pages it and finds a thread from indexes, without sorting', () => {
    const store = open(tempFile());
    const db = store.connection as DatabaseSync;
    // 20,000 runs, one in 40 waiting for an answer, one in 80 paused; then the statistics.
    db.exec(`
      WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 20000)
      INSERT INTO runs (run_id, origin, session_id, status, started_at)
      SELECT 'run-' || i, 'o' || (i % 10), 's-' || i,
        CASE WHEN i % 40 = 0 THEN 'waiting_human' WHEN i % 80 = 1 THEN 'paused' ELSE 'completed' END,
        strftime('%Y-%m-%dT%H:%M:%fZ', '2025-01-01', '+' || i || ' seconds') FROM n;
      ANALYZE;`);
    const plan = (where: string[], args: unknown[]) => listingPlan(db, where, args);
    const inbox = plan(['r.status = ?'], ['waiting_human']);
    expect(inbox[0]).toMatch(/^SEARCH r USING INDEX runs_by_status \(status=\?\)/);
    const page = plan(['r.status = ?', AFTER], ['waiting_human', '2025-01-01T01:00:00.000Z', 'x']);
    expect(page[0]).toMatch(/^SEARCH r USING INDEX runs_by_status \(status=\? AND started_at<\?\)/);
    const paused = plan(['r.status = ?'], ['paused']);
    expect(paused[0]).toMatch(/^SEARCH r USING INDEX runs_by_status/);
    const thread = plan(
      ['r.status = ?', 'r.origin = ?', 'r.session_id = ?'],
      ['waiting_human', 'o0', 's-40'],
    );
    expect(thread[0]).toMatch(/^SEARCH r USING INDEX runs_by_(session|status)/);
    for (const steps of [inbox, page, paused, thread]) {
      expect(steps.join('\n')).not.toMatch(/TEMP B-TREE|^SCAN r/m);
    }
  });

  it('applies migration 6 to a file written at version 5', async () => {
    const path = tempFile();
    const old = new DatabaseSync(path);
    expect(migrate(old, 'events', EVENT_STORE_MIGRATIONS.slice(0, 5))).toEqual([1, 2, 3, 4, 5]);
    old
      .prepare(
        `INSERT INTO runs (run_id, origin, session_id, status, started_at, v)
         VALUES (?, 'approval', ?, 'waiting_human', '2025-01-01T00:00:00.000Z', 3)`,
      )
      .run('run-old', 'thread-1');
    old
      .prepare(`INSERT INTO events (run_id, seq, kind, ts, payload) VALUES (?, 0, ?, ?, '{}')`)
      .run('run-old', 'run.started', Date.parse('2025-01-01T00:00:00.000Z'));
    old.close();
    const store = open(path);
    const db = store.connection as DatabaseSync;
    const versions = db
      .prepare("SELECT version FROM schema_migrations WHERE component = 'events' ORDER BY version")
      .all()
      .map((row) => Number(row.version));
    // Every migration since (7: runs_by_namespace) applies too.
    expect(versions).toEqual(EVENT_STORE_MIGRATIONS.map((m) => m.version));
    const index = db.prepare("SELECT sql FROM sqlite_master WHERE name = 'runs_by_status'").get();
    expect(String(index?.sql)).toMatch(/\(status, started_at\)/);
    expect(await store.listRuns({ status: 'waiting_human' })).toMatchObject([
      { runId: 'run-old', sessionId: 'thread-1', status: 'waiting_human', lastSeq: 0 },
    ]);
  });
});
