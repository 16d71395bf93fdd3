/**
 * The serving lock in one process (SQLite keeps its file locks per connection here too); across
 * processes, with a server killed by SIGKILL, in test/cli-project.test.ts.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { StoreError } from '../../core/errors.js';
import { holdServingLock, withNoServer } from './serving-lock.js';

describe('the serving lock of an SQLite state file', () => {
  it('keeps a vacuum out while servers hold it, and a server out while a vacuum works', async () => {
    const path = join(mkdtempSync(join(tmpdir(), 'agentdeck-serving-')), 'state', 'state.db');
    const first = holdServingLock(path);
    const second = holdServingLock(path); // several servers on one file
    expect(await withNoServer(path, async () => 'vacuumed')).toBeNull();
    first.release();
    expect(await withNoServer(path, async () => 'vacuumed')).toBeNull();
    second.release();
    second.release(); // twice is harmless

    let refused: unknown;
    const done = await withNoServer(path, async () => {
      try {
        holdServingLock(path);
      } catch (error) {
        refused = error;
      }
      return 'vacuumed';
    });
    expect(done).toBe('vacuumed');
    expect(refused).toBeInstanceOf(StoreError);
    expect((refused as Error).message).toBe(
      `'agentdeck runs vacuum' is rewriting ${path}; start the server again when it is done`,
    );
    holdServingLock(path).release(); // free again once the vacuum is done
  });
});
