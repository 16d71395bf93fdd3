/**
 * A synchronous start over its rate limit is refused before anything is recorded: an agent
 * or workflow with `queue.rate` takes a token of its bucket for the caller's key (its tenant,
 * else `default`), the same bucket its queued runs take theirs from (core/queue.ts), so the
 * limit holds across processes and across both ways of starting. No token: RateLimitedError
 * with how long until one (HTTP 429 with `Retry-After`). A store without a run queue (a
 * custom one) keeps no buckets: there the rate is not limited (docs/background-runs.md).
 * Tested in src/deck/background-runs.test.ts and test/queue-http.test.ts.
 */
import type { QueuePolicy } from '../authoring/queue-options.js';
import { RateLimitedError } from '../core/errors.js';
import { isRunQueue, rateBucket } from '../core/queue.js';
import type { EventStore } from '../core/store.js';

export async function admitStart(
  store: EventStore,
  origin: { name: string; queue?: QueuePolicy },
  namespace: string | undefined,
): Promise<void> {
  const rate = origin.queue?.limits.rate;
  if (!rate || !isRunQueue(store)) return;
  const key = namespace ?? 'default';
  const token = await store.takeToken(rateBucket(origin.name, key), rate);
  if (token.ok) return;
  throw new RateLimitedError(
    `'${origin.name}' is over its rate limit for key '${key}' (${rate.limit} starts per ` +
      `${rate.periodMs / 1000} s); try again in ${Math.ceil(token.retryAfterMs / 1000)} s, or queue the run (POST /runs)`,
    token.retryAfterMs,
  );
}
