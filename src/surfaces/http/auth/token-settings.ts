/**
 * The settings of JWT bearer tokens, declared once (`deck.app({ tokens })`) with the
 * environment they default to (`SERVICE_AUTH_*`), and checked when the app is built: a
 * configuration that would accept forged or foreign tokens (`none` among the algorithms, an
 * HMAC algorithm with no secret, a short secret, no audience) stops the service at start
 * rather than at the first request.
 */
import { ConfigError } from '../../../core/errors.js';

export interface TokenOptions {
  /**
   * The issuer (`iss`) tokens must name, exactly: `https://tenant.eu.auth0.com/`,
   * `https://clerk.example.com`, `https://kc.example.com/realms/main`. Its keys are found by
   * OIDC discovery (`<issuer>/.well-known/openid-configuration`) unless `jwksUrl` is given.
   * @default SERVICE_AUTH_ISSUER, else none: no token verification
   */
  issuer?: string;
  /** The audiences (`aud`) a token must name one of: the API's identifier. Required. @default SERVICE_AUTH_AUDIENCE (comma-separated) */
  audience?: readonly string[];
  /** Where the issuer's signing keys are (a JWKS document). @default SERVICE_AUTH_JWKS_URL, else the discovered `jwks_uri` */
  jwksUrl?: string;
  /** The signing algorithms accepted; never `none`. @default SERVICE_AUTH_ALGORITHMS, else RS256, RS384, RS512, PS256, PS384, PS512, ES256, ES384, ES512, EdDSA (and HS256 with a secret) */
  algorithms?: readonly string[];
  /** A shared secret for HS256 tokens, at least 32 bytes: for development only. @default SERVICE_AUTH_HS256_SECRET, else none: HS256 refused */
  hs256Secret?: string;
  /** How far clocks may disagree when `exp` and `nbf` are checked. @default SERVICE_AUTH_CLOCK_SKEW_SECONDS, else 30 */
  clockSkewSeconds?: number;
  /** The claim naming the caller's tenant (a string; a token without it is refused). @default SERVICE_AUTH_TENANT_CLAIM, else none: tokens carry no tenant */
  tenantClaim?: string;
  /** The claim naming the user. @default SERVICE_AUTH_USER_CLAIM, else 'sub' */
  userClaim?: string;
  /** The claim holding roles or scopes (a space-separated string or an array; a dotted path such as `realm_access.roles` reaches into an object). @default SERVICE_AUTH_ROLES_CLAIM, else 'scope' */
  rolesClaim?: string;
  /** This service's public URL, as the MCP metadata names the protected resource. @default SERVICE_AUTH_RESOURCE, else the origin each request was sent to */
  resource?: string;
  /** The least time between two fetches of the issuer's keys (an unknown `kid` or a failed fetch waits for it). @default SERVICE_AUTH_JWKS_COOLDOWN_SECONDS, else 30 */
  jwksCooldownSeconds?: number;
  /** How long fetched keys are used before they are fetched again. @default SERVICE_AUTH_JWKS_MAX_AGE_SECONDS, else 600 */
  jwksMaxAgeSeconds?: number;
}

/** Token settings once checked and defaulted. */
export interface TokenSettings {
  issuer: string;
  audience: readonly string[];
  jwksUrl: string | null;
  algorithms: readonly string[];
  hs256Secret: Uint8Array | null;
  clockSkewSeconds: number;
  tenantClaim: string | null;
  userClaim: string;
  rolesClaim: string;
  resource: string | null;
  jwksCooldownMs: number;
  jwksMaxAgeMs: number;
}

export const ASYMMETRIC_ALGORITHMS = [
  'RS256',
  'RS384',
  'RS512',
  'PS256',
  'PS384',
  'PS512',
  'ES256',
  'ES384',
  'ES512',
  'EdDSA',
  'Ed25519',
] as const;

type Env = Record<string, string | undefined>;

