import { DatabaseSync } from 'node:sqlite';
import { describe, expect, it } from 'vitest';
import { OLD_EVENT_ROWS, OLD_RUN_IDS, OLD_RUN_ROWS } from '../../../test/support/old-event-rows.js';
import { openSqliteStore, tempStateFile } from '../../../test/support/sqlite-files.js';
import type { Event } from '../../core/events.js';
import { compactTs, toStored, tsText } from '../shared/rows.js';
import { eventFromStored } from '../shared/stored-event.js';
import { EVENT_STORE_MIGRATIONS, migrate } from './migrations.js';

function oldFile(): string {
  const path = tempStateFile('compact');
  const db = new DatabaseSync(path);
  migrate(
    db,
    'events',
    EVENT_STORE_MIGRATIONS.filter((m) => m.version <= 4),
  );
  const insertEvent = db.prepare(
    `INSERT INTO events (run_id, seq, v, kind, session_id, namespace, origin, ts, payload)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  for (const row of OLD_EVENT_ROWS) insertEvent.run(...row);
  const insertRun = db.prepare(
    `INSERT INTO runs (run_id, origin, session_id, namespace, status, started_at, ended_at)
     VALUES (?, ?, ?, NULL, ?, '2025-03-01T10:00:00.000Z', ?)`,
  );
  for (const [runId, origin, session, status, , , endedAt] of OLD_RUN_ROWS) {
    insertRun.run(runId, origin, session, status, endedAt);
  }
  db.close();
  return path;
}

/** What the previous version's read returned: the old row through the shared mapping. */
function readOld(path: string, runId: string): Event[] {
  const db = new DatabaseSync(path);
  try {
    return db
      .prepare('SELECT * FROM events WHERE run_id = ? ORDER BY seq')
      .all(runId)
      .map((row) => eventFromStored(toStored(row)));
  } finally {
    db.close();
  }
}

describe('a file written before compact event rows', () => {
  it('reads the same after migration 5, from every afterSeq', async () => {
    const path = oldFile();
    const before = new Map(OLD_RUN_IDS.map((id) => [id, readOld(path, id)]));
    const store = openSqliteStore(path);
    for (const [runId, events] of before) {
      expect(events.length).toBeGreaterThan(0);
      expect(await store.read(runId)).toEqual(events);
      for (let after = -1; after < events.length; after += 1) {
        expect(await store.read(runId, { afterSeq: after })).toEqual(events.slice(after + 1));
      }
    }
    const db = store.connection as DatabaseSync;
    const rows = db.prepare('SELECT seq, typeof(ts) AS t, env FROM events WHERE run_id = ?');
    expect(rows.all('run-a').map((r) => [r.seq, r.t, r.env])).toEqual([
      [0, 'integer', null],
      [1, 'integer', null],
      [2, 'integer', '[3,"s2","ns","helper"]'],
      [3, 'text', '[2,"s1",null,"other"]'],
      [4, 'text', null],
      [5, 'integer', null], // before 1970: negative milliseconds
      [6, 'text', null], // past the migration's pattern (years 1000-2999): kept as text
    ]);
    expect(await store.getRun('run-b')).toMatchObject({
      updatedAt: '2025-03-01T10:00:00.123Z',
      lastSeq: 1,
    });
  });

  it('appends to a migrated run where it stopped, and reads those back as appended', async () => {
    const path = oldFile();
    const store = openSqliteStore(path);
    const envelope = { runId: 'run-a', sessionId: 's1', namespace: null, origin: 'helper' };
    const written = await store.append([
      { ...envelope, kind: 'text.delta', payload: { messageId: 'm1', text: ' more' } },
      { ...envelope, sessionId: 's3', kind: 'text.delta', payload: { messageId: 'm1', text: '!' } },
    ]);
    expect(written.map((e) => e.seq)).toEqual([7, 8]);
    // The wall clock is earlier than the year-9999 event before them: ts never goes back.
    expect(written.map((e) => e.ts)).toEqual([
      '9999-12-31T23:59:59.999Z',
      '9999-12-31T23:59:59.999Z',
    ]);
    expect(await store.read('run-a', { afterSeq: 6 })).toEqual(written);
  });
});

describe('compact timestamps', () => {
  it('store toISOString() text as epoch milliseconds and anything else as text', () => {
    for (const ts of [
      '2025-03-01T10:00:00.000Z',
      '2025-12-31T23:59:59.999Z',
      '1970-01-01T00:00:00.000Z',
    ]) {
      expect(typeof compactTs(ts)).toBe('number');
      expect(tsText(compactTs(ts))).toBe(ts);
    }
    for (const ts of ['2025-03-01T10:00:00Z', '2025-03-01T10:00:00.000+00:00', 'not a date', '']) {
      expect(compactTs(ts)).toBe(ts);
    }
  });
});
