import { describe, expect, it } from 'vitest';
import { InvalidInputError } from './errors.js';
import { parseInstant } from './instants.js';

describe('parseInstant', () => {
  it('accepts a Date and ISO strings that carry an offset', () => {
    const date = new Date('2026-11-21T09:00:00Z');
    expect(parseInstant(date, 'when')).toBe(date);
    expect(parseInstant('2026-11-21T09:00:00Z', 'when').toISOString()).toBe(
      '2026-11-21T09:00:00.000Z',
    );
    expect(parseInstant('2026-11-21T10:00:00.250+01:00', 'when').toISOString()).toBe(
      '2026-11-21T09:00:00.250Z',
    );
    expect(parseInstant('2026-11-21T04:00-0500', 'when').toISOString()).toBe(
      '2026-11-21T09:00:00.000Z',
    );
  });

  it('refuses strings without an offset, other types and invalid dates, naming the argument', () => {
    for (const bad of ['2026-11-21T09:00:00', '2026-11-21', 'tomorrow', 1_700_000_000, null]) {
      expect(() => parseInstant(bad, 'sleepUntil(when)')).toThrow(InvalidInputError);
    }
    expect(() => parseInstant('2026-11-21T09:00:00', 'now')).toThrow(
      "now must be a Date or an ISO 8601 string with an offset (e.g. '2026-11-21T09:00:00Z' or '2026-11-21T10:00:00+01:00'), got '2026-11-21T09:00:00'",
    );
    expect(() => parseInstant(new Date('nope'), 'now')).toThrow('now is an invalid Date');
    expect(() => parseInstant('2026-13-45T09:00:00Z', 'now')).toThrow(InvalidInputError);
  });
});
