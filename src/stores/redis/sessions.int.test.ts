/**
 * Against a real Redis (TEST_REDIS_URL, default the local server). Every key this run writes
 * starts with a prefix unique to the run, and is deleted afterwards.
 */
import { randomUUID } from 'node:crypto';
import { type AddressInfo, createServer } from 'node:net';
import { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import { StoreError } from '../../core/errors.js';
import { describeSessionContract } from '../../testing/session-contract.js';
import { RedisSessionBackend } from './sessions.js';

const url = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
const keyPrefix = `agentdeck-test:${randomUUID()}:`;
const admin = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 1 });

afterAll(async () => {
  let cursor = '0';
  do {
    const [next, keys] = await admin.scan(cursor, 'MATCH', `${keyPrefix}*`, 'COUNT', 500);
    if (keys.length > 0) await admin.del(...keys);
    cursor = next;
  } while (cursor !== '0');
  await admin.quit();
});

describeSessionContract('RedisSessionBackend', {
  create: () => new RedisSessionBackend({ url, keyPrefix }),
});

describeSessionContract('RedisSessionBackend with a TTL', {
  create: () => new RedisSessionBackend({ url, keyPrefix, ttlSeconds: 60 }),
});

describe('RedisSessionBackend', () => {
  it('stores one list per session under the key prefix, without expiry by default', async () => {
    const backend = new RedisSessionBackend({ url, keyPrefix });
    await backend.sessionFor('plain').addItems([{ n: 1 }]);
    expect(await admin.lrange(`${keyPrefix}plain`, 0, -1)).toEqual(['{"n":1}']);
    expect(await admin.ttl(`${keyPrefix}plain`)).toBe(-1);
    await backend.close();
  });

  it('sets the TTL on add and refreshes it on pop', async () => {
    const backend = new RedisSessionBackend({ url, keyPrefix, ttlSeconds: 100 });
    const session = backend.sessionFor('ttl');
    await session.addItems([{ n: 1 }, { n: 2 }]);
    const ttl = await admin.ttl(`${keyPrefix}ttl`);
    expect(ttl).toBeGreaterThan(0);
    expect(ttl).toBeLessThanOrEqual(100);
    await admin.expire(`${keyPrefix}ttl`, 5);
    expect(await session.popItem()).toEqual({ n: 2 });
    expect(await admin.ttl(`${keyPrefix}ttl`)).toBeGreaterThan(5);
    await backend.close();
  });

  it('a second instance reads the history the first wrote', async () => {
    const first = new RedisSessionBackend({ url, keyPrefix });
    await first.sessionFor('shared').addItems([{ role: 'user', content: 'hi' }]);
    await first.close();
    const second = new RedisSessionBackend({ url, keyPrefix });
    expect(await second.sessionFor('shared').getItems()).toEqual([{ role: 'user', content: 'hi' }]);
    await second.close();
  });

  it('fails fast with a StoreError naming the server, password hidden', async () => {
    const backend = new RedisSessionBackend({ url: 'redis://:s3cret@127.0.0.1:6390/0' });
    const started = Date.now();
    const error = await backend
      .sessionFor('down')
      .getItems()
      .catch((caught: unknown) => caught);
    expect(Date.now() - started).toBeLessThan(6_000);
    expect(error).toBeInstanceOf(StoreError);
    const { message, cause } = error as StoreError;
    expect(message).toContain('redis://:***@127.0.0.1:6390/0');
    expect(message).toContain("'down'");
    expect(message).not.toContain('s3cret');
    expect((cause as NodeJS.ErrnoException).code).toBe('ECONNREFUSED');
    await backend.close();
  });

  it('gives up on a server that accepts but never answers, as a StoreError', async () => {
    const silent = createServer(() => {});
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const { port } = silent.address() as AddressInfo;
    const backend = new RedisSessionBackend({ url: `redis://127.0.0.1:${port}` });
    const started = Date.now();
    await expect(backend.sessionFor('mute').addItems([{ n: 1 }])).rejects.toThrow(
      /could not add items to session 'mute': Command timed out/,
    );
    expect(Date.now() - started).toBeLessThan(8_000);
    await backend.close();
    silent.close();
  });

  it('rejects use after close with a StoreError, and closes twice', async () => {
    const backend = new RedisSessionBackend({ url, keyPrefix });
    await backend.sessionFor('closed').getItems();
    await backend.close();
    await backend.close();
    await expect(backend.sessionFor('closed').getItems()).rejects.toThrow(/closed/);
  });

  it('closes a backend that never connected', async () => {
    const backend = new RedisSessionBackend({ url: 'redis://127.0.0.1:6390' });
    await backend.close();
    await expect(backend.sessionFor('x').getItems()).rejects.toThrow(StoreError);
  });
});
