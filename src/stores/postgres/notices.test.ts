/**
 * The sending half of append notices, without a server: a live tail reads nothing between
 * notices, so a NOTIFY that fails (a connection terminated under it) is sent again, with
 * what gathered meanwhile, and never again once the store closes.
 */
import type { Pool } from 'pg';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { Announcer } from './notices.js';

/** A pool whose queries fail while `failing` is set, recording each call's runs. */
function fakePool() {
  const sent: string[][] = [];
  const state = { failing: true };
  const pool = {
    query: async (_sql: string, [runs]: [string[]]) => {
      sent.push([...runs]);
      if (state.failing) throw new Error('terminating connection due to administrator command');
      return { rows: [] };
    },
  };
  return { pool: pool as unknown as Pool, sent, state };
}

afterEach(() => {
  vi.useRealTimers();
});

describe('Announcer', () => {
  it('sends a failed notice again after a pause, with the runs gathered meanwhile', async () => {
    vi.useFakeTimers();
    const { pool, sent, state } = fakePool();
    const announcer = new Announcer(pool, true);
    announcer.announce('r1');
    await vi.advanceTimersByTimeAsync(0);
    expect(sent).toEqual([['r1']]);
    state.failing = false;
    announcer.announce('r2');
    await vi.advanceTimersByTimeAsync(500);
    expect(sent).toEqual([['r1']]); // not before the pause
    await vi.advanceTimersByTimeAsync(600);
    expect(sent).toEqual([['r1'], ['r1', 'r2']]);
    announcer.announce('r3');
    await vi.advanceTimersByTimeAsync(0);
    expect(sent.at(-1)).toEqual(['r3']);
  });

  it('tries once more at close, then drops what fails', async () => {
    const { pool, sent } = fakePool();
    const announcer = new Announcer(pool, true);
    announcer.announce('r1');
    await announcer.close();
    expect(sent).toEqual([['r1']]);
  });
});
