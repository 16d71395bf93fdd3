/**
 * The gate with API keys and the app's `authenticate`, in process: keys mapped to tenants and
 * roles (environment, file, option), the identity each request reaches the context factory
 * with (a chunked body included, whose request object the body limit replaces), refusals
 * (body, challenge, metric by reason), which refusals count as key guesses when tokens are on
 * too, and a malformed configuration refused at start.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SignJWT } from 'jose';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { openTestDeck } from '../../../../test/support/decks.js';
import { postJson } from '../../../../test/support/http.js';
import { threeSteps } from '../../../../test/support/workflows.js';
import { ConfigError } from '../../../core/errors.js';
import type { Identity } from '../../../core/identity.js';
import { MAX_FAILURES } from '../key-guesses.js';
import { parseApiKeys } from './api-keys.js';

afterEach(() => {
  vi.unstubAllEnvs();
});

/** A deck whose context factory records the identity of each run it starts. */
async function recordingDeck() {
  const seen: Identity[] = [];
  const { deck } = await openTestDeck({ workflows: [threeSteps()] });
  const context = (_request: Request, identity: Identity) => {
    seen.push(identity);
    return null;
  };
  return { deck, seen, context };
}

const start = (
  app: { request: (p: string, i: RequestInit) => Promise<Response> | Response },
  key?: string,
) =>
  app.request(
    '/workflows/three-steps',
    postJson({ n: 0 }, key ? { authorization: `Bearer ${key}` } : {}),
  );

const plain = (identity: Identity | undefined) =>
  identity && {
    tenant: identity.tenant,
    user: identity.user,
    roles: [...identity.roles].sort(),
    via: identity.via,
  };

describe('API keys with tenants and roles', () => {
  it('maps SERVICE_API_KEYS and SERVICE_API_KEYS_FILE entries to the identity the context factory gets', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'agentdeck-keys-')), 'keys.json');
    writeFileSync(
      file,
      JSON.stringify([{ key: 'k=with=equals', tenant: 'globex', roles: ['read'], user: 'ci' }]),
    );
    vi.stubEnv('SERVICE_API_KEYS', 'plain-key, base64ish==, acme-key=acme:read+run, all-key=:*');
    vi.stubEnv('SERVICE_API_KEYS_FILE', file);
    const { deck, seen, context } = await recordingDeck();
    const app = deck.app({ context });
    for (const key of ['plain-key', 'base64ish==', 'acme-key', 'all-key', 'k=with=equals']) {
      expect((await start(app, key)).status).toBe(200);
    }
    const every = ['admin', 'answer', 'control', 'read', 'run'];
    expect(seen.map(plain)).toEqual([
      { tenant: null, user: null, roles: every, via: 'key' },
      { tenant: null, user: null, roles: every, via: 'key' },
      { tenant: 'acme', user: null, roles: ['read', 'run'], via: 'key' },
      { tenant: null, user: null, roles: every, via: 'key' },
      { tenant: 'globex', user: 'ci', roles: ['read'], via: 'key' },
    ]);
  });

  it('takes key objects in deck.app({ apiKeys }) and keeps the identity on a chunked body', async () => {
    const { deck, seen, context } = await recordingDeck();
    const app = deck.app({
      context,
      apiKeys: ['plain', { key: 'sk-acme', tenant: 'acme', roles: ['run'], user: 'bot' }],
    });
    const chunked = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(new TextEncoder().encode('{"n": 0}'));
        controller.close();
      },
    });
    const response = await app.request('/workflows/three-steps', {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: 'Bearer sk-acme' },
      body: chunked,
      duplex: 'half',
    } as RequestInit);
    expect(response.status).toBe(200);
    expect(seen.map(plain)).toEqual([{ tenant: 'acme', user: 'bot', roles: ['run'], via: 'key' }]);
  });

  it('refuses a wrong key with the body it always had, a challenge naming the error, and a count by reason', async () => {
    const { deck } = await openTestDeck({ workflows: [threeSteps()] });
    const app = deck.app({ apiKeys: ['right'] });
    const missing = await app.request('/runs');
    expect(missing.status).toBe(401);
    expect(missing.headers.get('www-authenticate')).toBe('Bearer');
    const wrong = await app.request('/runs', { headers: { authorization: 'Bearer wrong' } });
    expect(wrong.status).toBe(401);
    expect(await wrong.json()).toEqual({
      detail: 'missing or invalid API key: send Authorization: Bearer <key>',
    });
    expect(wrong.headers.get('www-authenticate')).toBe(
      'Bearer error="invalid_token", error_description="missing or invalid API key: send Authorization: Bearer <key>"',
    );
    const huge = await app.request('/runs', {
      headers: { authorization: `Bearer ${'x'.repeat(9000)}` },
    });
    expect(huge.status).toBe(401);
    const metrics = await (
      await app.request('/metrics', { headers: { authorization: 'Bearer right' } })
    ).text();
    expect(metrics).toContain('agentdeck_auth_refusals_total{reason="missing"} 1');
    expect(metrics).toContain('agentdeck_auth_refusals_total{reason="invalid_key"} 1');
    expect(metrics).toContain('agentdeck_auth_refusals_total{reason="header_too_large"} 1');
  });

  it('refuses at start an entry that holds = but maps nothing, or names an unknown role', () => {
    expect(() => parseApiKeys('sk=acme')).toThrow(ConfigError);
    expect(() => parseApiKeys('sk=acme:write')).toThrow(/unknown role 'write'/);
    expect(() => parseApiKeys('sk=acme:')).toThrow(/names no role/);
    expect(parseApiKeys('abc==')).toEqual([{ key: 'abc==' }]);
  });
});

