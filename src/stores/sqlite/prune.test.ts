/**
 * What pruning has to prove on SQLite beyond the contract suite: the file it empties shrinks
 * (incremental vacuum, checked on the main file after a checkpoint, with the page counts
 * that say why), a store that gives no pages back leaves them on the freelist, and a file
 * written before pruning existed is migrated (its ended runs get their end) and converted.
 */
import { statSync } from 'node:fs';
import { DatabaseSync } from 'node:sqlite';
import { describe, expect, it } from 'vitest';
import { openSqliteStore, tempStateFile } from '../../../test/support/sqlite-files.js';
import type { NewEvent } from '../../core/events.js';
import type { SqliteEventStore } from './events.js';
import { EVENT_STORE_MIGRATIONS, migrate, pruneCandidatesSql } from './migrations.js';

const tempFile = () => tempStateFile('prune');

const open = openSqliteStore;

const LATEST = '9999-12-31T23:59:59.999Z';
const RUNS = 3_000;
const TEXT = 'lorem ipsum dolor sit amet '.repeat(8); // about 200 bytes a delta

/** `RUNS` ended runs of 8 events each (about 2 KB a run), 100 runs a transaction. */
async function fill(store: SqliteEventStore): Promise<void> {
  for (let first = 0; first < RUNS; first += 100) {
    const batch: NewEvent[] = [];
    for (let i = first; i < first + 100; i += 1) {
      const envelope = { runId: `run-${i}`, sessionId: null, namespace: null, origin: 'fill' };
      batch.push({
        ...envelope,
        kind: 'run.started',
        payload: { invocableType: 'agent', input: [] },
      });
      for (let d = 0; d < 6; d += 1) {
        batch.push({ ...envelope, kind: 'text.delta', payload: { messageId: 'm1', text: TEXT } });
      }
      batch.push({ ...envelope, kind: 'run.completed', payload: { output: [], usage: null } });
    }
    await store.append(batch);
  }
}

/** Prune every ended run, a batch at a time, as a retention task would; how many. */
async function pruneAll(store: SqliteEventStore): Promise<number> {
  let pruned = 0;
  for (let calls = 0; calls < 100; calls += 1) {
    const batch = await store.pruneRuns({ endedBefore: LATEST, limit: 500 });
    if (batch.length === 0) return pruned;
    pruned += batch.length;
  }
  throw new Error('pruning did not finish in 100 calls');
}

/** Checkpoint the WAL into the main file, and measure it. */
function measure(store: SqliteEventStore, path: string) {
  const db = store.connection as DatabaseSync;
  db.exec('PRAGMA wal_checkpoint(TRUNCATE)');
  const pragma = (name: string) => Number(db.prepare(`PRAGMA ${name}`).get()?.[name]);
  return {
    bytes: statSync(path).size,
    pages: pragma('page_count'),
    free: pragma('freelist_count'),
  };
}

describe('SqliteEventStore pruning gives space back', () => {
  it('shrinks the file it empties, a bounded step per prune', async () => {
    const path = tempFile();
    const store = open(path);
    await fill(store);
    const full = measure(store, path);
    expect(full.bytes).toBeGreaterThan(4_000_000);
    expect(await pruneAll(store)).toBe(RUNS);
    const emptied = measure(store, path);
    // The pages the prunes freed were given back, so the main file lost them.
    expect(emptied.free).toBe(0);
    expect(emptied.pages).toBeLessThan(full.pages / 20);
    expect(emptied.bytes).toBeLessThan(full.bytes / 20);
    expect(emptied.bytes).toBe(emptied.pages * 4096);
    expect(await store.listRuns({ origin: 'fill' })).toEqual([]);
  });

  it('keeps freed pages for reuse when told to give none back, until vacuum()', async () => {
    const path = tempFile();
    const store = open(path, { reclaimPagesPerPrune: 0 });
    await fill(store);
    const full = measure(store, path);
    expect(await pruneAll(store)).toBe(RUNS);
    const emptied = measure(store, path);
    // Without the vacuum step the rows are gone but their pages stay in the file, free.
    expect(emptied.pages).toBe(full.pages);
    expect(emptied.bytes).toBe(full.bytes);
    expect(emptied.free).toBeGreaterThan(full.pages * 0.9);
    // Reused: filling again does not grow the file.
    await fill(store);
    expect(measure(store, path).pages).toBeLessThanOrEqual(full.pages);
    expect(await pruneAll(store)).toBe(RUNS);
    const { bytesBefore, bytesAfter } = await store.vacuum();
    expect(bytesBefore).toBe(full.bytes);
    expect(bytesAfter).toBeLessThan(full.bytes / 20);
    expect(measure(store, path).bytes).toBe(bytesAfter);
  });
});

