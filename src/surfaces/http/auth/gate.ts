/**
 * The gate: who is calling. For every request past the public routes it establishes an
 * {@link Identity} and attaches it to the request (`identityOf(request)` reads it, on every
 * surface: the native routes, `/v1`, `/mcp`, A2A and the AI SDK routes are one app), or
 * answers the refusal. The credentials are tried in a fixed order, the cheapest and most
 * specific first: a configured API key (compared in constant time), then a bearer token that
 * looks like a JWT when token verification is configured, then the app's own `authenticate`
 * function with the whole request (a cookie, a header a proxy sets, another token format).
 * With none of them configured the gate attaches nothing: every request is `OPEN_IDENTITY`,
 * as before.
 *
 * Wrong API keys count against the client's address (key-guesses.ts), and so does, with keys
 * set, a token too broken to read (it may be a key guessed in a token's shape); a token
 * refused for what it says (expired, another audience) does not: it cannot be guessed, and a
 * client retrying an expired one would lock out everyone behind the same proxy.
 */
import type { Context } from 'hono';
import { ConfigError } from '../../../core/errors.js';
import { type Identity, isRole, ROLES, type Role } from '../../../core/identity.js';
import { attachIdentity } from '../identity.js';
import { clientAddress, KeyGuesses } from '../key-guesses.js';
import { type ApiKey, KeyRing } from './api-keys.js';
import { AuthRefusal, type Challenge, type RefusalReason, refusalResponse } from './refusals.js';

/**
 * The app's own check: the identity of `request`, or `null` to refuse it (401). Throwing an
 * `AuthRefusal` refuses with that reason; anything else thrown is a 500.
 */
export type Authenticate = (request: Request) => Identity | null | Promise<Identity | null>;

/** Verifies a bearer token that looks like a JWT; throws {@link AuthRefusal}. */
export interface TokenVerifier {
  verify(token: string): Promise<Identity>;
  /** Challenge parameters for a refusal of `request` (`resource_metadata` on `/mcp`). */
  challenge?(request: Request): Challenge;
}

/** Where refusals are counted: the open deck's metrics (`HttpMetrics`), `null` before it opens. */
export type RefusalCounter = () => { recordAuthRefusal?(reason: string): void } | null;

export interface GateSettings {
  keys: readonly ApiKey[];
  authenticate?: Authenticate | undefined;
  tokens?: TokenVerifier | null | undefined;
}

/** What a request to a public route (`/health`) is when authentication is on: no tenant, no role. */
export const ANONYMOUS: Identity = Object.freeze({
  tenant: null,
  user: null,
  roles: new Set<Role>(),
  via: 'open',
});

/** An `Authorization` header longer than this is refused unread (a token is a few KB at most). */
export const MAX_AUTHORIZATION_BYTES = 8 * 1024;

/** The API-key-only gate's body for every refusal, as it has always been. */
const KEY_ONLY_DETAIL = 'missing or invalid API key: send Authorization: Bearer <key>';

/** Three base64url segments: what a JWS in compact form looks like. */
const JWT_SHAPE = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*\.[A-Za-z0-9_-]*$/;

export class Gate {
  readonly #keys: KeyRing;
  readonly #authenticate: Authenticate | undefined;
  readonly #tokens: TokenVerifier | null;
  readonly #metrics: RefusalCounter;
  readonly #guesses = new KeyGuesses();
  /** Each request's identity by its Hono context, for {@link Gate.carry}. */
  readonly #established = new WeakMap<Context, Identity>();

  constructor(settings: GateSettings, metrics: RefusalCounter) {
    this.#keys = new KeyRing(settings.keys);
    this.#authenticate = settings.authenticate;
    this.#tokens = settings.tokens ?? null;
    this.#metrics = metrics;
  }

  /** Whether any authentication is configured (otherwise every request is open). */
  get on(): boolean {
    return this.#keys.size > 0 || this.#authenticate !== undefined || this.#tokens !== null;
  }

  /** Whether only API keys are configured: refusals keep the body they always had. */
  get keysOnly(): boolean {
    return this.#keys.size > 0 && this.#authenticate === undefined && this.#tokens === null;
  }

