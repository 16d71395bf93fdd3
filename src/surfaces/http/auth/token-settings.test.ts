/**
 * Token settings checked at start: a configuration that would accept forged or foreign
 * tokens stops the service with a message naming the setting, and the environment's
 * `SERVICE_AUTH_*` read as the options they default.
 */
import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../../core/errors.js';
import { resolveTokenSettings, tokenOptionsFromEnv } from './token-settings.js';

const base = { issuer: 'https://issuer.example.com/', audience: ['api://deck'] };

describe('token settings', () => {
  it('is off with no issuer, and refuses token settings that would then be ignored', () => {
    expect(resolveTokenSettings({})).toBeNull();
    expect(() => resolveTokenSettings({ audience: ['a'] })).toThrow(/no issuer/);
  });

  it('refuses none, HMAC without a secret, a short secret, no audience, a URL that is none', () => {
    expect(() => resolveTokenSettings({ ...base, algorithms: ['none'] })).toThrow(
      /'none' is not accepted/,
    );
    expect(() => resolveTokenSettings({ ...base, algorithms: ['HS256'] })).toThrow(
      /'HS256' is not accepted/,
    );
    expect(() => resolveTokenSettings({ ...base, algorithms: ['RS256', 'HS512'] })).toThrow(
      ConfigError,
    );
    expect(() => resolveTokenSettings({ ...base, hs256Secret: 'short' })).toThrow(
      /at least 32 bytes/,
    );
    expect(() => resolveTokenSettings({ issuer: base.issuer })).toThrow(/AUDIENCE/);
    expect(() => resolveTokenSettings({ ...base, jwksUrl: 'file:///etc/passwd' })).toThrow(
      /http\(s\) URL/,
    );
  });

  it('defaults to the asymmetric algorithms, HS256 only with a secret, sub and scope', () => {
    const plain = resolveTokenSettings(base);
    expect(plain?.algorithms).not.toContain('HS256');
    expect(plain?.algorithms).toContain('RS256');
    expect(plain).toMatchObject({
      userClaim: 'sub',
      rolesClaim: 'scope',
      tenantClaim: null,
      clockSkewSeconds: 30,
    });
    const dev = resolveTokenSettings({ ...base, hs256Secret: 'x'.repeat(32) });
    expect(dev?.algorithms).toContain('HS256');
  });

  it('reads SERVICE_AUTH_* as options', () => {
    expect(
      tokenOptionsFromEnv({
        SERVICE_AUTH_ISSUER: ' https://kc.example.com/realms/main ',
        SERVICE_AUTH_AUDIENCE: 'api://deck, account',
        SERVICE_AUTH_TENANT_CLAIM: 'tenant',
        SERVICE_AUTH_ROLES_CLAIM: 'realm_access.roles',
        SERVICE_AUTH_CLOCK_SKEW_SECONDS: '5',
      }),
    ).toEqual({
      issuer: 'https://kc.example.com/realms/main',
      audience: ['api://deck', 'account'],
      tenantClaim: 'tenant',
      rolesClaim: 'realm_access.roles',
      clockSkewSeconds: 5,
    });
    expect(() => tokenOptionsFromEnv({ SERVICE_AUTH_CLOCK_SKEW_SECONDS: 'soon' })).toThrow(
      /seconds/,
    );
  });
});
