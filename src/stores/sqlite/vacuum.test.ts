/**
 * How every SQLite file here is opened for giving space back: a new file in incremental
 * vacuum mode, an old file converted (when small, or by hand), and a WAL file cut back to
 * its limit once a checkpoint lets it start over.
 */
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { openDatabaseFile, WAL_SIZE_LIMIT_BYTES } from './database.js';
import { convertIfSmall, reclaimFreePages, vacuumFile } from './vacuum.js';

const dirs: string[] = [];
const dbs: DatabaseSync[] = [];
afterEach(() => {
  for (const db of dbs.splice(0)) if (db.isOpen) db.close();
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  vi.restoreAllMocks();
});

function tempFile(): string {
  const dir = mkdtempSync(join(tmpdir(), 'agentdeck-vacuum-'));
  dirs.push(dir);
  return join(dir, 'state.db');
}

function track(db: DatabaseSync): DatabaseSync {
  dbs.push(db);
  return db;
}

const autoVacuum = (db: DatabaseSync) =>
  Number(db.prepare('PRAGMA auto_vacuum').get()?.auto_vacuum);
const freePages = (db: DatabaseSync) =>
  Number(db.prepare('PRAGMA freelist_count').get()?.freelist_count);

/** A table of `rows` blobs of 4 KB, written in one transaction. */
function fillBlobs(db: DatabaseSync, rows: number): void {
  db.exec('CREATE TABLE IF NOT EXISTS blobs (b BLOB)');
  db.exec(`WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ${rows})
    INSERT INTO blobs SELECT randomblob(4000) FROM n`);
}

/** A file as stores made it before incremental vacuum: WAL, auto_vacuum NONE, some data. */
function oldFile(rows: number): string {
  const path = tempFile();
  const db = new DatabaseSync(path);
  db.exec('PRAGMA journal_mode = WAL');
  fillBlobs(db, rows);
  db.close();
  return path;
}

describe('opening an SQLite file', () => {
  it('makes a new file incremental, so deleted rows can be given back', () => {
    const db = track(openDatabaseFile(tempFile(), 5_000));
    expect(autoVacuum(db)).toBe(2);
    fillBlobs(db, 500);
    db.exec('DELETE FROM blobs');
    const freed = freePages(db);
    expect(freed).toBeGreaterThan(450);
    expect(reclaimFreePages(db, 100)).toBe(100); // bounded
    expect(freePages(db)).toBe(freed - 100);
    expect(reclaimFreePages(db)).toBe(freed - 100);
    expect(freePages(db)).toBe(0);
    expect(reclaimFreePages(db)).toBe(0);
  });

  it('converts a small file made without incremental vacuum when it opens it', () => {
    const path = oldFile(100);
    const db = track(openDatabaseFile(path, 5_000));
    expect(autoVacuum(db)).toBe(2);
    expect(Number(db.prepare('SELECT count(*) AS n FROM blobs').get()?.n)).toBe(100);
  });

  it('leaves a larger one as it is, says so once, and converts it when asked', () => {
    const said = vi.spyOn(console, 'error').mockImplementation(() => {});
    const path = oldFile(100);
    const db = track(new DatabaseSync(path));
    convertIfSmall(db, path, 64 * 1024); // the file is about 400 KB: over this limit
    convertIfSmall(db, path, 64 * 1024);
    expect(autoVacuum(db)).toBe(0);
    expect(said).toHaveBeenCalledTimes(1);
    expect(String(said.mock.calls[0]?.[0])).toMatch(
      /will not shrink.*SqliteEventStore\.vacuum\(\)/,
    );
    db.exec('DELETE FROM blobs');
    expect(reclaimFreePages(db)).toBe(0); // nothing to do in mode NONE
    vacuumFile(db, path);
    expect(autoVacuum(db)).toBe(2);
    expect(freePages(db)).toBe(0);
  });

  it('cuts the WAL file back to its limit once a checkpoint lets it start over', () => {
    const sizes = (limited: boolean) => {
      const path = tempFile();
      const db = track(limited ? openDatabaseFile(path, 5_000) : new DatabaseSync(path));
      if (!limited) db.exec('PRAGMA journal_mode = WAL');
      fillBlobs(db, 5_000); // about 20 MB in the WAL
      const grown = statSync(`${path}-wal`).size;
      db.exec('PRAGMA wal_checkpoint(PASSIVE)');
      db.exec('INSERT INTO blobs VALUES (NULL)'); // the next write starts the WAL over
      return { grown, after: statSync(`${path}-wal`).size };
    };
    const limited = sizes(true);
    expect(limited.grown).toBeGreaterThan(WAL_SIZE_LIMIT_BYTES);
    expect(limited.after).toBeLessThanOrEqual(WAL_SIZE_LIMIT_BYTES);
    const unlimited = sizes(false); // SQLite's default keeps the file at its largest
    expect(unlimited.after).toBe(unlimited.grown);
  });
});
