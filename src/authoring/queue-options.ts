/**
 * The `queue` option of `Agent` and `Workflow` (#40): the limits its runs wait under, per
 * key (a tenant, a user, any string the caller names), across every process sharing the
 * event store, and for an agent what happens to a background turn whose worker died. Checked
 * when the agent or workflow is built, so a limit of 0 or a fraction never reaches a queue.
 * Docs: docs/background-runs.md.
 */
import { ConfigError } from '../core/errors.js';
import type { QueueLimits } from '../core/queue.js';

export interface QueueOptions {
  /**
   * Most runs of this agent or workflow playing at once per key, across every process. Queued
   * runs over it wait for a slot; a run waiting for a person or a timer holds none.
   */
  concurrency?: number;
  /**
   * At most `limit` starts per `perSeconds` per key (a token bucket, refilled continuously).
   * A queued run waits for its token; a synchronous start over it is refused (HTTP 429 with
   * `Retry-After`).
   */
  rate?: { limit: number; perSeconds: number };
  /**
   * An agent's background turn whose worker died mid-turn (its process killed): played again
   * from its input up to `attempts` times in all, `backoffSeconds` after the death is noticed;
   * after the last, the run fails. Workflows need none: they go on from their last checkpoint.
   * @default { attempts: 1 } (no retry)
   */
  retry?: { attempts: number; backoffSeconds?: number };
}

/** The checked policy an agent or workflow keeps. */
export interface QueuePolicy {
  limits: QueueLimits;
  retry: { attempts: number; backoffMs: number };
}

export const NO_QUEUE_POLICY: QueuePolicy = {
  limits: { concurrency: null, rate: null },
  retry: { attempts: 1, backoffMs: 0 },
};

/** `options` checked for `owner` (e.g. "agent 'helper'"); ConfigError names the bad field. */
export function queuePolicy(owner: string, options: QueueOptions | undefined): QueuePolicy {
  if (options === undefined) return NO_QUEUE_POLICY;
  const whole = (field: string, value: unknown, least: number): number => {
    if (typeof value !== 'number' || !Number.isInteger(value) || value < least) {
      throw new ConfigError(
        `${owner}: queue.${field} must be a whole number of at least ${least}, got ${JSON.stringify(value)}`,
      );
    }
    return value;
  };
  const positive = (field: string, value: unknown): number => {
    if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0) {
      throw new ConfigError(
        `${owner}: queue.${field} must be a number of seconds over 0, got ${JSON.stringify(value)}`,
      );
    }
    return value;
  };
  const { concurrency, rate, retry } = options;
  return {
    limits: {
      concurrency: concurrency === undefined ? null : whole('concurrency', concurrency, 1),
      rate:
        rate === undefined
          ? null
          : {
              limit: whole('rate.limit', rate.limit, 1),
              periodMs: positive('rate.perSeconds', rate.perSeconds) * 1000,
            },
    },
    retry: {
      attempts: retry === undefined ? 1 : whole('retry.attempts', retry.attempts, 1),
      backoffMs:
        retry?.backoffSeconds === undefined
          ? 0
          : retry.backoffSeconds === 0
            ? 0
            : positive('retry.backoffSeconds', retry.backoffSeconds) * 1000,
    },
  };
}
