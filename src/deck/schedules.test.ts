/**
 * Schedules in one process: refused at construction or `build()` when wrong (naming the
 * schedule); firing at their times in a deck opened with `wakeTimers`, one run per fire time,
 * whose `run.started` names the schedule and fire time; skipping a fire while the last run is
 * still going (or not, with `overlap: 'allow'`); catching up after downtime; a pause kept in
 * the store across decks; a trigger. Several processes: test/schedules-processes.int.test.ts.
 */
import { END, START, StateGraph } from '@langchain/langgraph';
import { describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import { openTestDeck, testDeck } from '../../test/support/decks.js';
import { ConfigError, interrupt, Schedule, Workflow } from '../index.js';
import { MemoryEventStore } from '../stores/memory/index.js';

const Note = z.object({ note: z.string().optional(), done: z.boolean().optional() });

/** A workflow that finishes at once, or (`waits`) stops for an answer. */
function jot(waits = false) {
  return new Workflow({
    name: 'jot',
    state: Note,
    graph: (state) =>
      new StateGraph(state)
        .addNode('write', () => (waits ? { note: interrupt<string>('ok?') } : { done: true }))
        .addEdge(START, 'write')
        .addEdge('write', END),
  });
}

async function scheduledRuns(store: MemoryEventStore) {
  const runs = await store.listRuns({ origin: 'jot', limit: 1000 });
  const started = await Promise.all(runs.map(async (run) => (await store.read(run.runId))[0]));
  return started
    .map((event) => ({
      runId: event?.runId ?? '',
      ...(event?.payload as { schedule?: string; firedAt?: string }),
    }))
    .sort((a, b) => (a.firedAt ?? '').localeCompare(b.firedAt ?? ''));
}

const sleep = (ms: number) => new Promise((done) => setTimeout(done, ms));

describe('a schedule that is wrong', () => {
  it('is refused when constructed, naming it and what to write', () => {
    expect(() => new Schedule({ name: 'a', target: 'jot', cron: '61 * * * *' })).toThrow(
      /schedule 'a': cron expression '61 \* \* \* \*' is not valid/,
    );
    expect(
      () => new Schedule({ name: 'b', target: 'jot', cron: '* * * * *', timezone: 'Mars/Olympus' }),
    ).toThrow("schedule 'b': 'Mars/Olympus' is not an IANA time zone");
    expect(() => new Schedule({ name: 'c', target: 'jot', every: '5 minutes' })).toThrow(
      /`every` must be at least one second/,
    );
    expect(() => new Schedule({ name: 'd', target: 'jot' })).toThrow(
      'exactly one of `cron` and `every`',
    );
    expect(() => new Schedule({ name: 'bad name!', target: 'jot', every: 5 })).toThrow(ConfigError);
  });

  it('is refused at build when its target is not in the deck, or takes other input', async () => {
    const unknown = testDeck({
      workflows: [jot()],
      schedules: [new Schedule({ name: 'x', target: 'nope', every: 60 })],
    });
    expect(() => unknown.deck.build()).toThrow(
      "schedule 'x' targets 'nope', which is no workflow or agent of this deck. Available: ['jot'].",
    );
    await unknown.deck.close(); // one deck per process
    const wrongInput = testDeck({
      workflows: [jot()],
      schedules: [new Schedule({ name: 'y', target: 'jot', every: 60, input: 'hello' })],
    });
    expect(() => wrongInput.deck.build()).toThrow(
      "schedule 'y': workflow 'jot' takes an initial state object",
    );
    await wrongInput.deck.close();
    const twice = () =>
      testDeck({
        schedules: [
          new Schedule({ name: 'z', target: 'jot', every: 60 }),
          new Schedule({ name: 'z', target: 'jot', every: 9 }),
        ],
      });
    expect(twice).toThrow("two schedules are named 'z'");
  });
});

describe('a schedule in a deck opened with wakeTimers', () => {
  it('starts one run per fire time, naming the schedule and fire time on run.started', async () => {
    const eventStore = new MemoryEventStore();
    const every = new Schedule({ name: 'each-second', target: 'jot', every: '1s' });
    await openTestDeck({ eventStore, workflows: [jot()], schedules: [every], wakeTimers: true });
    await vi.waitFor(
      async () => expect((await scheduledRuns(eventStore)).length).toBeGreaterThanOrEqual(2),
      {
        timeout: 4_000,
        interval: 50,
      },
    );
    const runs = await scheduledRuns(eventStore);
    for (const run of runs) {
      expect(run.schedule).toBe('each-second');
      expect(Date.parse(run.firedAt ?? '') % 1000).toBe(0); // every: multiples of the interval
      expect(run.runId).toBe(`schedule-each-second-${(run.firedAt ?? '').replace(/[-:.]/g, '')}`);
    }
    expect(new Set(runs.map((run) => run.firedAt)).size).toBe(runs.length);
  });

  it("skips a fire while its last run is still going, unless overlap is 'allow'", async () => {
    const skipStore = new MemoryEventStore();
    const skip = new Schedule({ name: 'ask', target: 'jot', every: '1s' });
    const first = await openTestDeck({
      eventStore: skipStore,
      workflows: [jot(true)],
      schedules: [skip],
      wakeTimers: true,
    });
    await sleep(2_600);
    expect(await scheduledRuns(skipStore)).toHaveLength(1); // still waiting for its answer
    const [status] = await first.deck.listSchedules();
    expect(status).toMatchObject({ name: 'ask', paused: false, lastRunStatus: 'waiting_human' });
    expect(Date.parse(status?.lastFire ?? '')).toBeGreaterThan(
      Date.parse((await scheduledRuns(skipStore))[0]?.firedAt ?? ''),
    );
    await first.deck.close();

    const allowStore = new MemoryEventStore();
    const allow = new Schedule({ name: 'ask', target: 'jot', every: '1s', overlap: 'allow' });
    await openTestDeck({
      eventStore: allowStore,
      workflows: [jot(true)],
      schedules: [allow],
      wakeTimers: true,
    });
    await vi.waitFor(
      async () => expect((await scheduledRuns(allowStore)).length).toBeGreaterThanOrEqual(2),
      {
        timeout: 4_000,
        interval: 50,
      },
    );
  });

  it('catches up on the fires missed while no deck was open', async () => {
    const eventStore = new MemoryEventStore();
    const options = {
      name: 'catch',
      target: 'jot',
      every: '1s',
      catchUp: 'all' as const,
      maxCatchUp: 10,
    };
    const first = await openTestDeck({
      eventStore,
      workflows: [jot()],
      schedules: [new Schedule(options)],
      wakeTimers: true,
    });
    await vi.waitFor(
      async () => expect((await scheduledRuns(eventStore)).length).toBeGreaterThanOrEqual(1),
      {
        timeout: 3_000,
        interval: 20,
      },
    );
    await first.deck.close();
    await sleep(2_300); // two or three fires pass with nobody up
    await openTestDeck({
      eventStore,
      workflows: [jot()],
      schedules: [new Schedule(options)],
      wakeTimers: true,
    });
    await sleep(300);
    const fired = (await scheduledRuns(eventStore)).map((run) => Date.parse(run.firedAt ?? ''));
    // Every second from the first fire to the last has its run: none missed, none twice.
    expect(fired.length).toBeGreaterThanOrEqual(3);
    expect(fired).toEqual(fired.map((_, i) => (fired[0] ?? 0) + i * 1000));
  });

  it('stays paused across decks on one store until resumed; a trigger starts a run all the same', async () => {
    const eventStore = new MemoryEventStore();
    const hourly = () =>
      new Schedule({ name: 'hourly', target: 'jot', cron: '0 * * * *', timezone: 'Europe/Paris' });
    const first = await openTestDeck({ eventStore, workflows: [jot()], schedules: [hourly()] });
    await first.deck.scheduleHandle('hourly').pause();
    await first.deck.close();
    const { deck } = await openTestDeck({ eventStore, workflows: [jot()], schedules: [hourly()] });
    const handle = deck.scheduleHandle('hourly');
    expect(await handle.describe()).toMatchObject({
      paused: true,
      recurrence: '0 * * * *',
      timezone: 'Europe/Paris',
    });
    const outcome = await handle.trigger();
    expect(outcome).toEqual({ started: expect.stringMatching(/^schedule-hourly-/) });
    await handle.resume();
    expect((await handle.describe()).paused).toBe(false);
    expect(() => deck.scheduleHandle('nope')).toThrow(
      "No schedule named 'nope'. Available: ['hourly'].",
    );
  });
});

describe("overlap 'enqueue' and 'interrupt' (#40's multitask for schedules)", () => {
  async function waitingFirst(overlap: 'enqueue' | 'interrupt') {
    const eventStore = new MemoryEventStore();
    const schedule = new Schedule({ name: 'ask', target: 'jot', cron: '0 0 1 1 *', overlap });
    const { deck } = await openTestDeck({
      eventStore,
      workflows: [jot(true)],
      schedules: [schedule],
    });
    const first = await deck.scheduleHandle('ask').trigger();
    if (!('started' in first)) throw new Error('the first trigger did not start');
    await vi.waitFor(async () => expect(await deck.status(first.started)).toBe('waiting_human'), {
      timeout: 2_000,
      interval: 10,
    }); // the next fire's id (its time, to the millisecond) differs
    return { deck, firstRun: first.started };
  }

  it("'interrupt' cancels the previous run, then starts the fire", async () => {
    const { deck, firstRun } = await waitingFirst('interrupt');
    const second = await deck.scheduleHandle('ask').trigger();
    expect(second).toMatchObject({ started: expect.stringMatching(/^schedule-ask-/) });
    expect(await deck.status(firstRun)).toBe('cancelled');
  });

  it("'enqueue' waits for the previous run to end, then starts the fire", async () => {
    const { deck, firstRun } = await waitingFirst('enqueue');
    const second = deck.scheduleHandle('ask').trigger();
    let settled = false;
    void second.finally(() => {
      settled = true;
    });
    await sleep(100);
    expect(settled).toBe(false); // still waiting for the first run
    await deck.answer(firstRun, 'yes');
    expect(await second).toMatchObject({ started: expect.stringMatching(/^schedule-ask-/) });
    expect(await deck.status(firstRun)).toBe('completed');
  });

  it('accepts the four overlap policies and refuses another', () => {
    for (const overlap of ['skip', 'allow', 'enqueue', 'interrupt'] as const) {
      expect(new Schedule({ name: 'x', target: 'jot', every: '1m', overlap }).overlap).toBe(
        overlap,
      );
    }
    const bad = { name: 'x', target: 'jot', every: '1m', overlap: 'rollback' as 'skip' };
    expect(() => new Schedule(bad)).toThrow(ConfigError);
  });
});
