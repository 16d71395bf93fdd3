import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError } from '../core/errors.js';
import { RedisSessionBackend } from './redis/sessions.js';
import { openSessionBackend, parseSessionUrl, sessionSettingsFromEnv } from './sessions-url.js';
import { SqliteSessionBackend } from './sqlite/sessions.js';

describe('parseSessionUrl', () => {
  const file = { backend: 'sqlite', path: '/srv/app/state.db' } as const;

  it("keeps sessions in the events' SQLite file when unset, else in memory", () => {
    for (const url of [undefined, '', '  ']) {
      expect(parseSessionUrl(url, file)).toEqual({ backend: 'sqlite', path: '/srv/app/state.db' });
      expect(parseSessionUrl(url, { backend: 'memory' })).toEqual({ backend: 'memory' });
      expect(parseSessionUrl(url, { backend: 'postgres', url: 'postgres://db/app' })).toEqual({
        backend: 'memory',
      });
      expect(parseSessionUrl(url)).toEqual({ backend: 'memory' });
    }
  });

  it('takes memory:// (whatever the events) and redis://', () => {
    expect(parseSessionUrl('memory://', file)).toEqual({ backend: 'memory' });
    expect(parseSessionUrl('MEMORY:', file)).toEqual({ backend: 'memory' });
    expect(parseSessionUrl('redis://cache:6379/1', file)).toEqual({
      backend: 'redis',
      url: 'redis://cache:6379/1',
    });
  });
});

describe('openSessionBackend', () => {
  it("opens SQLite in the events' file when unset and they are in one", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'agentdeck-sessions-url-'));
    const path = join(dir, 'state.db');
    try {
      const events = { backend: 'sqlite', path } as const;
      const first = openSessionBackend(undefined, { events });
      expect((first as SqliteSessionBackend).path).toBe(path);
      await first.sessionFor('s').addItems([{ n: 1 }]);
      await first.close();
      const again = openSessionBackend('', { events });
      expect(await again.sessionFor('s').getItems()).toEqual([{ n: 1 }]);
      await again.close();
      const memory = openSessionBackend('memory://', { events });
      expect((memory as SqliteSessionBackend).path).toBe(':memory:');
      expect(await memory.sessionFor('s').getItems()).toEqual([]);
      await memory.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('opens an in-memory SQLite backend when unset or empty, with no events file given', async () => {
    for (const url of [undefined, '', '  ', 'memory://']) {
      const backend = openSessionBackend(url);
      expect(backend).toBeInstanceOf(SqliteSessionBackend);
      expect((backend as SqliteSessionBackend).path).toBe(':memory:');
      await backend.sessionFor('s').addItems([{ n: 1 }]);
      expect(await backend.sessionFor('s').getItems()).toEqual([{ n: 1 }]);
      await backend.close();
    }
  });

  it('opens Redis for redis:// and rediss://, with the options, without connecting', async () => {
    const plain = openSessionBackend('redis://127.0.0.1:6390');
    expect(plain).toBeInstanceOf(RedisSessionBackend);
    expect((plain as RedisSessionBackend).keyPrefix).toBe('agentdeck:session:');
    expect((plain as RedisSessionBackend).ttlSeconds).toBeNull();
    await plain.close();
    const tls = openSessionBackend('REDISS://:pw@cache:6380', {
      keyPrefix: 'app:',
      ttlSeconds: 60,
    });
    expect(tls).toBeInstanceOf(RedisSessionBackend);
    expect(tls).toMatchObject({
      keyPrefix: 'app:',
      ttlSeconds: 60,
      url: 'rediss://:***@cache:6380',
    });
    await tls.close();
  });

  it('refuses anything else, naming the value (password hidden) and the accepted forms', () => {
    for (const url of [
      'postgres://u:s3cret@db/app',
      'memory://x',
      'sqlite:///tmp/s.db',
      'localhost:6379',
    ]) {
      expect(() => openSessionBackend(url)).toThrow(ConfigError);
    }
    expect(() => openSessionBackend('postgres://u:s3cret@db/app')).toThrow(
      /SERVICE_SESSION 'postgres:\/\/u:\*\*\*@db\/app' is not supported.*redis:\/\//,
    );
  });

  it('refuses a bad TTL as a ConfigError', () => {
    expect(() => openSessionBackend('redis://cache', { ttlSeconds: 0 })).toThrow(ConfigError);
    expect(() => openSessionBackend('redis://cache', { ttlSeconds: 1.5 })).toThrow(/ttlSeconds/);
  });
});

describe('sessionSettingsFromEnv', () => {
  it('is empty when nothing is set, or set to empty strings', () => {
    expect(sessionSettingsFromEnv({})).toEqual({});
    expect(
      sessionSettingsFromEnv({
        SERVICE_SESSION: '',
        SERVICE_SESSION_KEY_PREFIX: '',
        SERVICE_SESSION_TTL_SECONDS: ' ',
      }),
    ).toEqual({});
  });

  it('reads the three variables', () => {
    expect(
      sessionSettingsFromEnv({
        SERVICE_SESSION: ' redis://cache:6379/1 ',
        SERVICE_SESSION_KEY_PREFIX: 'app:sessions:',
        SERVICE_SESSION_TTL_SECONDS: '3600',
      }),
    ).toEqual({ url: 'redis://cache:6379/1', keyPrefix: 'app:sessions:', ttlSeconds: 3600 });
  });

  it('refuses a TTL that is not a positive whole number, naming the variable and value', () => {
    for (const ttl of ['0', '-5', 'abc', '1.5', '1e3', '99999999999999999999']) {
      expect(() => sessionSettingsFromEnv({ SERVICE_SESSION_TTL_SECONDS: ttl })).toThrow(
        ConfigError,
      );
      expect(() => sessionSettingsFromEnv({ SERVICE_SESSION_TTL_SECONDS: ttl })).toThrow(
        `SERVICE_SESSION_TTL_SECONDS must be a positive whole number of seconds, got '${ttl}'`,
      );
    }
  });

  it('feeds openSessionBackend', async () => {
    const { url, ...options } = sessionSettingsFromEnv({
      SERVICE_SESSION: 'redis://127.0.0.1:6390',
      SERVICE_SESSION_TTL_SECONDS: '30',
    });
    const backend = openSessionBackend(url, options);
    expect(backend).toMatchObject({ ttlSeconds: 30, keyPrefix: 'agentdeck:session:' });
    await backend.close();
  });
});
