/**
 * The issuer's keys over time, through a real server and a real issuer on 127.0.0.1: a new
 * `kid` picked up after the cooldown and the old one dropped with that refresh; unknown
 * `kid`s fetching at most once per cooldown; the issuer down (503 naming it, with
 * `Retry-After`, for a token whose key is not cached; cached keys still verifying, even past
 * their maximum age) and back; discovery failing before any key was fetched.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { testDeck } from '../../../../test/support/decks.js';
import { TestIssuer } from '../../../../test/support/token-issuer.js';
import { type RunningServer, serve } from '../serve.js';
import { REFUSAL_REASONS } from './refusals.js';

/** Short enough for a test, long enough that two requests in a row fall within it. */
const COOLDOWN_MS = 400;

let issuer: TestIssuer;
let server: RunningServer | null = null;

beforeEach(async () => {
  issuer = new TestIssuer();
  await issuer.start();
  for (const kid of ['k1', 'k2']) await issuer.addKey(kid);
  await issuer.addKey('k3', 'ES256');
  issuer.publish('k1');
});
afterEach(async () => {
  await server?.close();
  server = null;
  await issuer.stop();
});

async function served(maxAgeSeconds = 600): Promise<string> {
  const { deck } = testDeck();
  server = await serve(deck, {
    host: '127.0.0.1',
    port: 0,
    handleSignals: false,
    app: {
      tokens: {
        issuer: issuer.url,
        audience: ['api://deck'],
        jwksCooldownSeconds: COOLDOWN_MS / 1000,
        jwksMaxAgeSeconds: maxAgeSeconds,
      },
    },
  });
  return `http://127.0.0.1:${server.port}`;
}

async function status(base: string, kid: string): Promise<number> {
  const response = await fetch(`${base}/runs`, {
    headers: { authorization: `Bearer ${await issuer.sign(kid)}` },
  });
  await response.body?.cancel();
  return response.status;
}

describe('key rotation', () => {
  it('picks up a new kid after the cooldown, and drops the old one with that refresh', async () => {
    const base = await served();
    expect(await status(base, 'k1')).toBe(200);
    expect(issuer.jwksFetches).toBe(1);
    issuer.publish('k2');
    // Within the cooldown an unknown kid fetches nothing: made-up kids cannot hammer the issuer.
    for (let i = 0; i < 5; i += 1) expect(await status(base, 'k2')).toBe(401);
    expect(issuer.jwksFetches).toBe(1);
    await sleep(COOLDOWN_MS + 100);
    expect(await status(base, 'k2')).toBe(200);
    expect(issuer.jwksFetches).toBe(2);
    const old = await fetch(`${base}/runs`, {
      headers: { authorization: `Bearer ${await issuer.sign('k1')}` },
    });
    expect(old.status).toBe(401);
    expect(await old.json()).toEqual({ detail: REFUSAL_REASONS.unknown_key });
  });
});

describe('the issuer down', () => {
  it('answers 503 for a key not cached, keeps verifying cached keys past their age, and recovers', async () => {
    const base = await served(0.5);
    expect(await status(base, 'k1')).toBe(200);
    await issuer.stop();
    expect(await status(base, 'k1')).toBe(200);
    // Past the cooldown, an unknown kid makes the gate try the issuer, which does not answer.
    await sleep(COOLDOWN_MS + 100);
    const unknown = await fetch(`${base}/runs`, {
      headers: { authorization: `Bearer ${await issuer.sign('k3', {}, 'ES256')}` },
    });
    expect(unknown.status).toBe(503);
    expect(unknown.headers.get('retry-after')).toBe('30');
    expect(await unknown.json()).toEqual({
      detail: `${REFUSAL_REASONS.issuer_unavailable}: ${issuer.url} (unreachable)`,
    });
    await sleep(600); // past the keys' maximum age: a refetch is due, and fails
    expect(await status(base, 'k1')).toBe(200);
    expect(await status(base, 'k1')).toBe(200);

    await issuer.start();
    issuer.publish('k1', 'k3');
    await sleep(COOLDOWN_MS + 100);
    const back = await fetch(`${base}/runs`, {
      headers: { authorization: `Bearer ${await issuer.sign('k3', {}, 'ES256')}` },
    });
    expect(back.status).toBe(200);
    const metrics = await (
      await fetch(`${base}/metrics`, {
        headers: { authorization: `Bearer ${await issuer.sign('k1')}` },
      })
    ).text();
    expect(metrics).toContain('agentdeck_auth_refusals_total{reason="issuer_unavailable"} 1');
  });

  it('answers 503 while discovery fails before any key was fetched, then 200 once it answers', async () => {
    const base = await served();
    await issuer.stop();
    expect(await status(base, 'k1')).toBe(503);
    // A second try within the cooldown fails at once, without waiting on the issuer.
    const started = performance.now();
    expect(await status(base, 'k1')).toBe(503);
    expect(performance.now() - started).toBeLessThan(COOLDOWN_MS);
    await issuer.start();
    await sleep(COOLDOWN_MS + 100);
    expect(await status(base, 'k1')).toBe(200);
  });
});
