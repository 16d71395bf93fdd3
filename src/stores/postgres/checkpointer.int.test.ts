/**
 * The Postgres checkpointer's timer index (`agentdeck_wakeups`) against the local server, in a
 * database of this file's own: a sleeping thread is due at its time, and a deleted one is
 * neither due nor the next wake-up, with its checkpoints gone.
 */
import { randomUUID } from 'node:crypto';
import type { RunnableConfig } from '@langchain/core/runnables';
import { emptyCheckpoint, INTERRUPT, uuid6 } from '@langchain/langgraph-checkpoint';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { adminQuery, scratchDatabase } from '../../../test/support/postgres.js';
import { SLEEP_UNTIL_KEY, type WakeupIndex } from '../../core/wakeups.js';
import { openCheckpointer } from '../checkpoints-url.js';

const { name: database, url } = scratchDatabase();

beforeAll(() => adminQuery(`CREATE DATABASE ${database}`));
afterAll(() => adminQuery(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`));

const now = new Date('2030-01-01T00:00:00.000Z');
const minutes = (n: number) => new Date(now.getTime() + n * 60_000);
const meta = { source: 'loop' as const, step: 0, parents: {} };

it('forgets the timers of a deleted thread: no longer due, nor the next wake-up', async () => {
  const opened = await openCheckpointer(url.href, undefined);
  const saver = opened.saver as typeof opened.saver & WakeupIndex;
  try {
    /** A thread whose one task sleeps until `when`. */
    const sleeping = async (threadId: string, when: Date) => {
      const config: RunnableConfig = { configurable: { thread_id: threadId, checkpoint_ns: '' } };
      const saved = await saver.put(config, { ...emptyCheckpoint(), id: uuid6(-1) }, meta, {});
      const value = { [SLEEP_UNTIL_KEY]: when.toISOString() };
      await saver.putWrites(saved, [[INTERRUPT, [{ id: randomUUID(), value }]]], 'task');
    };
    await sleeping('wf:early', minutes(-2));
    await sleeping('wf:due', minutes(-1));
    await sleeping('wf:later', minutes(5));
    const due = async () => (await saver.dueWakeups(now)).map((w) => w.threadId);
    expect(await due()).toEqual(['wf:early', 'wf:due']);
    expect(await saver.nextWakeup()).toBe(minutes(-2).toISOString());

    await saver.deleteThread('wf:early');
    expect(await due()).toEqual(['wf:due']);
    expect(await saver.nextWakeup()).toBe(minutes(-1).toISOString());
    expect(await saver.getTuple({ configurable: { thread_id: 'wf:early' } })).toBeUndefined();
    await saver.deleteThread('wf:due');
    expect(await due()).toEqual([]);
    expect(await saver.nextWakeup()).toBe(minutes(5).toISOString());
    expect(await saver.getTuple({ configurable: { thread_id: 'wf:later' } })).toBeDefined();
  } finally {
    await opened.close();
  }
});
