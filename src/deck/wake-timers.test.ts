/**
 * `wakeTimers`: an open deck wakes its sleeping threads at their time with no `tick()` call,
 * on the SQLite timer index and on a checkpointer without one (memory: a scan); wakes at
 * open what fell due while no deck was open; and an embedded deck without the option stays
 * with `tick()`, as SPEC.md says.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { openTestDeck } from '../../test/support/decks.js';
import { reminder } from '../../test/support/workflows.js';
import { InterruptResult } from '../index.js';
import { MemoryEventStore } from '../stores/memory/index.js';

const sqliteFile = () =>
  `sqlite://${join(mkdtempSync(join(tmpdir(), 'agentdeck-wake-')), 'state.db')}`;
const inMs = (ms: number) => new Date(Date.now() + ms).toISOString();

describe.each([
  ['the SQLite timer index', sqliteFile],
  ['a checkpointer without an index (memory)', () => 'memory://'],
])('wakeTimers, on %s', (_name, checkpoints) => {
  it('wakes a sleeping thread at its time, with no tick() call', async () => {
    const opened = await openTestDeck({
      checkpoints: checkpoints(),
      workflows: [reminder()],
      wakeTimers: true,
    });
    const due = inMs(300);
    const paused = (await opened.deck.run(
      'reminder',
      { due },
      { sessionId: 's' },
    )) as InterruptResult;
    expect(paused).toBeInstanceOf(InterruptResult);
    expect(paused.payload).toEqual({
      type: 'agentdeck.timer',
      wake_at: new Date(due).toISOString(),
    });
    await vi.waitFor(
      async () => expect(await opened.deck.status(paused.runId as string)).toBe('completed'),
      { timeout: 3_000, interval: 20 },
    );
    const events = await opened.eventStore.read(paused.runId as string);
    const resumed = events.find((event) => event.kind === 'run.resumed');
    // Woken at its time: not before, and well within the second the index is read.
    expect(Date.parse(resumed?.ts ?? '')).toBeGreaterThanOrEqual(Date.parse(due));
    expect(Date.parse(resumed?.ts ?? '') - Date.parse(due)).toBeLessThan(1_000);
    expect(events.filter((event) => event.kind === 'run.resumed')).toHaveLength(1);
  });
});

describe('wakeTimers at open', () => {
  it('wakes what fell due while no deck was open; without the option, tick() stays the way', async () => {
    const checkpoints = sqliteFile();
    const eventStore = new MemoryEventStore(); // one log for both decks, as a file would be
    const first = await openTestDeck({ checkpoints, eventStore, workflows: [reminder()] });
    const paused = (await first.deck.run(
      'reminder',
      { due: inMs(50) },
      { sessionId: 'late' },
    )) as InterruptResult;
    await new Promise((done) => setTimeout(done, 300)); // due, and nobody wakes it
    expect(await first.deck.status(paused.runId as string)).toBe('paused');
    await first.deck.close();
    const { deck } = await openTestDeck({
      checkpoints,
      eventStore,
      workflows: [reminder()],
      wakeTimers: true,
    });
    await vi.waitFor(
      async () => expect(await deck.status(paused.runId as string)).toBe('completed'),
      { timeout: 3_000, interval: 20 },
    );
  });
});
