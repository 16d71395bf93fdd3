import { afterEach, describe, expect, it, vi } from 'vitest';
import { openSessionBackend, sessionSettingsFromEnv } from '../sessions-url.js';
import { EVICT_EVERY_WRITES, SqliteSessionBackend } from './sessions.js';

const item = (content: string) => ({ role: 'user', content }) as const;

describe('the in-process session store is bounded', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('keeps at most maxSessions, dropping the ones written longest ago', async () => {
    const backend = new SqliteSessionBackend({ maxSessions: 10 });
    // Enough writes for the bound to be enforced more than once.
    for (let i = 0; i < EVICT_EVERY_WRITES * 2; i += 1) {
      await backend.sessionFor(`s${i}`).addItems([item(`hello ${i}`)]);
    }
    const kept: string[] = [];
    for (let i = 0; i < EVICT_EVERY_WRITES * 2; i += 1) {
      if ((await backend.sessionFor(`s${i}`).getItems()).length > 0) kept.push(`s${i}`);
    }
    // The newest ten survive every eviction; what came after the last one may add more.
    expect(kept.length).toBeGreaterThanOrEqual(10);
    expect(kept.length).toBeLessThan(EVICT_EVERY_WRITES);
    expect(kept.at(-1)).toBe(`s${EVICT_EVERY_WRITES * 2 - 1}`);
    expect(kept).not.toContain('s0');
    await backend.close();
  });

  it('expires a session ttlSeconds after its last write, and a write starts it afresh', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(new Date('2026-11-25T00:00:00Z'));
    const backend = new SqliteSessionBackend({ ttlSeconds: 60 });
    const session = backend.sessionFor('user-1');
    await session.addItems([item('first')]);
    vi.setSystemTime(new Date('2026-11-25T00:00:59Z'));
    expect(await session.getItems()).toHaveLength(1);
    vi.setSystemTime(new Date('2026-11-25T00:02:00Z'));
    expect(await session.getItems()).toEqual([]);
    expect(await session.popItem()).toBeUndefined();
    await session.addItems([item('again')]);
    expect(await session.getItems()).toEqual([item('again')]);
    await backend.close();
  });

  it('is bounded by default, and SERVICE_SESSION_TTL_SECONDS and SERVICE_SESSION_MAX reach it', async () => {
    const settings = sessionSettingsFromEnv({
      SERVICE_SESSION_TTL_SECONDS: '3600',
      SERVICE_SESSION_MAX: '5',
    });
    expect(settings).toEqual({ ttlSeconds: 3600, maxSessions: 5 });
    expect(() => sessionSettingsFromEnv({ SERVICE_SESSION_MAX: '0' })).toThrow(
      /SERVICE_SESSION_MAX must be a positive whole number/,
    );
    const { url, ...options } = settings;
    const backend = openSessionBackend(url, options);
    for (let i = 0; i < EVICT_EVERY_WRITES; i += 1) {
      await backend.sessionFor(`s${i}`).addItems([item('x')]);
    }
    let kept = 0;
    for (let i = 0; i < EVICT_EVERY_WRITES; i += 1) {
      if ((await backend.sessionFor(`s${i}`).getItems()).length > 0) kept += 1;
    }
    expect(kept).toBe(5);
    await backend.close();
    expect(() => new SqliteSessionBackend({ maxSessions: -1 })).toThrow(/maxSessions/);
  });
});
