/**
 * Points in time given by callers (`sleepUntil(when)`, `dueResumes(now)`, `tick(now)`): a
 * `Date`, or an ISO 8601 string that carries its offset. A string without one is refused
 * rather than guessed, since the same wall-clock time means different instants on
 * different servers.
 */
import { InvalidInputError } from './errors.js';

const ISO_WITH_OFFSET = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})$/i;

/** A valid Date for `value`, or InvalidInputError naming `what` and the accepted forms. */
export function parseInstant(value: unknown, what: string): Date {
  if (value instanceof Date) {
    if (!Number.isNaN(value.getTime())) return value;
    throw new InvalidInputError(`${what} is an invalid Date; pass a valid Date`);
  }
  if (typeof value === 'string' && ISO_WITH_OFFSET.test(value.trim())) {
    const date = new Date(value.trim());
    if (!Number.isNaN(date.getTime())) return date;
  }
  const shown = typeof value === 'string' ? `'${value}'` : describe(value);
  throw new InvalidInputError(
    `${what} must be a Date or an ISO 8601 string with an offset ` +
      `(e.g. '2026-11-21T09:00:00Z' or '2026-11-21T10:00:00+01:00'), got ${shown}`,
  );
}

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (typeof value === 'object') return `an instance of ${value.constructor?.name ?? 'Object'}`;
  return `${typeof value} ${String(value)}`;
}