describe('SqliteEventStore pruning and group commit', () => {
  const envelope = { runId: 'run-1', sessionId: null, namespace: null, origin: 'group' };
  const started: NewEvent = {
    ...envelope,
    kind: 'run.started',
    payload: { invocableType: 'agent', input: [] },
  };
  const delta: NewEvent = {
    ...envelope,
    kind: 'text.delta',
    payload: { messageId: 'm', text: 'a' },
  };
  const completed: NewEvent = {
    ...envelope,
    kind: 'run.completed',
    payload: { output: [], usage: null },
  };

  for (const [name, sameStore] of [
    ['its own store', true],
    ['another store on the file', false],
  ] as const) {
    it(`sees, and commits with it, a run's end still held in a group commit of ${name}`, async () => {
      const path = tempFile();
      // A short busy timeout: a prune that waited on the held group would fail, not pass late.
      const writer = open(path, { busyTimeoutMs: 100 });
      const pruner = sameStore ? writer : open(path, { busyTimeoutMs: 100 });
      await writer.append([started]);
      await writer.append([delta]); // held: the group stays open until this turn ends
      const ending = writer.append([completed]); // joins the group; resolves when it commits
      const pruned = await pruner.pruneRuns({ endedBefore: LATEST, limit: 10 });
      expect(pruned).toMatchObject([{ runId: 'run-1', status: 'completed', lastSeq: 2 }]);
      expect(await ending).toMatchObject([{ kind: 'run.completed', seq: 2 }]);
      expect(await writer.read('run-1')).toEqual([]);
      expect(await writer.getRun('run-1')).toBeNull();
      expect((await writer.append([started]))[0]?.seq).toBe(0); // a new run under the same id
    });
  }

  it('reads the candidates from the partial index in order, without sorting', () => {
    const store = open(tempFile());
    const db = store.connection as DatabaseSync;
    for (const byOrigin of [false, true]) {
      const args = ['2026-01-01T00:00:00.000Z', '["completed"]', 10];
      const steps = db
        .prepare(`EXPLAIN QUERY PLAN ${pruneCandidatesSql(byOrigin)}`)
        .all(...args, ...(byOrigin ? ['o'] : []))
        .map((row) => String(row.detail));
      const index = byOrigin ? 'runs_by_origin_end' : 'runs_by_end';
      expect(steps[0]).toMatch(new RegExp(`^SEARCH r USING INDEX ${index} \\(`));
      expect(steps.join('\n')).not.toMatch(/TEMP B-TREE/);
    }
  });
});

describe('a file written before pruning existed', () => {
  it('is migrated (ended runs get their end) and converted to incremental vacuum', async () => {
    const path = tempFile();
    const old = new DatabaseSync(path);
    old.exec('PRAGMA journal_mode = WAL');
    migrate(old, 'events', EVENT_STORE_MIGRATIONS.slice(0, 3));
    const insertRun = old.prepare(
      `INSERT INTO runs (run_id, origin, session_id, namespace, status, started_at)
       VALUES (?, 'old', NULL, NULL, ?, '2025-01-01T00:00:00.000Z')`,
    );
    const insertEvent = old.prepare(
      `INSERT INTO events (run_id, seq, v, kind, session_id, namespace, origin, ts, payload)
       VALUES (?, ?, 3, ?, NULL, NULL, 'old', ?, ?)`,
    );
    const started = '{"invocable_type":"agent","input":[]}';
    for (const [runId, status, kinds] of [
      ['run-done', 'completed', ['run.started', 'run.completed']],
      ['run-live', 'running', ['run.started']],
    ] as const) {
      insertRun.run(runId, status);
      kinds.forEach((kind, seq) => {
        const payload = kind === 'run.started' ? started : '{"output":[],"usage":null}';
        insertEvent.run(runId, seq, kind, `2025-01-01T00:00:0${seq}.000Z`, payload);
      });
    }
    expect(old.prepare('PRAGMA auto_vacuum').get()?.auto_vacuum).toBe(0);
    old.close();

    const store = open(path);
    const db = store.connection as DatabaseSync;
    expect(db.prepare('PRAGMA auto_vacuum').get()?.auto_vacuum).toBe(2); // small: converted
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
    expect(await store.pruneRuns({ ...request, endedBefore: LATEST })).toEqual([]);
    expect((await store.read('run-live')).map((e) => e.kind)).toEqual(['run.started']);
    expect(await store.getRun('run-live')).toMatchObject({ status: 'running', lastSeq: 0 });
  });
});
