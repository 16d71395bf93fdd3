/**
 * DNS rebinding (#36), over real sockets: a request whose `Host` names a host the server does
 * not answer to is a 403, whatever its `Origin` and `Sec-Fetch-Site` say; loopback names, IP
 * addresses and the names `SERVICE_ALLOWED_HOSTS` (or `allowedHosts`) lists are answered.
 */
import { describe, expect, it, vi } from 'vitest';
import { call, whileServed } from '../../../test/support/raw-http.js';

describe('DNS rebinding', () => {
  it('bound to loopback, a request for another host name is refused; loopback names and addresses are answered', async () => {
    await whileServed('127.0.0.1', {}, async (port) => {
      const rebound = {
        host: `rebound.attacker.example:${port}`,
        origin: `http://rebound.attacker.example:${port}`,
        'sec-fetch-site': 'same-origin',
      };
      for (const [method, path, body] of [
        ['GET', '/runs', undefined],
        ['GET', '/health', undefined],
        ['POST', '/workflows/approval', { amount: 5 }],
      ] as const) {
        const refused = await call('127.0.0.1', port, path, { method, headers: rebound, body });
        expect({ path, status: refused.status }).toEqual({ path, status: 403 });
        expect(JSON.parse(refused.body).detail).toContain('SERVICE_ALLOWED_HOSTS');
      }
      for (const host of [`127.0.0.1:${port}`, `localhost:${port}`, `LocalHost:${port}`]) {
        const answered = await call('127.0.0.1', port, '/runs', { headers: { host } });
        expect({ host, status: answered.status }).toEqual({ host, status: 200 });
      }
    });
  });

  it('answers the names SERVICE_ALLOWED_HOSTS (or allowedHosts) lists, and no others', async () => {
    vi.stubEnv('SERVICE_ALLOWED_HOSTS', '.example.com');
    await whileServed('127.0.0.1', {}, async (port) => {
      const status = async (host: string) =>
        (await call('127.0.0.1', port, '/runs', { headers: { host } })).status;
      expect(await status('deck.example.com')).toBe(200);
      expect(await status(`example.com:${port}`)).toBe(200);
      expect(await status('example.com.attacker.test')).toBe(403);
    });
    vi.unstubAllEnvs();
    await whileServed('0.0.0.0', { allowedHosts: ['deck.internal'] }, async (port) => {
      expect(
        (await call('127.0.0.1', port, '/runs', { headers: { host: 'deck.internal' } })).status,
      ).toBe(200);
      expect(
        (await call('127.0.0.1', port, '/runs', { headers: { host: 'other.test' } })).status,
      ).toBe(403);
    });
  });
});
