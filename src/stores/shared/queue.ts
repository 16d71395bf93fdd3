/**
 * What every backend's `enqueue` checks before it writes (core/queue.ts): the event is a
 * `run.queued` and the limits are whole numbers of at least 1, so a bad entry is refused with
 * the same message on every backend and nothing is written.
 */
import { InvalidInputError } from '../../core/errors.js';
import type { NewEvent } from '../../core/events.js';
import type { QueueLimits } from '../../core/queue.js';

export function requireQueued(event: NewEvent, limits: QueueLimits): void {
  if (event.kind !== 'run.queued') {
    throw new InvalidInputError(`enqueue takes a 'run.queued' event, got '${event.kind}'`);
  }
  const { concurrency, rate } = limits;
  if (concurrency !== null && !(Number.isInteger(concurrency) && concurrency >= 1)) {
    throw new InvalidInputError(
      `a queue's concurrency must be a whole number of at least 1, got ${concurrency}`,
    );
  }
  if (rate !== null && !(Number.isInteger(rate.limit) && rate.limit >= 1 && rate.periodMs > 0)) {
    throw new InvalidInputError(
      `a rate limit must allow a whole number of at least 1 start per a period over 0 ms, got ${JSON.stringify(rate)}`,
    );
  }
}
