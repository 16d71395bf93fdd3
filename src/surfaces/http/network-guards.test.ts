/**
 * What keeps strangers out with no key or a wrong one (#36), over real sockets: bound beyond
 * loopback with no API keys, the routes beyond 1.2.1 that change state and the inspector's
 * controls are refused to other machines (a second address of this machine stands for one;
 * where it has none, that case is skipped), and wrong keys are limited per client address
 * (429 with `Retry-After`) while right keys pass.
 */
import { networkInterfaces } from 'node:os';
import { describe, expect, it } from 'vitest';
import { type Answer, call, whileServed } from '../../../test/support/raw-http.js';
import { MAX_FAILURES } from './key-guesses.js';

/** This machine's first address beyond loopback, or `null`. */
const LAN = (() => {
  for (const list of Object.values(networkInterfaces())) {
    for (const entry of list ?? []) {
      if (!entry.internal && entry.family === 'IPv4') return entry.address;
    }
  }
  return null;
})();

const mode = (page: Answer) => /name="agentdeck-ui-mode" content="([^"]+)"/.exec(page.body)?.[1];

describe('with no API keys, bound beyond loopback', () => {
  it.skipIf(LAN === null)(
    'other machines get the 1.2.1 routes, but not the control routes beyond them nor the inspector controls',
    async () => {
      const lan = LAN as string;
      await whileServed('0.0.0.0', {}, async (port) => {
        const tick = { method: 'POST', body: {} };
        const refused = await call(lan, port, '/timers/tick', tick);
        expect(refused.status).toBe(403);
        expect(JSON.parse(refused.body).detail).toContain('SERVICE_OPEN_CONTROL=true');
        expect(
          (await call(lan, port, '/runs/r-1/answer', { method: 'POST', body: { value: 1 } }))
            .status,
        ).toBe(403);
        expect(mode(await call(lan, port, '/ui'))).toBe('read-only');
        // The spec's routes stay open to the network.
        const started = await call(lan, port, '/workflows/approval', {
          method: 'POST',
          body: { amount: 5 },
        });
        expect(started.status).toBe(200);
        // This machine's own clients keep everything.
        expect((await call('127.0.0.1', port, '/timers/tick', tick)).status).toBe(200);
        expect(mode(await call('127.0.0.1', port, '/ui'))).toBe('on');
      });
      await whileServed('0.0.0.0', { openControl: true }, async (port) => {
        expect((await call(lan, port, '/timers/tick', { method: 'POST', body: {} })).status).toBe(
          200,
        );
        expect(mode(await call(lan, port, '/ui'))).toBe('on');
      });
    },
  );
});

describe('with no API keys, behind a proxy', () => {
  it('a request a proxy relays for another machine is refused the control routes, even over loopback', async () => {
    await whileServed('127.0.0.1', {}, async (port) => {
      const relayed = { 'x-forwarded-for': '203.0.113.9' };
      const tick = { method: 'POST', body: {} };
      expect(
        (await call('127.0.0.1', port, '/timers/tick', { ...tick, headers: relayed })).status,
      ).toBe(403);
      const forwarded = { forwarded: 'for=203.0.113.9;proto=https' };
      expect(mode(await call('127.0.0.1', port, '/ui', { headers: forwarded }))).toBe('read-only');
      expect((await call('127.0.0.1', port, '/timers/tick', tick)).status).toBe(200);
    });
  });
});

describe('wrong API keys', () => {
  it(`are limited per address: after ${MAX_FAILURES}, 429 with Retry-After; right keys never count`, async () => {
    await whileServed('0.0.0.0', { apiKeys: ['right-key'] }, async (port) => {
      const withKey = (key: string) => ({ headers: { authorization: `Bearer ${key}` } });
      for (let i = 0; i < 3 * MAX_FAILURES; i++) {
        expect((await call('127.0.0.1', port, '/runs', withKey('right-key'))).status).toBe(200);
      }
      for (let i = 0; i < MAX_FAILURES; i++) {
        expect((await call('127.0.0.1', port, '/runs', withKey(`guess-${i}`))).status).toBe(401);
      }
      const limited = await call('127.0.0.1', port, '/runs', withKey('guess-last'));
      expect(limited.status).toBe(429);
      const wait = Number(limited.headers['retry-after']);
      expect(wait).toBeGreaterThan(0);
      expect(wait).toBeLessThanOrEqual(60);
      expect(JSON.parse(limited.body).detail).toContain('too many wrong API keys');
      // Locked out: no key is compared from that address until the window ends.
      expect((await call('127.0.0.1', port, '/runs', withKey('right-key'))).status).toBe(429);
      // Another address is not.
      if (LAN !== null) {
        expect((await call(LAN, port, '/runs', withKey('right-key'))).status).toBe(200);
      }
    });
  });
});