  /** Attach the identity of a request to a public route (no roles when authentication is on). */
  admitPublic(c: Context): void {
    if (this.on) this.#attach(c, ANONYMOUS);
  }

  /**
   * Attach the identity established for `c` to its request again: a middleware after the
   * gate may have replaced `c.req.raw` (the body limit does, for a chunked body), and a
   * request with nothing attached reads as `OPEN_IDENTITY`, every role: fail closed instead.
   */
  carry(c: Context): void {
    if (this.on) attachIdentity(c.req.raw, this.#established.get(c) ?? ANONYMOUS);
  }

  #attach(c: Context, identity: Identity): void {
    this.#established.set(c, identity);
    attachIdentity(c.req.raw, identity);
  }

  /** Attach the caller's identity and return `null`, or return the refusal to answer with. */
  async check(c: Context): Promise<Response | null> {
    if (!this.on) return null;
    const request = c.req.raw;
    const header = request.headers.get('authorization');
    const bearer = header === null ? null : (/^Bearer +(\S+) *$/i.exec(header)?.[1] ?? null);
    const asToken = bearer !== null && this.#tokens !== null && JWT_SHAPE.test(bearer);
    const address = clientAddress(c) ?? 'unknown';
    // An address out of guesses is refused whatever it sends: a key written to look like a
    // token must not buy more guesses.
    if (this.#keys.size > 0) {
      const refused = this.#guesses.refusal(address);
      if (refused) return refused;
    }
    try {
      if (header !== null && header.length > MAX_AUTHORIZATION_BYTES) {
        throw new AuthRefusal('header_too_large');
      }
      const identity = await this.#identify(request, header, bearer, asToken);
      if (identity.via === 'key') this.#guesses.succeeded(address);
      this.#attach(c, identity);
      return null;
    } catch (error) {
      if (!(error instanceof AuthRefusal)) throw error;
      // A guess at a key: a wrong key, or (keys set) a token so broken it may be one.
      const guess =
        error.reason === 'invalid_key' || (error.reason === 'malformed' && this.#keys.size > 0);
      if (guess) this.#guesses.failed(address);
      this.#metrics()?.recordAuthRefusal?.(error.reason);
      const challenge = this.#tokens?.challenge?.(request) ?? {};
      return refusalResponse(error, challenge, this.keysOnly ? KEY_ONLY_DETAIL : undefined);
    }
  }

  async #identify(
    request: Request,
    header: string | null,
    bearer: string | null,
    asToken: boolean,
  ): Promise<Identity> {
    if (bearer !== null && this.#keys.size > 0) {
      const identity = this.#keys.match(bearer);
      if (identity) return identity;
    }
    if (asToken && bearer !== null && this.#tokens) return this.#tokens.verify(bearer);
    if (this.#authenticate) {
      const identity = await this.#authenticate(request);
      if (identity !== null) return checkedIdentity(identity);
    }
    throw new AuthRefusal(this.#reasonNoneAccepted(header, bearer));
  }

  /** Why nothing accepted the request (a verified token's refusals are raised by the verifier). */
  #reasonNoneAccepted(header: string | null, bearer: string | null): RefusalReason {
    if (header === null) return 'missing';
    if (this.#keys.size > 0) return 'invalid_key';
    if (this.#authenticate) return 'refused';
    return bearer === null || this.#tokens ? 'malformed' : 'refused';
  }
}

/**
 * What `authenticate` returned, checked and frozen as `via: 'custom'`: a wrong shape is the
 * app's bug (a 500, logged), never a grant of every role by accident.
 */
function checkedIdentity(identity: Identity): Identity {
  const { tenant, user, roles, claims } = identity;
  const ok =
    (tenant === null || (typeof tenant === 'string' && tenant !== '')) &&
    (user === null || typeof user === 'string') &&
    roles instanceof Set &&
    [...roles].every(isRole);
  if (!ok) {
    // A 500 whose message only the server log sees.
    throw new ConfigError(
      'authenticate returned an invalid identity: give {tenant: string | null, user: string | null, ' +
        `roles: Set of ${ROLES.join(', ')}}`,
    );
  }
  return Object.freeze({
    tenant,
    user,
    roles: new Set(roles),
    via: 'custom',
    ...(claims ? { claims } : {}),
  });
}
