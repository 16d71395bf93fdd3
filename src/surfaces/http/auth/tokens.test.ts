/**
 * JWT bearer tokens through a real server (`serve()` on a free port) against a real issuer
 * on 127.0.0.1 (test/support/token-issuer.ts: keys generated with jose, OIDC discovery, a
 * JWKS document): the identity a token gives the context factory; every refusal (status,
 * body, challenge, never the token, a count by reason), on the native routes and on `/v1` in
 * OpenAI's shape; key rotation; the issuer down and back; the MCP challenge and the
 * protected resource metadata.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { testDeck } from '../../../../test/support/decks.js';
import { hs256, TestIssuer, unsigned } from '../../../../test/support/token-issuer.js';
import { threeSteps } from '../../../../test/support/workflows.js';
import type { Identity } from '../../../core/identity.js';
import type { AppOptions } from '../options.js';
import { type RunningServer, serve } from '../serve.js';
import { REFUSAL_REASONS, type RefusalReason } from './refusals.js';
import type { TokenOptions } from './token-settings.js';

const issuer = new TestIssuer();
let server: RunningServer | null = null;
const seen: Identity[] = [];

beforeAll(async () => {
  await issuer.start();
  await issuer.addKey('k1');
  await issuer.addKey('k2');
  await issuer.addKey('k3', 'ES256');
  issuer.publish('k1');
});
afterAll(() => issuer.stop());
afterEach(async () => {
  await server?.close();
  server = null;
  seen.length = 0;
});

/** Serve a deck with `tokens` (over a valid base) on a free port; its base URL. */
async function served(tokens: Partial<TokenOptions> = {}, app: AppOptions = {}): Promise<string> {
  const { deck } = testDeck({ workflows: [threeSteps()] });
  server = await serve(deck, {
    host: '127.0.0.1',
    port: 0,
    handleSignals: false,
    app: {
      context: (_request: Request, identity: Identity) => {
        seen.push(identity);
        return null;
      },
      ...app,
      tokens: { issuer: issuer.url, audience: ['api://deck'], tenantClaim: 'org_id', ...tokens },
    },
  });
  return `http://127.0.0.1:${server.port}`;
}

const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

async function startRun(base: string, token: string): Promise<Response> {
  return fetch(`${base}/workflows/three-steps`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...bearer(token) },
    body: JSON.stringify({ n: 0 }),
  });
}

/** The 401 for `token`, checked: reason in the body, the challenge, no trace of the token. */
async function expectRefused(base: string, token: string, reason: RefusalReason) {
  const response = await fetch(`${base}/runs`, { headers: bearer(token) });
  const text = await response.text();
  expect(response.status, `${reason}: ${text}`).toBe(401);
  expect((JSON.parse(text) as { detail: string }).detail).toMatch(
    new RegExp(`^${REFUSAL_REASONS[reason].replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`),
  );
  const challenge = response.headers.get('www-authenticate') ?? '';
  expect(challenge).toContain('error="invalid_token"');
  expect(challenge).toContain(`resource_metadata="${base}/.well-known/oauth-protected-resource"`);
  for (const part of token.split('.').filter((p) => p.length > 8)) {
    expect(text).not.toContain(part);
    expect(challenge).not.toContain(part);
  }
}

describe('a verified token', () => {
  it('gives the context factory its tenant, user, roles and claims; scopes grant roles only when prefixed', async () => {
    const base = await served();
    const token = await issuer.sign('k1', {
      org_id: 'acme',
      scope: 'agentdeck:run agentdeck:read admin openid',
    });
    expect((await startRun(base, token)).status).toBe(200);
    expect(seen).toHaveLength(1);
    const [identity] = seen;
    expect(identity?.tenant).toBe('acme');
    expect(identity?.user).toBe('user-1');
    expect(identity?.via).toBe('token');
    expect([...(identity?.roles ?? [])].sort()).toEqual(['read', 'run']);
    expect(identity?.claims?.org_id).toBe('acme');
  });

  it('reads plain role names from a roles claim at a dotted path (Keycloak)', async () => {
    const base = await served({ rolesClaim: 'realm_access.roles', tenantClaim: 'tenant' });
    const token = await issuer.sign('k1', {
      tenant: 't',
      realm_access: { roles: ['answer', 'agentdeck:control', 'x'] },
    });
    expect((await startRun(base, token)).status).toBe(200);
    expect([...(seen[0]?.roles ?? [])].sort()).toEqual(['answer', 'control']);
  });
});

