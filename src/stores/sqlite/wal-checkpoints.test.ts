import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { NewEvent } from '../../core/events.js';
import { SqliteEventStore } from './events.js';
import { BACKSTOP_PAGES, WORKER_AFTER_COMMITS } from './wal-checkpoints.js';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

const envelope = { runId: 'run-1', sessionId: null, namespace: null, origin: 'test' };
const delta = (text: string): NewEvent => ({
  ...envelope,
  kind: 'text.delta',
  payload: { messageId: 'run-1:m0', text },
});
const autocheckpoint = (store: SqliteEventStore) =>
  Number(store.connection?.prepare('PRAGMA wal_autocheckpoint').get()?.wal_autocheckpoint);

describe('WAL checkpoints in a worker', () => {
  it('leaves a quiet store to SQLite, and checkpoints a busy one off the event loop', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'agentdeck-wal-'));
    dirs.push(dir);
    const path = join(dir, 'state.db');
    const store = new SqliteEventStore({ path, groupCommit: false });
    try {
      await store.append([
        { ...envelope, kind: 'run.started', payload: { invocableType: 'agent', input: [] } },
      ]);
      for (let i = 0; i < WORKER_AFTER_COMMITS - 10; i++) await store.append([delta('x')]);
      expect(autocheckpoint(store)).toBe(1_000); // SQLite's own, until the store is busy
      for (let i = 0; i < 20; i++) await store.append([delta('x')]);
      // Busy: a worker checkpoints; this connection only past a large WAL.
      expect(autocheckpoint(store)).toBe(BACKSTOP_PAGES);
      const before = statSync(path).size;
      const big = 'y'.repeat(4_000);
      for (let i = 0; i < 1_500; i++) await store.append([delta(big)]); // about 6 MB of WAL
      // Far below the backstop, so only the worker can have copied the pages into the file.
      await vi.waitFor(() => expect(statSync(path).size - before).toBeGreaterThan(5_000_000), {
        timeout: 5_000,
        interval: 50,
      });
      expect(await store.read('run-1')).toHaveLength(1 + WORKER_AFTER_COMMITS + 10 + 1_500);
    } finally {
      await store.close();
    }
  });
});
