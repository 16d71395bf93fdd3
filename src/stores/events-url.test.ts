import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { describe, expect, it } from 'vitest';
import { ConfigError, StoreError } from '../core/errors.js';
import { openEventStore, parseEventStoreUrl } from './events-url.js';
import { MemoryEventStore } from './memory/events.js';
import { PostgresEventStore } from './postgres/events.js';
import { SqliteEventStore } from './sqlite/events.js';

describe('parseEventStoreUrl', () => {
  const cwd = '/srv/app';

  it('defaults to ./.agentdeck/state.db in the working directory', () => {
    const expected = { backend: 'sqlite', path: '/srv/app/.agentdeck/state.db' };
    expect(parseEventStoreUrl(undefined, cwd)).toEqual(expected);
    expect(parseEventStoreUrl('', cwd)).toEqual(expected);
    expect(parseEventStoreUrl('  ', cwd)).toEqual(expected);
  });

  it('reads memory://', () => {
    expect(parseEventStoreUrl('memory://', cwd)).toEqual({ backend: 'memory' });
  });

  it('reads absolute and relative sqlite:// paths', () => {
    expect(parseEventStoreUrl('sqlite:///var/lib/deck/state.db', cwd)).toEqual({
      backend: 'sqlite',
      path: '/var/lib/deck/state.db',
    });
    expect(parseEventStoreUrl('sqlite://data/state.db', cwd)).toEqual({
      backend: 'sqlite',
      path: '/srv/app/data/state.db',
    });
  });

  it('reads postgres:// and postgresql:// URLs, kept as given', () => {
    for (const url of [
      'postgres://u:secret@db:5432/deck',
      'postgresql://db/deck?sslmode=require',
    ]) {
      expect(parseEventStoreUrl(url, cwd)).toEqual({ backend: 'postgres', url });
    }
    expect(() => parseEventStoreUrl('postgres://', cwd)).toThrow(ConfigError);
    expect(() => parseEventStoreUrl('postgres:db', cwd)).toThrow(ConfigError);
  });

  it('refuses anything else, naming the value and the accepted forms', () => {
    for (const url of [
      'redis://localhost',
      'state.db',
      'memory://x',
      'sqlite://',
      'mysql://u:pw@h/db',
    ]) {
      expect(() => parseEventStoreUrl(url, cwd)).toThrow(ConfigError);
    }
    expect(() => parseEventStoreUrl('redis://localhost', cwd)).toThrow(
      /'redis:\/\/localhost'.*memory:\/\/.*sqlite:\/\/\/absolute\/path\.db.*sqlite:\/\/relative.*postgres:\/\//,
    );
    expect(() => parseEventStoreUrl('mysql://u:pw@h/db', cwd)).not.toThrow(/pw/);
  });
});

describe('openEventStore', () => {
  it('opens the memory store', async () => {
    const store = openEventStore('memory://');
    expect(store).toBeInstanceOf(MemoryEventStore);
    await store.close();
  });

  it('opens an SQLite file, creating its directory', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'agentdeck-url-'));
    try {
      const store = openEventStore(`sqlite://${join(dir, 'deep', 'state.db')}`);
      expect(store).toBeInstanceOf(SqliteEventStore);
      expect((store as SqliteEventStore).path).toBe(join(dir, 'deep', 'state.db'));
      await store.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('opens an SQLite store that group-commits streamed deltas (the default)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'agentdeck-url-'));
    const file = join(dir, 'state.db');
    const store = openEventStore(`sqlite://${file}`);
    const outside = new DatabaseSync(file, { readOnly: true });
    const count = () => Number(outside.prepare('SELECT COUNT(*) AS n FROM events').get()?.n);
    try {
      const envelope = { runId: 'r1', sessionId: null, namespace: null, origin: 'test' };
      await store.append([
        { ...envelope, kind: 'run.started', payload: { invocableType: 'agent', input: [] } },
      ]);
      for (const text of ['a', 'b', 'c']) {
        await store.append([
          { ...envelope, kind: 'text.delta', payload: { messageId: 'm', text } },
        ]);
      }
      expect(count()).toBe(1); // the deltas of the turn are held
      await new Promise((resolve) => setImmediate(resolve));
      expect(count()).toBe(4);
    } finally {
      outside.close();
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('opens a Postgres store without connecting; its first call reports an unreachable server', async () => {
    const store = openEventStore('postgres://deck:s3cret@127.0.0.1:1/deck');
    expect(store).toBeInstanceOf(PostgresEventStore);
    expect((store as PostgresEventStore).location).toBe('postgres://deck:***@127.0.0.1:1/deck');
    const error = await store.read('r1').catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(StoreError);
    expect((error as StoreError).message).toMatch(/could not connect to the Postgres event store/);
    expect((error as StoreError).message).not.toContain('s3cret');
    await store.close();
  });

  it('throws ConfigError before opening anything for a bad value', () => {
    expect(() => openEventStore('mysql://db/deck')).toThrow(ConfigError);
    expect(() => openEventStore('postgres://')).toThrow(ConfigError);
  });
});