/** The `SERVICE_AUTH_*` settings, as {@link TokenOptions} (only those set). */
export function tokenOptionsFromEnv(env: Env = process.env): TokenOptions {
  const out: TokenOptions = {};
  const text = (name: string) => {
    const value = env[name]?.trim();
    return value === undefined || value === '' ? undefined : value;
  };
  const list = (name: string) =>
    text(name)
      ?.split(',')
      .map((v) => v.trim())
      .filter((v) => v !== '');
  const seconds = (name: string) => {
    const raw = text(name);
    if (raw === undefined) return undefined;
    const value = Number(raw);
    if (!Number.isFinite(value) || value < 0) {
      throw new ConfigError(`${name} must be a number of seconds (0 or more), got '${raw}'`);
    }
    return value;
  };
  const set = <K extends keyof TokenOptions>(key: K, value: TokenOptions[K] | undefined) => {
    if (value !== undefined) out[key] = value;
  };
  set('issuer', text('SERVICE_AUTH_ISSUER'));
  set('audience', list('SERVICE_AUTH_AUDIENCE'));
  set('jwksUrl', text('SERVICE_AUTH_JWKS_URL'));
  set('algorithms', list('SERVICE_AUTH_ALGORITHMS'));
  set('hs256Secret', text('SERVICE_AUTH_HS256_SECRET'));
  set('clockSkewSeconds', seconds('SERVICE_AUTH_CLOCK_SKEW_SECONDS'));
  set('tenantClaim', text('SERVICE_AUTH_TENANT_CLAIM'));
  set('userClaim', text('SERVICE_AUTH_USER_CLAIM'));
  set('rolesClaim', text('SERVICE_AUTH_ROLES_CLAIM'));
  set('resource', text('SERVICE_AUTH_RESOURCE'));
  set('jwksCooldownSeconds', seconds('SERVICE_AUTH_JWKS_COOLDOWN_SECONDS'));
  set('jwksMaxAgeSeconds', seconds('SERVICE_AUTH_JWKS_MAX_AGE_SECONDS'));
  return out;
}

/** Check and default `options`; `null` when no issuer is set (token verification off). */
export function resolveTokenSettings(options: TokenOptions): TokenSettings | null {
  if (options.issuer === undefined) {
    const stray = Object.keys(options);
    if (stray.length > 0) {
      throw new ConfigError(
        `token settings (${stray.join(', ')}) are set but no issuer: set SERVICE_AUTH_ISSUER ` +
          '(tokens.issuer) to verify tokens, or remove them',
      );
    }
    return null;
  }
  const issuer = url(options.issuer, 'SERVICE_AUTH_ISSUER (tokens.issuer)');
  const audience = options.audience ?? [];
  if (audience.length === 0) {
    throw new ConfigError(
      'SERVICE_AUTH_AUDIENCE (tokens.audience) is required with an issuer: without it a token ' +
        "the issuer made for another API would be accepted. Set it to this API's identifier",
    );
  }
  const secret = options.hs256Secret;
  if (secret !== undefined && Buffer.byteLength(secret) < 32) {
    throw new ConfigError(
      'SERVICE_AUTH_HS256_SECRET (tokens.hs256Secret) must be at least 32 bytes',
    );
  }
  const algorithms = options.algorithms ?? [
    ...ASYMMETRIC_ALGORITHMS,
    ...(secret !== undefined ? ['HS256'] : []),
  ];
  for (const alg of algorithms) {
    if (alg === 'HS256' && secret !== undefined) continue;
    if (!(ASYMMETRIC_ALGORITHMS as readonly string[]).includes(alg)) {
      throw new ConfigError(
        `SERVICE_AUTH_ALGORITHMS (tokens.algorithms): '${alg}' is not accepted; use ` +
          `${ASYMMETRIC_ALGORITHMS.join(', ')}, or HS256 with SERVICE_AUTH_HS256_SECRET (development only)`,
      );
    }
  }
  if (algorithms.length === 0) {
    throw new ConfigError('SERVICE_AUTH_ALGORITHMS (tokens.algorithms) names no algorithm');
  }
  const claim = (value: string | undefined, fallback: string) =>
    value === undefined || value.trim() === '' ? fallback : value.trim();
  return {
    issuer,
    audience,
    jwksUrl:
      options.jwksUrl === undefined
        ? null
        : url(options.jwksUrl, 'SERVICE_AUTH_JWKS_URL (tokens.jwksUrl)'),
    algorithms,
    hs256Secret: secret === undefined ? null : new TextEncoder().encode(secret),
    clockSkewSeconds: options.clockSkewSeconds ?? 30,
    tenantClaim: options.tenantClaim?.trim() || null,
    userClaim: claim(options.userClaim, 'sub'),
    rolesClaim: claim(options.rolesClaim, 'scope'),
    resource:
      options.resource === undefined
        ? null
        : url(options.resource, 'SERVICE_AUTH_RESOURCE (tokens.resource)'),
    jwksCooldownMs: (options.jwksCooldownSeconds ?? 30) * 1000,
    jwksMaxAgeMs: (options.jwksMaxAgeSeconds ?? 600) * 1000,
  };
}

function url(value: string, where: string): string {
  try {
    const parsed = new URL(value);
    if (parsed.protocol === 'https:' || parsed.protocol === 'http:') return value;
  } catch {
    // reported below
  }
  throw new ConfigError(`${where} must be an http(s) URL, got '${value}'`);
}
