/**
 * Append notices (LISTEN/NOTIFY) between two Postgres event stores on one schema, as two
 * server processes have: a store learns at once of appends the other commits, to the runs it
 * watches and no others, and not across schemas; a live tail (`runEventFrames`) driven only
 * by notices sees each event of a run appended elsewhere.
 */
import { describe, expect, it } from 'vitest';
import { pgEvents, schemaStores } from '../../../test/support/postgres.js';
import { StoreError } from '../../core/errors.js';
import { runEventFrames } from '../../surfaces/http/run-events.js';

const { freshSchema, open } = schemaStores(2);
const { started } = pgEvents;
const { delta, completed } = pgEvents;

/** Resolves at the next call of the returned callback. */
function counter() {
  let count = 0;
  let waiters: (() => void)[] = [];
  return {
    get count() {
      return count;
    },
    hit: () => {
      count += 1;
      for (const waiter of waiters.splice(0)) waiter();
    },
    next: (ms = 5_000) =>
      new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no notice within ${ms} ms`)), ms);
        waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      }),
    reset: () => {
      waiters = [];
    },
  };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('Postgres append notices', () => {
  it('tells a watcher in another store of each commit to its run, and of no other run', async () => {
    const schema = freshSchema();
    const [writer, reader] = [open(schema), open(schema)];
    const mine = counter();
    const other = counter();
    const stop = await reader.watchRun('r1', mine.hit);
    await reader.watchRun('r2', other.hit);
    let next = mine.next();
    await writer.append([started('r1')]);
    await next;
    // Streamed deltas are written behind, gathered: a notice per written batch, not per token.
    next = mine.next();
    const before = mine.count;
    for (let i = 0; i < 50; i++) await writer.append([delta('r1', `t${i}`)]);
    await next;
    await writer.append([completed('r1')]);
    await sleep(100);
    expect(mine.count - before).toBeGreaterThanOrEqual(2);
    expect(mine.count - before).toBeLessThan(50);
    expect(other.count).toBe(0);
    stop();
    const after = mine.count;
    await writer.append([delta('r1', 'late')]);
    await writer.append([started('r3')]);
    await sleep(100);
    expect(mine.count).toBe(after);
  });

  it('does not wake watchers of another schema, and a store without notices says so', async () => {
    const [here, there] = [freshSchema(), freshSchema()];
    const watcher = open(there);
    const woken = counter();
    await watcher.watchRun('same-id', woken.hit);
    await open(here).append([started('same-id')]);
    await sleep(150);
    expect(woken.count).toBe(0);
    const quiet = open(here, { notify: false });
    await expect(quiet.watchRun('same-id', () => {})).rejects.toThrow(StoreError);
    const next = woken.next();
    await open(there, { notify: false }).append([started('x')]);
    await open(there).append([started('same-id')]);
    await next;
    expect(woken.count).toBe(1);
  });

  it('drives a live tail in another store by notices alone', async () => {
    const schema = freshSchema();
    const [writer, reader] = [open(schema), open(schema)];
    await writer.append([started('tail')]);
    const stop = new AbortController();
    // A tail reads nothing without a notice: every frame below came from one.
    const frames = runEventFrames(reader, 'tail', {
      afterSeq: -1,
      follow: true,
      signal: stop.signal,
    });
    const seen: string[] = [];
    const reading = (async () => {
      for await (const frame of frames) seen.push(frame);
    })();
    await sleep(100);
    for (let i = 0; i < 5; i++) {
      await writer.append([delta('tail', `tok${i}`)]);
      await sleep(20);
    }
    await writer.append([completed('tail')]);
    await Promise.race([reading, sleep(5_000)]);
    stop.abort();
    expect(seen.map((frame) => /^id: (\d+)/.exec(frame)?.[1])).toEqual([
      '0',
      '1',
      '2',
      '3',
      '4',
      '5',
      '6',
    ]);
    expect(seen.at(-1)).toContain('"kind":"run.completed"');
  });
});
