/**
 * The identity of each request, as the gate (build.ts) established it, for the routes of
 * every surface: `identityOf(request)` gives it, {@link OPEN_IDENTITY} when nothing was
 * attached (no authentication configured). Kept beside the request object rather than in
 * Hono's context so that handlers written against the plain `Request` (routes.ts, the MCP
 * and A2A adapters) read it the same way.
 */
import { type Identity, OPEN_IDENTITY } from '../../core/identity.js';

const identities = new WeakMap<Request, Identity>();

/** Attach the identity the gate established for `request`. */
export function attachIdentity(request: Request, identity: Identity): void {
  identities.set(request, identity);
}

/** The identity the gate established for `request`; {@link OPEN_IDENTITY} if none. */
export function identityOf(request: Request): Identity {
  return identities.get(request) ?? OPEN_IDENTITY;
}
