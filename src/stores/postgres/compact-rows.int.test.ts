/**
 * Compact event rows on Postgres (migration 5): a schema written at the previous version
 * reads the same after the migration, every run from every `afterSeq` (envelopes that
 * differ from their run's, an older `v`, an unknown kind, a run with no `runs` row), and
 * appends to a migrated run go on where it stopped.
 */
import type pg from 'pg';
import { describe, expect, it } from 'vitest';
import { OLD_EVENT_ROWS, OLD_RUN_IDS, OLD_RUN_ROWS } from '../../../test/support/old-event-rows.js';
import { schemaStores, withClient } from '../../../test/support/postgres.js';
import type { Event } from '../../core/events.js';
import { toStored } from '../shared/rows.js';
import { eventFromStored } from '../shared/stored-event.js';
import { EVENT_STORE_MIGRATIONS, migrate } from './migrations.js';

const { freshSchema, open } = schemaStores(2);

/** A schema at version 4 with the old rows; what the previous version's read returned. */
async function oldSchema(): Promise<{ schema: string; before: Map<string, Event[]> }> {
  const schema = freshSchema();
  const before = new Map<string, Event[]>();
  await withClient(schema, async (client) => {
    const old = EVENT_STORE_MIGRATIONS.filter((m) => m.version <= 4);
    await migrate(client as unknown as pg.PoolClient, schema, 'events', old);
    for (const row of OLD_EVENT_ROWS) {
      await client.query(
        `INSERT INTO events (run_id, seq, v, kind, session_id, namespace, origin, ts, payload)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
        row,
      );
    }
    for (const [runId, origin, session, status, lastSeq, updatedAt, endedAt] of OLD_RUN_ROWS) {
      await client.query(
        `INSERT INTO runs (run_id, origin, session_id, namespace, status, started_at, updated_at,
           last_seq, ended_at)
         VALUES ($1, $2, $3, NULL, $4, '2025-03-01T10:00:00.000Z', $5, $6, $7)`,
        [runId, origin, session, status, updatedAt, lastSeq, endedAt],
      );
    }
    for (const runId of OLD_RUN_IDS) {
      const { rows } = await client.query('SELECT * FROM events WHERE run_id = $1 ORDER BY seq', [
        runId,
      ]);
      before.set(
        runId,
        rows.map((row) => eventFromStored(toStored(row))),
      );
    }
  });
  return { schema, before };
}

describe('a Postgres schema written before compact event rows', () => {
  it('reads the same after migration 5, from every afterSeq', async () => {
    const { schema, before } = await oldSchema();
    const store = open(schema);
    for (const [runId, events] of before) {
      expect(events.length).toBeGreaterThan(0);
      for (let after = -1; after < events.length; after += 1) {
        expect(await store.read(runId, { afterSeq: after })).toEqual(events.slice(after + 1));
      }
    }
    const envs = await withClient(schema, async (client) => {
      const { rows } = await client.query(
        "SELECT seq, env FROM events WHERE run_id = 'run-a' ORDER BY seq",
      );
      return rows.map((row) => [row.seq, row.env]);
    });
    expect(envs).toEqual([
      [0, null],
      [1, null],
      [2, '[3, "s2", "ns", "helper"]'],
      [3, '[2, "s1", null, "other"]'],
      [4, null],
      [5, null],
      [6, null],
    ]);
  });

  it('appends to a migrated run where it stopped, and reads those back as appended', async () => {
    const { schema } = await oldSchema();
    const store = open(schema);
    const envelope = { runId: 'run-a', sessionId: 's1', namespace: null, origin: 'helper' };
    const written = await store.append([
      { ...envelope, kind: 'text.delta', payload: { messageId: 'm1', text: ' more' } },
      { ...envelope, sessionId: 's3', kind: 'text.delta', payload: { messageId: 'm1', text: '!' } },
    ]);
    expect(written.map((e) => e.seq)).toEqual([7, 8]);
    expect(await store.read('run-a', { afterSeq: 6 })).toEqual(written);
  });
});