describe('guesses with keys and tokens both on', () => {
  const secret = 's'.repeat(32);
  const tokens = {
    issuer: 'https://issuer.example.com',
    audience: ['api'],
    hs256Secret: secret,
    algorithms: ['HS256'],
  };

  it('counts a token too broken to read as a guess, but not an expired one', async () => {
    const { deck } = await openTestDeck({ workflows: [threeSteps()] });
    const expired = await new SignJWT({ sub: 'u' })
      .setProtectedHeader({ alg: 'HS256' })
      .setIssuer(tokens.issuer)
      .setAudience('api')
      .setExpirationTime(Math.floor(Date.now() / 1000) - 600)
      .sign(new TextEncoder().encode(secret));
    const patient = deck.app({ apiKeys: ['right'], tokens });
    for (let i = 0; i < MAX_FAILURES + 2; i += 1) {
      const response = await patient.request('/runs', {
        headers: { authorization: `Bearer ${expired}` },
      });
      expect(response.status).toBe(401);
    }
    expect(
      (await patient.request('/runs', { headers: { authorization: 'Bearer right' } })).status,
    ).toBe(200);

    const guesser = deck.app({ apiKeys: ['right'], tokens });
    for (let i = 0; i < MAX_FAILURES; i += 1) {
      expect(
        (await guesser.request('/runs', { headers: { authorization: 'Bearer aa.bb.cc' } })).status,
      ).toBe(401);
    }
    expect(
      (await guesser.request('/runs', { headers: { authorization: 'Bearer right' } })).status,
    ).toBe(429);
  });
});

describe('deck.app({ authenticate })', () => {
  it("gives the function's identity to the context factory as via 'custom'; null is a 401", async () => {
    const { deck, seen, context } = await recordingDeck();
    const authenticate = (request: Request): Identity | null =>
      request.headers.get('x-session') === 'good'
        ? {
            tenant: 't-1',
            user: 'u-1',
            roles: new Set(['run']),
            via: 'token',
            claims: { plan: 'pro' },
          }
        : null;
    const app = deck.app({ context, authenticate, apiKeys: ['sk'] });
    const ok = await app.request(
      '/workflows/three-steps',
      postJson({ n: 0 }, { 'x-session': 'good' }),
    );
    expect(ok.status).toBe(200);
    expect(plain(seen[0])).toEqual({ tenant: 't-1', user: 'u-1', roles: ['run'], via: 'custom' });
    expect(seen[0]?.claims).toEqual({ plan: 'pro' });
    // A key is tried first, and still works beside the function.
    expect((await start(app, 'sk')).status).toBe(200);
    expect(seen[1]?.via).toBe('key');

    const refused = await deck
      .app({ authenticate })
      .request('/runs', { headers: { 'x-session': 'bad' } });
    expect(refused.status).toBe(401);
    expect(await refused.json()).toEqual({
      detail: 'no credentials: send Authorization: Bearer <token or key>',
    });
    const wrong = await deck
      .app({ authenticate })
      .request('/runs', { headers: { authorization: 'Bearer x' } });
    expect(await wrong.json()).toEqual({ detail: 'the credentials were refused' });
    expect(wrong.headers.get('www-authenticate')).toContain('error="invalid_token"');
  });

  it('answers 500 (logged, not shown) for an identity of the wrong shape, rather than granting it', async () => {
    const logged: string[] = [];
    const { deck } = await openTestDeck({ workflows: [threeSteps()] });
    const app = deck.app({
      log: (line) => logged.push(line),
      authenticate: () =>
        ({ tenant: 'acme', user: null, roles: ['admin'], via: 'custom' }) as unknown as Identity,
    });
    const response = await app.request('/runs');
    expect(response.status).toBe(500);
    expect(await response.json()).toEqual({ detail: 'internal error' });
    expect(logged.join('\n')).toContain('authenticate returned an invalid identity');
  });

  it('leaves /health open and every request open when nothing is configured', async () => {
    const { deck, seen, context } = await recordingDeck();
    expect((await deck.app({ authenticate: () => null }).request('/health')).status).toBe(200);
    expect((await start(deck.app({ context }))).status).toBe(200);
    expect(plain(seen[0])).toEqual({
      tenant: null,
      user: null,
      roles: ['admin', 'answer', 'control', 'read', 'run'],
      via: 'open',
    });
  });
});
