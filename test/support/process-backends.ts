/**
 * Test support for the multi-process tests on Postgres and Redis: why a file cannot run here
 * (no Postgres binaries to start a cluster of its own, or no Redis answering), or null.
 */
import { Redis } from 'ioredis';
import { ownPostgresUnavailableReason } from './own-postgres.js';

export const TEST_REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

export async function postgresOrRedisUnavailable(
  redisUrl: string = TEST_REDIS_URL,
): Promise<string | null> {
  const noPostgres = ownPostgresUnavailableReason();
  if (noPostgres) return noPostgres;
  const redis = new Redis(redisUrl, {
    lazyConnect: true,
    connectTimeout: 2_000,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
  });
  try {
    await redis.connect();
    await redis.ping();
  } catch (error) {
    return `(no Redis at ${redisUrl}: ${(error as Error).message})`;
  } finally {
    redis.disconnect();
  }
  return null;
}
