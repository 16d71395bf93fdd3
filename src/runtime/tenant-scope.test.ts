/**
 * One tenant's view of the event log (tenant-scope.ts), on the memory store: its own runs are
 * found, read, listed and followed; another tenant's read as unknown ones (`null`, `[]`, a
 * watch that never fires); no namespace is the whole log; a store that cannot list by
 * namespace is refused rather than filtered; a session id is another tenant's by its latest run.
 */
import { describe, expect, it } from 'vitest';
import { ConfigError, ConflictError } from '../core/errors.js';
import type { EventStore } from '../core/store.js';
import { MemoryEventStore } from '../stores/memory/index.js';
import { ev, run } from '../testing/event-store-events.js';
import { checkSessionTenant, scopedLog } from './tenant-scope.js';

async function twoTenants() {
  const store = new MemoryEventStore();
  const mine = run({ namespace: 'acme', sessionId: 'chat-1' });
  const theirs = run({ namespace: 'globex', sessionId: 'chat-2' });
  await store.append([ev.started(mine), ev.started(theirs)]);
  return { store, mine: mine.runId, theirs: theirs.runId };
}

describe("a tenant's view of the event log", () => {
  it("finds, reads, lists and follows its own runs, and no other tenant's", async () => {
    const { store, mine, theirs } = await twoTenants();
    const acme = scopedLog(store, 'acme');
    expect((await acme.getRun(mine))?.runId).toBe(mine);
    expect(await acme.getRun(theirs)).toBeNull();
    expect(await acme.read(mine)).toHaveLength(1);
    expect(await acme.read(theirs)).toEqual([]);
    expect((await acme.listRuns()).map((r) => r.runId)).toEqual([mine]);
    expect(await acme.listRunsIn?.('globex')).toEqual([]);
    const woken: string[] = [];
    const stopMine = await acme.watchRun?.(mine, () => woken.push('mine'));
    const stopTheirs = await acme.watchRun?.(theirs, () => woken.push('theirs'));
    await store.append([ev.completed(run({ namespace: 'acme' }))]); // another run: no wake
    await store.append([{ ...ev.delta({ ...run(), runId: theirs, namespace: 'globex' }, 'x') }]);
    await store.append([{ ...ev.delta({ ...run(), runId: mine, namespace: 'acme' }, 'y') }]);
    expect(woken).toEqual(['mine']);
    stopMine?.();
    stopTheirs?.();
    expect(scopedLog(store, null)).toBe(store);
    expect(scopedLog(store, undefined)).toBe(store);
  });

  it('refuses a store that cannot list by namespace, rather than filter a full listing', async () => {
    const { store } = await twoTenants();
    const { read, getRun, listRuns } = store;
    const plain = {
      read: read.bind(store),
      getRun: getRun.bind(store),
      listRuns: listRuns.bind(store),
    } as Pick<EventStore, 'read' | 'getRun' | 'listRuns'>;
    expect(() => scopedLog(plain, 'acme')).toThrow(ConfigError);
    expect(scopedLog(plain, undefined)).toBe(plain);
  });

  it("takes a session or thread id as another tenant's by its latest run", async () => {
    const { store } = await twoTenants();
    await expect(checkSessionTenant(store, 'chat-1', 'acme')).resolves.toBeUndefined();
    await expect(checkSessionTenant(store, 'chat-new', 'globex')).resolves.toBeUndefined();
    await expect(checkSessionTenant(store, 'chat-1', undefined)).resolves.toBeUndefined();
    await expect(checkSessionTenant(store, 'chat-1', 'globex')).rejects.toThrow(ConflictError);
  });
});
