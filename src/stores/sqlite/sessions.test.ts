import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { StoreError } from '../../core/errors.js';
import { describeSessionContract } from '../../testing/session-contract.js';
import { SqliteSessionBackend } from './sessions.js';

describeSessionContract('SqliteSessionBackend (memory)', {
  create: () => new SqliteSessionBackend(),
  isolatedStorage: 'an in-memory database is private to its instance and lost on close',
});

const dir = mkdtempSync(join(tmpdir(), 'agentdeck-sessions-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describeSessionContract('SqliteSessionBackend (file)', {
  create: () => new SqliteSessionBackend({ path: join(dir, 'nested', 'sessions.db') }),
});

describe('SqliteSessionBackend', () => {
  it('defaults to an in-memory database', async () => {
    const backend = new SqliteSessionBackend();
    expect(backend.path).toBe(':memory:');
    await backend.close();
  });

  it('fails with a StoreError after close, and closes twice', async () => {
    const backend = new SqliteSessionBackend();
    const session = backend.sessionFor('s1');
    await backend.close();
    await backend.close();
    await expect(session.getItems()).rejects.toThrow(StoreError);
    await expect(session.addItems([{ a: 1 }])).rejects.toThrow(/closed.*'s1'/);
  });

  it('reports an unopenable path as a StoreError with the cause', () => {
    const file = join(dir, 'not-a-dir');
    new SqliteSessionBackend({ path: file }).close();
    const error = (() => {
      try {
        new SqliteSessionBackend({ path: join(file, 'sessions.db') });
      } catch (caught) {
        return caught;
      }
    })();
    expect(error).toBeInstanceOf(StoreError);
    expect((error as StoreError).cause).toBeDefined();
    expect((error as StoreError).message).toContain('not-a-dir');
  });

  it('leaves the history untouched when an item cannot be serialized', async () => {
    const backend = new SqliteSessionBackend();
    const session = backend.sessionFor('s1');
    await session.addItems([{ n: 1 }]);
    await expect(session.addItems([{ n: 2 }, { n: 3n }])).rejects.toThrow(StoreError);
    expect(await session.getItems()).toEqual([{ n: 1 }]);
    await backend.close();
  });
});
