/**
 * The issuer's signing keys, for verifying tokens: found by OIDC discovery (or a configured
 * JWKS URL), fetched and cached by jose's `createRemoteJWKSet`, which refetches them when a
 * token names an unknown `kid` (at most once per cooldown, so a stream of tokens with made-up
 * `kid`s cannot make the service hammer its issuer) and when they are older than their
 * maximum age. What this adds to jose is the issuer being down: a fetch that fails (no
 * answer, not 200, not JSON, not a key set) is an outage, never the client's fault. The keys
 * fetched before keep verifying the tokens they sign, however old; a token whose key is not
 * among them is a 503 naming the issuer; and no fetch is tried again until the cooldown has
 * passed, so each request does not wait on a dead issuer.
 */
import {
  createLocalJWKSet,
  createRemoteJWKSet,
  customFetch,
  errors,
  type FlattenedJWSInput,
  type JWSHeaderParameters,
} from 'jose';
import { AuthRefusal } from './refusals.js';

/** A fetch of the issuer that failed: an outage. */
class IssuerDown extends Error {
  override name = 'IssuerDown';
}

export interface IssuerKeysSettings {
  issuer: string;
  /** The JWKS URL; `null`: discover it from the issuer. */
  jwksUrl: string | null;
  cooldownMs: number;
  maxAgeMs: number;
  /** The longest one fetch of the issuer may take. @default 5000 */
  timeoutMs?: number;
}

type KeyLookup = ReturnType<typeof createRemoteJWKSet>;

export class IssuerKeys {
  readonly #settings: IssuerKeysSettings;
  readonly #now: () => number;
  #remote: KeyLookup | null = null;
  /** When a fetch last failed: none is tried again within the cooldown. */
  #failedAt = Number.NEGATIVE_INFINITY;
  #lastFailure = '';

  constructor(settings: IssuerKeysSettings, now: () => number = Date.now) {
    this.#settings = settings;
    this.#now = now;
  }

  /** The key that verifies `token`; throws `AuthRefusal('issuer_unavailable')` for an outage. */
  async key(header: JWSHeaderParameters, token: FlattenedJWSInput): Promise<CryptoKey> {
    if (this.#now() - this.#failedAt < this.#settings.cooldownMs)
      return this.#cached(header, token);
    try {
      const remote = this.#remote ?? (await this.#discover());
      return (await remote(header, token)) as CryptoKey;
    } catch (error) {
      if (!(error instanceof IssuerDown) && !(error instanceof errors.JWKSInvalid)) throw error;
      this.#failedAt = this.#now();
      this.#lastFailure = error.message;
      return this.#cached(header, token);
    }
  }

  /** The key among those fetched before, while the issuer is down. */
  async #cached(header: JWSHeaderParameters, token: FlattenedJWSInput): Promise<CryptoKey> {
    const known = this.#remote?.jwks();
    if (known) {
      try {
        return (await createLocalJWKSet(known)(header, token)) as CryptoKey;
      } catch (error) {
        if (!(error instanceof errors.JWKSNoMatchingKey)) throw error;
      }
    }
    throw new AuthRefusal('issuer_unavailable', `${this.#settings.issuer} (${this.#lastFailure})`);
  }

  async #discover(): Promise<KeyLookup> {
    const url = this.#settings.jwksUrl ?? (await this.#jwksUri());
    this.#remote = createRemoteJWKSet(new URL(url), {
      cooldownDuration: this.#settings.cooldownMs,
      cacheMaxAge: this.#settings.maxAgeMs,
      timeoutDuration: this.#settings.timeoutMs ?? 5000,
      [customFetch]: (input: string | URL | Request, init?: RequestInit) =>
        fetchOrDown(input, init),
    });
    return this.#remote;
  }

  /** The `jwks_uri` of the issuer's OpenID configuration, which must name the same issuer. */
  async #jwksUri(): Promise<string> {
    const base = this.#settings.issuer.replace(/\/+$/, '');
    const response = await fetchOrDown(`${base}/.well-known/openid-configuration`, {
      signal: AbortSignal.timeout(this.#settings.timeoutMs ?? 5000),
      headers: { accept: 'application/json' },
    });
    const config = (await response.json()) as { issuer?: unknown; jwks_uri?: unknown };
    // A discovery document for another issuer would make tokens of that one verify here.
    if (config.issuer !== this.#settings.issuer) {
      throw new IssuerDown('its OpenID configuration names another issuer');
    }
    if (typeof config.jwks_uri !== 'string') {
      throw new IssuerDown('its OpenID configuration has no jwks_uri');
    }
    return config.jwks_uri;
  }
}

/**
 * `fetch`, with every way it can fail turned into {@link IssuerDown}: no answer, a timeout, a
 * status other than 200, a body that is not JSON. The body is read here (and handed on as a
 * new response) so that jose never sees a half-read or unparsable one.
 */
async function fetchOrDown(input: string | URL | Request, init?: RequestInit): Promise<Response> {
  let response: Response;
  try {
    response = await fetch(input, { ...init, redirect: 'manual' });
  } catch (error) {
    const timedOut = (error as Error).name === 'TimeoutError';
    throw new IssuerDown(timedOut ? 'no answer in time' : 'unreachable', { cause: error });
  }
  if (response.status !== 200) {
    await response.body?.cancel();
    throw new IssuerDown(`answered ${response.status}`);
  }
  let text: string;
  try {
    text = await response.text();
    JSON.parse(text);
  } catch (error) {
    throw new IssuerDown('answered with no JSON', { cause: error });
  }
  return new Response(text, { status: 200, headers: { 'content-type': 'application/json' } });
}
