/**
 * Who is calling: the identity a surface establishes for a request (from a verified token, a
 * configured API key, or the app's own `authenticate` function). Its tenant decides whose runs,
 * sessions, threads and inbox items the request sees; its roles decide what it may do. Only the
 * tenant and the user id are ever recorded with a run: claims and tokens never reach the event
 * log. With no authentication configured every request is {@link OPEN_IDENTITY}: no tenant, every
 * role, as a deck with no keys has always been.
 */

/** What a caller may do, each a set of routes (docs/http-api.md lists which). */
export const ROLES = ['read', 'run', 'answer', 'control', 'admin'] as const;
export type Role = (typeof ROLES)[number];

export interface Identity {
  /** The tenant whose runs the caller sees and starts; `null`: no tenants (a single-user service). */
  readonly tenant: string | null;
  /** The user (a token's subject, a key's name), or `null`. */
  readonly user: string | null;
  readonly roles: ReadonlySet<Role>;
  /** How it was established. */
  readonly via: 'open' | 'key' | 'token' | 'custom';
  /** A verified token's claims, for the app's context factory; never recorded. */
  readonly claims?: Readonly<Record<string, unknown>>;
}

/** The identity of every request to a service with no authentication: no tenant, every role. */
export const OPEN_IDENTITY: Identity = Object.freeze({
  tenant: null,
  user: null,
  roles: new Set(ROLES),
  via: 'open',
});

export function isRole(value: unknown): value is Role {
  return typeof value === 'string' && (ROLES as readonly string[]).includes(value);
}
