/** One observer's bounded queue: ordered, asynchronous delivery; overflow, failure, retry and close. */
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import type { Event } from '../core/events.js';
import type { Observer } from './observer.js';
import { ObserverQueue } from './queue.js';

function event(seq: number): Event {
  return {
    v: 3,
    kind: 'custom',
    seq,
    runId: 'run-1',
    sessionId: null,
    namespace: null,
    origin: 'test',
    ts: new Date().toISOString(),
    payload: { data: seq },
  };
}

function recording(emit: (e: Event) => void | Promise<void> = () => {}) {
  const seen: number[] = [];
  const observer: Observer = {
    name: 'recording',
    emit(e) {
      seen.push(e.seq);
      return emit(e);
    },
  };
  return { seen, observer };
}

async function until(check: () => boolean, ms = 2_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await sleep(2);
  }
}

describe('ObserverQueue', () => {
  it('delivers every event in order, after push has returned', async () => {
    const { seen, observer } = recording();
    const queue = new ObserverQueue(observer);
    for (let i = 0; i < 1_000; i += 1) queue.push(event(i));
    expect(seen).toEqual([]);
    await until(() => seen.length === 1_000);
    expect(seen).toEqual([...Array(1_000).keys()]);
  });

  it('awaits a slow emit before the next event, so only its own backlog grows', async () => {
    let release: () => void = () => {};
    const { seen, observer } = recording(() => new Promise<void>((r) => (release = r)));
    const queue = new ObserverQueue(observer);
    queue.push(event(0));
    queue.push(event(1));
    await until(() => seen.length === 1);
    await sleep(20);
    expect(seen).toEqual([0]);
    expect(queue.backlog).toBe(1);
    release();
    await until(() => seen.length === 2);
  });

  it('drops new events past its capacity, logs once, and logs the count when it catches up', async () => {
    const lines: string[] = [];
    let release: () => void = () => {};
    const gate = new Promise<void>((r) => (release = r));
    const { seen, observer } = recording((e) => (e.seq === 0 ? gate : undefined));
    const queue = new ObserverQueue(observer, { capacity: 3, log: (l) => lines.push(l) });
    queue.push(event(0));
    await until(() => seen.length === 1);
    for (let i = 1; i <= 6; i += 1) queue.push(event(i));
    expect(queue.backlog).toBe(3);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/observer 'recording' is 3 events behind; dropping/);
    release();
    await until(() => lines.length === 2);
    expect(seen).toEqual([0, 1, 2, 3]);
    expect(lines[1]).toMatch(/caught up; 3 events were dropped/);
    expect(queue.droppedTotal).toBe(3); // kept for the metrics after the log's count resets
  });

  it('disables an observer that keeps failing, then retries it; each logged once', async () => {
    const lines: string[] = [];
    let failing = true;
    const { seen, observer } = recording(() => {
      if (failing) throw new Error('collector down');
    });
    const queue = new ObserverQueue(observer, {
      failureLimit: 3,
      retryAfterMs: 50,
      log: (l) => lines.push(l),
    });
    for (let i = 0; i < 5; i += 1) queue.push(event(i));
    await until(() => queue.disabled);
    expect(seen).toEqual([0, 1, 2]); // the rest of the backlog was dropped with it
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatch(/failed on custom: collector down/);
    expect(lines[1]).toMatch(
      /failed 3 times in a row \(last: collector down\); disabled.*retrying/,
    );
    expect(queue.droppedTotal).toBe(2); // events 3 and 4, with the backlog
    queue.push(event(5)); // dropped while disabled
    expect(queue.droppedTotal).toBe(3);
    failing = false;
    await until(() => !queue.disabled);
    expect(lines[2]).toMatch(/re-enabled/);
    queue.push(event(6));
    await until(() => seen.length === 4);
    expect(seen).toEqual([0, 1, 2, 6]);
    expect(lines).toHaveLength(3);
  });

  it('counts a rejected promise as a failure, and a success resets the count', async () => {
    const lines: string[] = [];
    const { seen, observer } = recording((e) =>
      e.seq % 2 === 0 ? Promise.reject(new Error('odd failure')) : undefined,
    );
    const queue = new ObserverQueue(observer, { failureLimit: 2, log: (l) => lines.push(l) });
    for (let i = 0; i < 10; i += 1) queue.push(event(i));
    await until(() => seen.length === 10);
    expect(queue.disabled).toBe(false);
    expect(lines).toHaveLength(1); // the first failure only
  });

  it('closes after delivering the backlog, then calls the observer close()', async () => {
    const order: string[] = [];
    const queue = new ObserverQueue({
      emit: async (e) => {
        await sleep(1);
        order.push(`emit ${e.seq}`);
      },
      close: () => {
        order.push('close');
      },
    });
    for (let i = 0; i < 3; i += 1) queue.push(event(i));
    await queue.close();
    expect(order).toEqual(['emit 0', 'emit 1', 'emit 2', 'close']);
    queue.push(event(3));
    await sleep(10);
    expect(order).toHaveLength(4);
  });

  it('bounds close() by its timeout when an observer never catches up, and never throws', async () => {
    const lines: string[] = [];
    const queue = new ObserverQueue(
      {
        name: 'stuck',
        emit: () => new Promise<void>(() => {}),
        close: () => Promise.reject(new Error('flush failed')),
      },
      { closeTimeoutMs: 30, log: (l) => lines.push(l) },
    );
    queue.push(event(0));
    queue.push(event(1));
    const started = Date.now();
    await queue.close();
    expect(Date.now() - started).toBeLessThan(1_000);
    expect(lines).toEqual([
      "[agentdeck] observer 'stuck' did not catch up before close; 1 events not delivered",
      "[agentdeck] observer 'stuck' close() failed: flush failed",
    ]);
  });
});
