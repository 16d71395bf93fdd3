/**
 * Short-lived tokens for a browser's `EventSource`, which cannot send an `Authorization`
 * header: a caller with the `read` role asks `POST /runs/{run_id}/events-token` and gets a
 * token that `GET /runs/{run_id}/events?access_token=...` accepts for that run only, for five
 * minutes, as the same tenant and user, with the `read` role and nothing more. A front end's
 * backend (holding the user's real token) asks for it and hands it to the page; the real
 * token never reaches a URL, where proxies and browser history would keep it.
 *
 * A token is `<payload>.<mac>`, both base64url: the payload `{r: run, t: tenant, u: user,
 * e: expiry in Unix seconds}` and an HMAC-SHA256 of it under the app's secret (random per
 * process, or `eventsTokenSecret` / `SERVICE_EVENTS_TOKEN_SECRET` so that every replica behind
 * a load balancer accepts the others'). Stateless: nothing to store, nothing to revoke but by
 * waiting out the expiry (or changing the secret).
 */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Context } from 'hono';
import type { Identity, Role } from '../../core/identity.js';
import { detailResponse } from './errors.js';

/** How long a token is accepted: long enough to open (and reopen) a stream, short if leaked. */
export const EVENTS_TOKEN_SECONDS = 300;

/** Longer than any token this issues (ids are at most 1,024 bytes): refused unread. */
const MAX_TOKEN_CHARS = 4096;

const CONTEXT = 'agentdeck events-token v1\n';

/** The query parameter `GET /runs/{run_id}/events` reads a token from. */
export const ACCESS_TOKEN_PARAM = 'access_token';

const EVENTS_PATH = /^\/runs\/([^/]+)\/events$/;

interface Payload {
  r: string;
  t: string | null;
  u: string | null;
  e: number;
}

export interface IssuedToken {
  token: string;
  /** When it stops being accepted, ISO 8601. */
  expiresAt: string;
}

/** Why a token was refused: said in the 401, without echoing the token. */
export type TokenRefusal = 'malformed' | 'bad signature' | 'expired' | 'another run';

export class EventsTokens {
  readonly #secret: Buffer;
  readonly #now: () => number;

  /**
   * @param secret shared by every replica that must accept the others' tokens; random when
   *   left out (each process accepts its own tokens only).
   * @param now the clock, in milliseconds (tests move it).
   */
  constructor(secret?: string, now: () => number = Date.now) {
    if (secret !== undefined && secret.length < 32) {
      throw new Error('the events-token secret must be at least 32 characters');
    }
    this.#secret = secret === undefined ? randomBytes(32) : Buffer.from(secret);
    this.#now = now;
  }

  /** A token for `runId`'s events, as `identity` (its tenant and user). */
  issue(runId: string, identity: Identity): IssuedToken {
    const expiry = Math.floor(this.#now() / 1000) + EVENTS_TOKEN_SECONDS;
    const payload: Payload = { r: runId, t: identity.tenant, u: identity.user, e: expiry };
    const body = Buffer.from(JSON.stringify(payload)).toString('base64url');
    return {
      token: `${body}.${this.#mac(body).toString('base64url')}`,
      expiresAt: new Date(expiry * 1000).toISOString(),
    };
  }

  /** The identity `token` grants for reading `runId`'s events, or why it grants none. */
  verify(token: string, runId: string): Identity | TokenRefusal {
    if (token.length > MAX_TOKEN_CHARS) return 'malformed';
    const [body, mac, extra] = token.split('.');
    if (!body || !mac || extra !== undefined) return 'malformed';
    const given = Buffer.from(mac, 'base64url');
    const expected = this.#mac(body);
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
      return 'bad signature';
    }
    const payload = parsePayload(body);
    if (payload === null) return 'malformed';
    if (payload.e * 1000 <= this.#now()) return 'expired';
    if (payload.r !== runId) return 'another run';
    const roles: ReadonlySet<Role> = new Set<Role>(['read']);
    return { tenant: payload.t, user: payload.u, roles, via: 'token' };
  }

  #mac(body: string): Buffer {
    return createHmac('sha256', this.#secret).update(CONTEXT).update(body).digest();
  }
}

function parsePayload(body: string): Payload | null {
  try {
    const value = JSON.parse(Buffer.from(body, 'base64url').toString('utf8')) as Partial<Payload>;
    const nullableString = (v: unknown) => v === null || typeof v === 'string';
    if (typeof value.r !== 'string' || typeof value.e !== 'number') return null;
    if (!nullableString(value.t) || !nullableString(value.u)) return null;
    return value as Payload;
  } catch {
    return null;
  }
}

/**
 * Before the gate's own checks: a `GET /runs/{run_id}/events` carrying `?access_token=` is
 * the token's identity (for the gate to attach), or the 401 saying why it was refused. Any
 * other request, and one with no such parameter, is `null`: the gate checks it as usual, so
 * the token opens that one route and nothing else.
 */
export function eventsTokenIdentity(c: Context, tokens: EventsTokens): Identity | Response | null {
  const token = c.req.query(ACCESS_TOKEN_PARAM);
  const match = c.req.method === 'GET' ? EVENTS_PATH.exec(c.req.path) : null;
  if (token === undefined || !match?.[1]) return null;
  const verdict = tokens.verify(token, decodeURIComponent(match[1]));
  if (typeof verdict !== 'string') return verdict;
  return detailResponse(401, `the events token was refused: ${verdict}`, {
    'www-authenticate': 'Bearer error="invalid_token"',
  });
}
