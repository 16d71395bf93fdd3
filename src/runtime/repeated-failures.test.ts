/**
 * A background task failing on every tick during an outage logs its first failure, then
 * nothing until it works again, when it says how many attempts failed; a failure that is not
 * an outage is logged every time.
 */
import { describe, expect, it } from 'vitest';
import { StoreUnavailableError } from '../core/errors.js';
import { RepeatedFailures } from './repeated-failures.js';

describe('RepeatedFailures', () => {
  it('logs an outage once, then the count when the task works again', () => {
    const lines: string[] = [];
    const failures = new RepeatedFailures('the stale sweep', (line) => lines.push(line));
    const down = new StoreUnavailableError('postgres', 'postgres is down');
    failures.succeeded();
    for (let tick = 0; tick < 3; tick += 1) failures.failed(down);
    failures.succeeded();
    failures.succeeded();
    expect(lines).toEqual([
      '[agentdeck] the stale sweep failed: postgres is down; retrying quietly until it works again',
      '[agentdeck] the stale sweep works again, after 3 failed attempt(s)',
    ]);
  });

  it('logs every failure that is not an outage', () => {
    const lines: string[] = [];
    const failures = new RepeatedFailures('the resume watch', (line) => lines.push(line));
    failures.failed(new TypeError('a bug'));
    failures.failed(new TypeError('a bug'));
    failures.succeeded();
    expect(lines).toEqual([
      '[agentdeck] the resume watch failed: a bug',
      '[agentdeck] the resume watch failed: a bug',
    ]);
  });
});
