/** The timing proxy: stores behind it behave as before, and each promise-returning call is reported once. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { hasRunBoundaries, isAppendNotifier, isPingable } from '../../core/store.js';
import { MemoryEventStore } from '../../stores/memory/index.js';
import { SqliteEventStore } from '../../stores/sqlite/events.js';
import { timeOperations } from './instrument.js';

interface Report {
  operation: string;
  seconds: number;
  failed: boolean;
  value: unknown;
}

function reporting<T extends object>(target: T) {
  const reports: Report[] = [];
  const proxy = timeOperations(target, (operation, seconds, failed, value) => {
    reports.push({ operation, seconds, failed, value });
  });
  return { proxy, reports };
}

/** Keeps its state where a proxy cannot reach it, as the stores do. */
class Private {
  #count = 0;
  get count(): number {
    return this.#count;
  }
  set count(value: number) {
    this.#count = value;
  }
  async bump(by: number): Promise<number> {
    this.#count += by;
    return this.#count;
  }
  async fail(): Promise<void> {
    throw new Error(`failed at ${this.#count}`);
  }
  peek(): number {
    return this.#count;
  }
}

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe('timeOperations', () => {
  it('runs methods, getters and setters on the target, so #private fields work', async () => {
    const { proxy, reports } = reporting(new Private());
    expect(await proxy.bump(2)).toBe(2);
    proxy.count = 5;
    expect(proxy.count).toBe(5);
    expect(proxy.peek()).toBe(5);
    expect(proxy).toBeInstanceOf(Private);
    expect(proxy.bump).toBe(proxy.bump); // one wrapper per method
    expect(reports).toEqual([
      { operation: 'bump', seconds: expect.any(Number), failed: false, value: 2 },
    ]); // peek() returned no promise: not an operation
  });

  it('reports a rejected call as failed and hands the caller the same rejection', async () => {
    const { proxy, reports } = reporting(new Private());
    await expect(proxy.fail()).rejects.toThrow('failed at 0');
    await Promise.resolve();
    expect(reports).toEqual([
      { operation: 'fail', seconds: expect.any(Number), failed: true, value: undefined },
    ]);
  });

  it('never lets a failing report reach the caller', async () => {
    const proxy = timeOperations(new Private(), () => {
      throw new Error('metric bug');
    });
    expect(await proxy.bump(1)).toBe(1);
    await expect(proxy.fail()).rejects.toThrow('failed at 1');
  });

  it('keeps the ability guards and instanceof of the stores working', async () => {
    const { proxy, reports } = reporting(new MemoryEventStore());
    expect(hasRunBoundaries(proxy)).toBe(true);
    expect(isAppendNotifier(proxy)).toBe(true);
    expect(isPingable(proxy)).toBe(false); // an ability the memory store lacks
    expect(proxy).toBeInstanceOf(MemoryEventStore);
    const [stored] = await proxy.append([
      {
        kind: 'custom',
        runId: 'r-1',
        sessionId: null,
        namespace: null,
        origin: 'A',
        payload: { data: 1 },
      },
    ]);
    expect(stored?.seq).toBe(0);
    expect(reports.map((r) => r.operation)).toEqual(['append']);
    expect(reports[0]?.value).toEqual([stored]);
    await proxy.close();
  });

  it('reads an SQLite store getters through the proxy (checkpoints-url.ts shares its connection)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'agentdeck-instrument-'));
    dirs.push(dir);
    const store = new SqliteEventStore({ path: join(dir, 'state.db') });
    const { proxy } = reporting(store);
    expect(proxy instanceof SqliteEventStore).toBe(true);
    expect(proxy.path).toBe(store.path);
    expect(proxy.connection).toBe(store.connection);
    expect(await proxy.getRun('nope')).toBeNull();
    await proxy.close();
  });
});
