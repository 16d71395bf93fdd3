import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MemorySaver } from '@langchain/langgraph-checkpoint';
import { describe, expect, it } from 'vitest';
import { ConfigError, StoreError } from '../core/errors.js';
import { openCheckpointer, parseCheckpointUrl } from './checkpoints-url.js';
import { MemoryEventStore } from './memory/index.js';
import { SqliteCheckpointer } from './sqlite/checkpointer.js';
import { SqliteEventStore } from './sqlite/events.js';

describe('SERVICE_CHECKPOINT', () => {
  it("defaults to the event store's SQLite file, or ./.agentdeck/state.db", () => {
    expect(parseCheckpointUrl(undefined, undefined, '/srv/app')).toEqual({
      backend: 'sqlite',
      path: '/srv/app/.agentdeck/state.db',
    });
    expect(parseCheckpointUrl('', 'sqlite:///data/state.db', '/srv/app')).toEqual({
      backend: 'sqlite',
      path: '/data/state.db',
    });
  });

  it('follows events kept in memory into memory when unset: no file', () => {
    expect(parseCheckpointUrl(undefined, 'memory://', '/srv/app')).toEqual({ backend: 'memory' });
    expect(parseCheckpointUrl('', ' memory: ', '/srv/app')).toEqual({ backend: 'memory' });
    // Named, it wins over the events' kind.
    expect(parseCheckpointUrl('sqlite://cp.db', 'memory://', '/srv/app')).toEqual({
      backend: 'sqlite',
      path: '/srv/app/cp.db',
    });
  });

  it('unset, follows the event store the deck was given rather than SERVICE_EVENTS', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'agentdeck-checkpoints-'));
    try {
      const inMemory = await openCheckpointer(undefined, undefined, new MemoryEventStore());
      expect(inMemory.location).toEqual({ backend: 'memory' });
      expect(inMemory.saver).toBeInstanceOf(MemorySaver);
      await inMemory.close();

      const events = new SqliteEventStore({ path: join(dir, 'events.db') });
      const beside = await openCheckpointer('', 'memory://', events);
      expect(beside.location).toEqual({ backend: 'sqlite', path: join(dir, 'events.db') });
      expect(beside.saver).toBeInstanceOf(SqliteCheckpointer);
      await beside.close();
      await events.close();

      const named = await openCheckpointer('memory://', undefined, events);
      expect(named.location).toEqual({ backend: 'memory' });
      await named.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('follows SERVICE_EVENTS to its Postgres database when unset', () => {
    for (const events of ['postgres://app:pw@db:5432/deck', 'postgresql://db/deck']) {
      expect(parseCheckpointUrl(undefined, events)).toEqual({ backend: 'postgres', url: events });
      expect(parseCheckpointUrl(' ', events)).toEqual({ backend: 'postgres', url: events });
    }
    expect(parseCheckpointUrl('memory://', 'postgres://db/deck')).toEqual({ backend: 'memory' });
  });

  it('opens the Postgres checkpointer SERVICE_EVENTS names, reporting an unreachable server', async () => {
    const opened = openCheckpointer(undefined, 'postgres://deck:s3cret@127.0.0.1:1/deck');
    const error = await opened.catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(StoreError);
    expect((error as StoreError).message).toMatch(/could not open the Postgres checkpointer/);
    expect((error as StoreError).message).not.toContain('s3cret');
  });

  it('accepts memory://, sqlite:// and postgres:// URLs', () => {
    expect(parseCheckpointUrl('memory://', undefined)).toEqual({ backend: 'memory' });
    expect(parseCheckpointUrl('sqlite://cp.db', undefined, '/srv')).toEqual({
      backend: 'sqlite',
      path: '/srv/cp.db',
    });
    expect(parseCheckpointUrl('postgresql://u:p@db:5432/app', undefined)).toEqual({
      backend: 'postgres',
      url: 'postgresql://u:p@db:5432/app',
    });
  });

  it('refuses anything else with the accepted forms, hiding a password', () => {
    expect(() => parseCheckpointUrl('redis://u:secret@cache:6379', undefined)).toThrow(ConfigError);
    expect(() => parseCheckpointUrl('redis://u:secret@cache:6379', undefined)).toThrow(
      "SERVICE_CHECKPOINT 'redis://***@cache:6379' is not a supported checkpointer; leave SERVICE_CHECKPOINT unset",
    );
    expect(() => parseCheckpointUrl('sqlite://', undefined)).toThrow(ConfigError);
  });
});
