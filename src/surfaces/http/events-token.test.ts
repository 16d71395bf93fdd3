/**
 * The events token (events-token.ts): what it grants (one run's events, the issuer's tenant
 * and user, `read` alone) and its limits: another run, an expired, tampered or malformed
 * token are refused; through the app, the token opens `GET /runs/{run_id}/events` without a
 * key and nothing else, and the key-holder's credentials never appear in the URL it gives.
 */
import { describe, expect, it } from 'vitest';
import { openTestDeck } from '../../../test/support/decks.js';
import { postJson } from '../../../test/support/http.js';
import { threeSteps } from '../../../test/support/workflows.js';
import type { Identity } from '../../core/identity.js';
import { EVENTS_TOKEN_SECONDS, EventsTokens } from './events-token.js';

const SECRET = 'a-secret-of-at-least-thirty-two-characters';
const ACME: Identity = { tenant: 'acme', user: 'ada', roles: new Set(['read', 'run']), via: 'key' };

describe('EventsTokens', () => {
  it('grants read on its run only, as its tenant and user, until it expires', () => {
    let now = Date.parse('2026-01-01T00:00:00Z');
    const tokens = new EventsTokens(SECRET, () => now);
    const { token, expiresAt } = tokens.issue('run-1', ACME);
    expect(expiresAt).toBe('2026-01-01T00:05:00.000Z');
    const granted = tokens.verify(token, 'run-1');
    expect(granted).toMatchObject({ tenant: 'acme', user: 'ada', via: 'token' });
    expect([...(granted as Identity).roles]).toEqual(['read']);
    expect(tokens.verify(token, 'run-2')).toBe('another run');
    now += EVENTS_TOKEN_SECONDS * 1000;
    expect(tokens.verify(token, 'run-1')).toBe('expired');
  });

  it('refuses a tampered, foreign, malformed or huge token', () => {
    const tokens = new EventsTokens(SECRET);
    const { token } = tokens.issue('run-1', ACME);
    const [body = '', mac = ''] = token.split('.');
    const forged = Buffer.from(JSON.stringify({ r: 'run-1', t: 'globex', u: null, e: 9e9 }));
    expect(tokens.verify(`${forged.toString('base64url')}.${mac}`, 'run-1')).toBe('bad signature');
    expect(tokens.verify(`${body}.${mac.slice(0, -2)}`, 'run-1')).toBe('bad signature');
    const other = new EventsTokens(`${SECRET}-other`).issue('run-1', ACME).token;
    expect(tokens.verify(other, 'run-1')).toBe('bad signature');
    expect(new EventsTokens().verify(token, 'run-1')).toBe('bad signature');
    expect(tokens.verify('not-a-token', 'run-1')).toBe('malformed');
    expect(tokens.verify(`${token}.extra`, 'run-1')).toBe('malformed');
    expect(tokens.verify('x'.repeat(5000), 'run-1')).toBe('malformed');
    expect(() => new EventsTokens('short')).toThrow(/at least 32 characters/);
  });
});

describe('POST /runs/{run_id}/events-token', () => {
  it("opens that run's events without a key, and nothing else", async () => {
    const { deck } = await openTestDeck({ workflows: [threeSteps()] });
    const app = deck.app({ apiKeys: [{ key: 'reader', roles: ['read'] }, 'admin'] });
    const started = await app.request(
      '/workflows/three-steps',
      postJson({ n: 1 }, { authorization: 'Bearer admin' }),
    );
    const runId = started.headers.get('x-run-id') ?? '';
    const other = await app.request(
      '/workflows/three-steps',
      postJson({ n: 2 }, { authorization: 'Bearer admin' }),
    );
    const otherId = other.headers.get('x-run-id') ?? '';
    const issued = await app.request(
      `/runs/${runId}/events-token`,
      postJson({}, { authorization: 'Bearer reader' }),
    );
    expect(issued.status).toBe(200);
    const { token, events_url } = (await issued.json()) as { token: string; events_url: string };
    expect(events_url).toBe(`/runs/${runId}/events?access_token=${encodeURIComponent(token)}`);
    expect(events_url).not.toContain('reader');

    const events = await app.request(`${events_url}&follow=false`);
    expect(events.status).toBe(200);
    expect(await events.text()).toContain('"kind":"run.completed"');
    const q = `access_token=${encodeURIComponent(token)}`;
    for (const [path, reason] of [
      [`/runs/${otherId}/events?${q}`, 'another run'],
      [`/runs/${runId}/events?access_token=${token.slice(0, -3)}`, 'bad signature'],
    ] as const) {
      const refused = await app.request(path);
      expect(refused.status, path).toBe(401);
      expect(await refused.json()).toEqual({ detail: `the events token was refused: ${reason}` });
    }
    // On any other route the parameter is nothing: the gate wants a key.
    expect((await app.request(`/runs/${runId}?${q}`)).status).toBe(401);
    expect((await app.request(`/runs?${q}`)).status).toBe(401);
    const missing = await app.request(
      '/runs/no-such-run/events-token',
      postJson({}, { authorization: 'Bearer reader' }),
    );
    expect(missing.status).toBe(404);
  });
});
