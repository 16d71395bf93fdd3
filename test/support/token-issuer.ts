/**
 * Test support: an OAuth/OIDC issuer on 127.0.0.1, as the token tests need one. It holds key
 * pairs the test generates with jose, publishes the public halves it is told to at `/jwks`
 * (and its OpenID configuration, for discovery), signs tokens with any of them, counts the
 * key-set fetches, and can be stopped and started again on the same port (an issuer down
 * and back).
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, exportSPKI, generateKeyPair, type JWK, type JWTPayload, SignJWT } from 'jose';

interface KeyPair {
  privateKey: CryptoKey;
  publicKey: CryptoKey;
  jwk: JWK;
}

export class TestIssuer {
  readonly #keys = new Map<string, KeyPair>();
  #published: string[] = [];
  #server: Server | null = null;
  #port = 0;
  /** How many times `/jwks` was fetched. */
  jwksFetches = 0;

  /** The issuer URL, as tokens name it (`iss`) and discovery finds it. */
  get url(): string {
    return `http://127.0.0.1:${this.#port}`;
  }

  async start(): Promise<void> {
    const server = createServer((request, response) => {
      const send = (body: unknown) => {
        response.writeHead(200, { 'content-type': 'application/json' });
        response.end(JSON.stringify(body));
      };
      if (request.url === '/.well-known/openid-configuration') {
        send({ issuer: this.url, jwks_uri: `${this.url}/jwks` });
      } else if (request.url === '/jwks') {
        this.jwksFetches += 1;
        send({ keys: this.#published.map((kid) => this.#keys.get(kid)?.jwk) });
      } else {
        response.writeHead(404).end();
      }
    });
    await new Promise<void>((resolve) => server.listen(this.#port, '127.0.0.1', resolve));
    this.#port = (server.address() as AddressInfo).port;
    this.#server = server;
  }

  /** Stop answering (connections refused) until {@link start} again. */
  async stop(): Promise<void> {
    const server = this.#server;
    this.#server = null;
    if (!server) return;
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  /** A new key pair named `kid` (not published until {@link publish} says so). */
  async addKey(kid: string, alg = 'RS256'): Promise<void> {
    const { privateKey, publicKey } = await generateKeyPair(alg, { extractable: true });
    const jwk = { ...(await exportJWK(publicKey)), kid, alg, use: 'sig' };
    this.#keys.set(kid, { privateKey, publicKey, jwk });
  }

  /** Publish exactly these keys at `/jwks`. */
  publish(...kids: string[]): void {
    this.#published = kids;
  }

  /** The PEM of `kid`'s public key: what an attacker signs HS256 tokens with. */
  async publicPem(kid: string): Promise<string> {
    return exportSPKI(this.#pair(kid).publicKey);
  }

  /** A token signed with `kid`'s private key; `claims` over a valid set (iss, sub, aud, exp). */
  async sign(kid: string, claims: Record<string, unknown> = {}, alg = 'RS256'): Promise<string> {
    return new SignJWT({ ...this.claims(), ...claims })
      .setProtectedHeader({ alg, kid, typ: 'JWT' })
      .sign(this.#pair(kid).privateKey);
  }

  /** A valid claim set for audience `api://deck`, a minute long. */
  claims(): JWTPayload {
    const now = Math.floor(Date.now() / 1000);
    return { iss: this.url, sub: 'user-1', aud: 'api://deck', iat: now, exp: now + 60 };
  }

  #pair(kid: string): KeyPair {
    const pair = this.#keys.get(kid);
    if (!pair) throw new Error(`no key '${kid}'`);
    return pair;
  }
}

/** An HS256 token signed with `secret` (bytes or text), `claims` as given. */
export function hs256(
  secret: string | Uint8Array,
  claims: JWTPayload,
  kid?: string,
): Promise<string> {
  const key = typeof secret === 'string' ? new TextEncoder().encode(secret) : secret;
  return new SignJWT(claims)
    .setProtectedHeader({ alg: 'HS256', ...(kid ? { kid } : {}) })
    .sign(key);
}

/** An unsigned token (`alg: none`), as an attacker writes one by hand. */
export function unsigned(claims: JWTPayload, kid?: string): string {
  const part = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
  return `${part({ alg: 'none', typ: 'JWT', ...(kid ? { kid } : {}) })}.${part(claims)}.`;
}