describe('refusals', () => {
  it('refuses each bad token with its reason, and counts each', async () => {
    const base = await served();
    const now = Math.floor(Date.now() / 1000);
    const pem = await issuer.publicPem('k1');
    const cases: [RefusalReason, string][] = [
      ['expired', await issuer.sign('k1', { org_id: 'a', exp: now - 120 })],
      ['not_yet_valid', await issuer.sign('k1', { org_id: 'a', nbf: now + 120 })],
      ['wrong_issuer', await issuer.sign('k1', { org_id: 'a', iss: 'https://evil.example.com' })],
      ['wrong_audience', await issuer.sign('k1', { org_id: 'a', aud: 'api://other' })],
      ['unknown_key', await issuer.sign('k2', { org_id: 'a' })],
      ['algorithm', unsigned({ ...issuer.claims(), org_id: 'a' }, 'k1')],
      ['algorithm', await hs256(pem, { ...issuer.claims(), org_id: 'a' }, 'k1')],
      ['claims', await issuer.sign('k1', {})],
      ['claims', await issuer.sign('k1', { org_id: 42 })],
      ['claims', await issuer.sign('k1', { org_id: 'a', exp: undefined })],
      ['malformed', 'abc.def.ghi'],
      ['malformed', 'no-dots-at-all'],
      ['bad_signature', `${(await issuer.sign('k1', { org_id: 'a' })).slice(0, -6)}AAAAAA`],
    ];
    for (const [reason, token] of cases) await expectRefused(base, token, reason);

    const huge = await fetch(`${base}/runs`, { headers: bearer(`a.${'b'.repeat(9000)}.c`) });
    expect(huge.status).toBe(401);
    expect(await huge.json()).toEqual({ detail: REFUSAL_REASONS.header_too_large });
    const none = await fetch(`${base}/runs`);
    expect(none.status).toBe(401);
    expect(none.headers.get('www-authenticate')).toBe(
      `Bearer resource_metadata="${base}/.well-known/oauth-protected-resource"`,
    );

    const good = await issuer.sign('k1', { org_id: 'acme' });
    const metrics = await (await fetch(`${base}/metrics`, { headers: bearer(good) })).text();
    for (const [reason, count] of Object.entries({
      expired: 1,
      not_yet_valid: 1,
      wrong_issuer: 1,
      wrong_audience: 1,
      unknown_key: 1,
      algorithm: 2,
      claims: 3,
      malformed: 2,
      bad_signature: 1,
      header_too_large: 1,
      missing: 1,
    })) {
      expect(metrics).toContain(`agentdeck_auth_refusals_total{reason="${reason}"} ${count}`);
    }
  });

  it('accepts HS256 with the configured secret only, never with the public key as the secret', async () => {
    const secret = 'a-development-secret-of-32-bytes!!';
    const base = await served({ hs256Secret: secret });
    const claims = { ...issuer.claims(), org_id: 'dev' };
    expect((await startRun(base, await hs256(secret, claims))).status).toBe(200);
    await expectRefused(
      base,
      await hs256(await issuer.publicPem('k1'), claims, 'k1'),
      'bad_signature',
    );
    // The RS256 keys still work beside it.
    expect((await startRun(base, await issuer.sign('k1', { org_id: 'acme' }))).status).toBe(200);
  });

  it("keeps OpenAI's error shape on /v1, the challenge included", async () => {
    const base = await served();
    const expired = await issuer.sign('k1', {
      org_id: 'a',
      exp: Math.floor(Date.now() / 1000) - 120,
    });
    const response = await fetch(`${base}/v1/models`, { headers: bearer(expired) });
    expect(response.status).toBe(401);
    expect(response.headers.get('www-authenticate')).toContain(
      'error_description="the token has expired"',
    );
    expect(await response.json()).toEqual({
      error: {
        message: 'the token has expired',
        type: 'authentication_error',
        param: null,
        code: 'invalid_api_key',
      },
    });
  });
});

describe('the MCP endpoint', () => {
  it('answers 401 with resource_metadata, and serves the protected resource metadata without a token', async () => {
    const base = await served({ resource: 'https://deck.example.com/' });
    const call = await fetch(`${base}/mcp`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    expect(call.status).toBe(401);
    expect(call.headers.get('www-authenticate')).toBe(
      'Bearer resource_metadata="https://deck.example.com/.well-known/oauth-protected-resource"',
    );
    const metadata = await fetch(`${base}/.well-known/oauth-protected-resource`);
    expect(metadata.status).toBe(200);
    expect(await metadata.json()).toEqual({
      resource: 'https://deck.example.com',
      authorization_servers: [issuer.url],
      bearer_methods_supported: ['header'],
      scopes_supported: [
        'agentdeck:read',
        'agentdeck:run',
        'agentdeck:answer',
        'agentdeck:control',
        'agentdeck:admin',
      ],
      resource_name: 'agentdeck',
    });
  });
});
