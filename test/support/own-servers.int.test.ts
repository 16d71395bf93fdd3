/**
 * The fault-injection support works: a test's own Postgres and Redis answer, refuse new
 * connections once stopped, and answer again on the same URL once started; a small disk
 * refuses writes past its size with ENOSPC (or its test is skipped, with the reason, where
 * mounting is not allowed).
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import {
  type OwnPostgres,
  ownPostgresUnavailableReason,
  startOwnPostgres,
} from './own-postgres.js';
import { type OwnRedis, startOwnRedis } from './own-redis.js';
import { mountSmallDisk, type SmallDisk } from './small-disk.js';

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function selectOne(url: string): Promise<unknown> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 2_000 });
  await client.connect();
  try {
    return (await client.query<{ one: number }>('SELECT 1 AS one')).rows[0]?.one;
  } finally {
    await client.end();
  }
}

async function ping(url: string): Promise<string> {
  // No retries and no offline queue: a stopped server must fail the call, not stall it.
  const redis = new Redis(url, {
    lazyConnect: true,
    maxRetriesPerRequest: 0,
    enableOfflineQueue: false,
    retryStrategy: () => null,
    connectTimeout: 2_000,
  });
  redis.on('error', () => {}); // the rejected connect() reports it
  try {
    await redis.connect();
    return await redis.ping();
  } finally {
    redis.disconnect();
  }
}

const postgresUnavailable = ownPostgresUnavailableReason();

describe.skipIf(postgresUnavailable !== null)(
  `own Postgres${postgresUnavailable ? ` (skipped: ${postgresUnavailable})` : ''}`,
  () => {
    it('answers, refuses connections once stopped, and answers again on the same URL', async () => {
      const server: OwnPostgres = await startOwnPostgres();
      cleanups.push(() => server.destroy());
      expect(server.url).toBe(`postgres://postgres@127.0.0.1:${server.port}/postgres`);
      expect(await selectOne(server.url)).toBe(1);

      await server.stop();
      await expect(selectOne(server.url)).rejects.toThrow();

      await server.start();
      expect(await selectOne(server.url)).toBe(1);

      await server.restart();
      expect(await selectOne(server.url)).toBe(1);
      expect(server.log()).toContain('database system is ready to accept connections');

      await server.destroy();
      await server.destroy();
      await expect(selectOne(server.url)).rejects.toThrow();
    });
  },
);

describe('own Redis', () => {
  it('answers PING, refuses connections once killed, and answers again on the same URL', async () => {
    const server: OwnRedis = await startOwnRedis();
    cleanups.push(() => server.destroy());
    expect(server.url).toBe(`redis://127.0.0.1:${server.port}`);
    expect(await ping(server.url)).toBe('PONG');

    await server.stop();
    await expect(ping(server.url)).rejects.toThrow();

    await server.start();
    expect(await ping(server.url)).toBe('PONG');

    await server.destroy();
    await server.destroy();
    await expect(ping(server.url)).rejects.toThrow();
  });
});

describe('small disk', () => {
  it('refuses a write past its size with ENOSPC', async (ctx) => {
    const size = 1024 * 1024;
    const disk = await mountSmallDisk(size);
    if ('skipped' in disk) return ctx.skip(disk.skipped);
    const mounted: SmallDisk = disk;
    cleanups.push(() => mounted.unmount());

    await writeFile(join(mounted.dir, 'fits'), Buffer.alloc(size / 2));
    await expect(writeFile(join(mounted.dir, 'too-big'), Buffer.alloc(size))).rejects.toMatchObject(
      { code: 'ENOSPC' },
    );

    await mounted.unmount();
    await mounted.unmount();
  });
});
