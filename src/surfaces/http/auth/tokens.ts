/**
 * JWT bearer tokens, verified with jose: the signature with the issuer's keys (issuer-keys.ts)
 * or, for development, a shared HS256 secret; the algorithm against the allow-list before any
 * key is looked up (so `none`, or HS256 signed with the issuer's public key as the secret, is
 * refused without a fetch); the issuer, audience, expiry (required) and not-before with the
 * configured clock skew. Then the claims become an {@link Identity}: the user claim (`sub`),
 * the tenant claim when one is configured (a non-empty string, or the token is refused), and
 * the roles from the roles claim (`scope` by default): `agentdeck:<role>` anywhere, and a
 * plain `<role>` in a claim other than `scope`/`scp` (OAuth scopes are shared with the
 * issuer's other APIs, where `read` means something else).
 */
import { decodeProtectedHeader, errors, type JWTPayload, jwtVerify } from 'jose';
import { type Identity, isRole, type Role } from '../../../core/identity.js';
import type { TokenVerifier } from './gate.js';
import { IssuerKeys } from './issuer-keys.js';
import { AuthRefusal, type Challenge, type RefusalReason } from './refusals.js';
import type { TokenSettings } from './token-settings.js';

/** The prefix of a scope that grants a role: `agentdeck:run`. */
export const SCOPE_PREFIX = 'agentdeck:';

/** Where the protected resource metadata is served (RFC 9728). */
export const RESOURCE_METADATA_PATH = '/.well-known/oauth-protected-resource';

export class JwtVerifier implements TokenVerifier {
  readonly #settings: TokenSettings;
  readonly #keys: IssuerKeys;

  constructor(settings: TokenSettings) {
    this.#settings = settings;
    this.#keys = new IssuerKeys({
      issuer: settings.issuer,
      jwksUrl: settings.jwksUrl,
      cooldownMs: settings.jwksCooldownMs,
      maxAgeMs: settings.jwksMaxAgeMs,
    });
  }

  async verify(token: string): Promise<Identity> {
    let alg: unknown;
    try {
      alg = decodeProtectedHeader(token).alg;
    } catch {
      throw new AuthRefusal('malformed');
    }
    if (typeof alg !== 'string' || !this.#settings.algorithms.includes(alg)) {
      throw new AuthRefusal('algorithm');
    }
    const secret = this.#settings.hs256Secret;
    let payload: JWTPayload;
    try {
      ({ payload } = await jwtVerify(
        token,
        (header, input) =>
          header.alg === 'HS256' && secret ? secret : this.#keys.key(header, input),
        {
          issuer: this.#settings.issuer,
          audience: [...this.#settings.audience],
          algorithms: [...this.#settings.algorithms],
          clockTolerance: this.#settings.clockSkewSeconds,
          requiredClaims: ['exp'],
        },
      ));
    } catch (error) {
      throw refusalOf(error);
    }
    return this.#identity(payload);
  }

  /** Every refusal names where the resource metadata is, for OAuth clients (MCP's among them). */
  challenge(request: Request): Challenge {
    return { resource_metadata: `${resourceOf(this.#settings, request)}${RESOURCE_METADATA_PATH}` };
  }

  #identity(payload: JWTPayload): Identity {
    const { userClaim, tenantClaim, rolesClaim } = this.#settings;
    const user = claimAt(payload, userClaim);
    if (typeof user !== 'string' || user === '') throw missingClaim(userClaim);
    let tenant: string | null = null;
    if (tenantClaim !== null) {
      const value = claimAt(payload, tenantClaim);
      if (typeof value !== 'string' || value === '') throw missingClaim(tenantClaim);
      tenant = value;
    }
    return Object.freeze({
      tenant,
      user,
      roles: rolesOf(claimAt(payload, rolesClaim), rolesClaim),
      via: 'token',
      claims: Object.freeze({ ...payload }),
    });
  }
}

/** The protected resource: the configured public URL, else the origin `request` was sent to. */
export function resourceOf(settings: TokenSettings, request: Request): string {
  return (settings.resource ?? new URL(request.url).origin).replace(/\/+$/, '');
}

function missingClaim(name: string): AuthRefusal {
  return new AuthRefusal('claims', `'${name}' must be a non-empty string`);
}

/** The claim `name`, or (when there is none by that name) the dotted path it spells. */
export function claimAt(payload: Readonly<Record<string, unknown>>, name: string): unknown {
  if (Object.hasOwn(payload, name)) return payload[name];
  let value: unknown = payload;
  for (const part of name.split('.')) {
    if (typeof value !== 'object' || value === null || !Object.hasOwn(value, part))
      return undefined;
    value = (value as Record<string, unknown>)[part];
  }
  return value;
}

/** The roles a claim's value grants; a value neither a string nor an array of strings is refused. */
export function rolesOf(value: unknown, claim: string): Set<Role> {
  if (value === undefined) return new Set();
  const items = typeof value === 'string' ? value.split(/\s+/) : value;
  if (!Array.isArray(items) || !items.every((v) => typeof v === 'string')) {
    throw new AuthRefusal('claims', `'${claim}' must be a string or an array of strings`);
  }
  const plainAllowed = claim !== 'scope' && claim !== 'scp';
  const roles = new Set<Role>();
  for (const item of items as string[]) {
    const name = item.startsWith(SCOPE_PREFIX)
      ? item.slice(SCOPE_PREFIX.length)
      : plainAllowed
        ? item
        : '';
    if (isRole(name)) roles.add(name);
  }
  return roles;
}

/** The reason for each way jose refuses a token; the token's content never reaches the words. */
function refusalOf(error: unknown): AuthRefusal {
  if (error instanceof AuthRefusal) return error;
  if (error instanceof errors.JWTExpired) return new AuthRefusal('expired');
  if (error instanceof errors.JWTClaimValidationFailed) {
    const byClaim: Record<string, RefusalReason> = {
      nbf: 'not_yet_valid',
      iss: 'wrong_issuer',
      aud: 'wrong_audience',
    };
    const reason = byClaim[error.claim];
    return reason
      ? new AuthRefusal(reason)
      : new AuthRefusal('claims', `'${error.claim}' is missing or invalid`);
  }
  if (error instanceof errors.JOSEAlgNotAllowed) return new AuthRefusal('algorithm');
  if (
    error instanceof errors.JWKSNoMatchingKey ||
    error instanceof errors.JWKSMultipleMatchingKeys
  ) {
    return new AuthRefusal('unknown_key');
  }
  if (error instanceof errors.JWSSignatureVerificationFailed)
    return new AuthRefusal('bad_signature');
  // Anything else jose says about the token's shape (a header it cannot read, a `crit` it does
  // not know, a payload that is not a claim set): malformed.
  return new AuthRefusal('malformed');
}
