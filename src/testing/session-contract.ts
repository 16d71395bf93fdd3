/**
 * The conformance suite of the session port: what every SessionBackend must do, with the
 * semantics of the agent engine's own `MemorySession` (the latest `limit` items oldest
 * first, `popItem` removes the latest). A backend's test file is a few lines calling
 * {@link describeSessionContract}. Each case uses fresh random session ids, so backends that
 * share storage across `create()` calls (a Redis prefix, a file) need no cleanup between cases.
 */
import { randomUUID } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import type { SessionBackend, SessionItem } from '../core/sessions.js';

/** How {@link describeSessionContract} makes and disposes of backends. */
export interface SessionContractFactory {
  /** A new backend instance; two instances share storage unless `isolatedStorage` is set. */
  create(): Promise<SessionBackend> | SessionBackend;
  /** Disposes of a backend. @default `backend.close()` */
  destroy?(backend: SessionBackend): Promise<void> | void;
  /** Set when each `create()` has its own storage (in memory): the reason, shown on the skipped case. @default undefined */
  isolatedStorage?: string;
}

/**
 * Declares the session contract suite for one backend.
 *
 * @example
 * ```ts
 * describeSessionContract('SqliteSessionBackend (memory)', {
 *   create: () => new SqliteSessionBackend(),
 *   isolatedStorage: 'an in-memory database is private to its instance',
 * });
 * ```
 */
export function describeSessionContract(name: string, factory: SessionContractFactory): void {
  describe(`session contract: ${name}`, () => {
    const open: SessionBackend[] = [];
    const create = async (): Promise<SessionBackend> => {
      const backend = await factory.create();
      open.push(backend);
      return backend;
    };
    const newId = (): string => `contract-${randomUUID()}`;
    const msg = (n: number): SessionItem => ({ role: 'user', content: `message ${n}` });

    afterEach(async () => {
      for (const backend of open.splice(0)) {
        if (factory.destroy) await factory.destroy(backend);
        else await backend.close();
      }
    });

    it('starts empty', async () => {
      const session = (await create()).sessionFor(newId());
      expect(await session.getItems()).toEqual([]);
      expect(await session.getItems(3)).toEqual([]);
      expect(await session.popItem()).toBeUndefined();
    });

    it('returns the session id it was opened for', async () => {
      const id = newId();
      expect(await (await create()).sessionFor(id).getSessionId()).toBe(id);
    });

    it('returns added items oldest first, across calls', async () => {
      const session = (await create()).sessionFor(newId());
      await session.addItems([msg(1), msg(2)]);
      await session.addItems([]);
      await session.addItems([msg(3)]);
      expect(await session.getItems()).toEqual([msg(1), msg(2), msg(3)]);
    });

    it('getItems(limit) returns the latest items, oldest first', async () => {
      const session = (await create()).sessionFor(newId());
      await session.addItems([msg(1), msg(2), msg(3), msg(4)]);
      expect(await session.getItems(2)).toEqual([msg(3), msg(4)]);
      expect(await session.getItems(1)).toEqual([msg(4)]);
      expect(await session.getItems(10)).toEqual([msg(1), msg(2), msg(3), msg(4)]);
      expect(await session.getItems(0)).toEqual([]);
    });

    it('popItem returns the latest item and removes it', async () => {
      const session = (await create()).sessionFor(newId());
      await session.addItems([msg(1), msg(2)]);
      expect(await session.popItem()).toEqual(msg(2));
      expect(await session.getItems()).toEqual([msg(1)]);
      expect(await session.popItem()).toEqual(msg(1));
      expect(await session.popItem()).toBeUndefined();
      await session.addItems([msg(3)]);
      expect(await session.getItems()).toEqual([msg(3)]);
    });

    it('clearSession removes the history, and the session stays usable', async () => {
      const session = (await create()).sessionFor(newId());
      await session.addItems([msg(1), msg(2)]);
      await session.clearSession();
      expect(await session.getItems()).toEqual([]);
      await session.clearSession();
      await session.addItems([msg(3)]);
      expect(await session.getItems()).toEqual([msg(3)]);
    });

    it('keeps sessions apart by id', async () => {
      const backend = await create();
      const a = backend.sessionFor(newId());
      const b = backend.sessionFor(newId());
      await a.addItems([msg(1)]);
      await b.addItems([msg(2), msg(3)]);
      expect(await a.popItem()).toEqual(msg(1));
      await a.addItems([msg(4)]);
      await b.clearSession();
      expect(await a.getItems()).toEqual([msg(4)]);
      expect(await b.getItems()).toEqual([]);
    });

    it('two handles on the same id see one history', async () => {
      const backend = await create();
      const id = newId();
      await backend.sessionFor(id).addItems([msg(1)]);
      expect(await backend.sessionFor(id).getItems()).toEqual([msg(1)]);
    });

    it('round-trips items as JSON, nested values intact, as copies', async () => {
      const session = (await create()).sessionFor(newId());
      const item: SessionItem = {
        type: 'function_call',
        callId: 'call_1',
        arguments: '{"city":"Paris"}',
        content: [{ type: 'output_text', text: 'héllo 👋 "quoted"\n', annotations: [] }],
        providerData: { nested: { deep: [1, 2.5, -3, true, false, null, { k: 'v' }] } },
      };
      await session.addItems([item]);
      (item.providerData as { nested: unknown }).nested = 'mutated after add';
      const [stored] = await session.getItems();
      expect(stored).toEqual({
        ...item,
        providerData: { nested: { deep: [1, 2.5, -3, true, false, null, { k: 'v' }] } },
      });
      if (stored) stored.callId = 'mutated after read';
      expect((await session.getItems())[0]?.callId).toBe('call_1');
    });

    it('a new backend instance on the same storage sees the history', async (ctx) => {
      if (factory.isolatedStorage !== undefined) ctx.skip(factory.isolatedStorage);
      const id = newId();
      const first = await create();
      await first.sessionFor(id).addItems([msg(1), msg(2)]);
      const second = await create();
      expect(await second.sessionFor(id).getItems()).toEqual([msg(1), msg(2)]);
      expect(await second.sessionFor(id).popItem()).toEqual(msg(2));
      expect(await first.sessionFor(id).getItems()).toEqual([msg(1)]);
    });

    it('loses nothing to concurrent addItems calls, and keeps each call together', async () => {
      const backend = await create();
      const id = newId();
      const calls = Array.from({ length: 25 }, (_, call) => [
        { call, part: 0 },
        { call, part: 1 },
      ]);
      await Promise.all(calls.map((items) => backend.sessionFor(id).addItems(items)));
      const stored = await backend.sessionFor(id).getItems();
      expect(stored).toHaveLength(50);
      for (let i = 0; i < stored.length; i += 2) {
        expect(stored[i]?.part).toBe(0);
        expect(stored[i + 1]).toEqual({ call: stored[i]?.call, part: 1 });
      }
      expect(new Set(stored.map((item) => item.call)).size).toBe(25);
    });
  });
}
