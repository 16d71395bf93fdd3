/**
 * Browsers: which web pages may call the service, and none that were not allowed.
 *
 * CORS (`hono/cors`) is off unless origins are allowed (`SERVICE_CORS_ORIGINS`, the app's
 * `corsOrigins`, `service-serve --cors-origin`): then their preflights are answered before the
 * API-key gate, and their responses expose `X-Run-Id` and `Retry-After`.
 *
 * Cross-origin protection, always on: a state-changing request (anything but GET, HEAD and
 * OPTIONS) that a browser sent from another origin is refused with 403 unless that origin
 * is allowed. A page can send a POST without a preflight (`mode: 'no-cors'`, a form); its
 * response is opaque to the page, but the request would still start or stop a run. Browsers
 * say where a request comes from (`Sec-Fetch-Site`, `Origin`); a client that is not a browser
 * (curl, a server, the SDK) sends neither and is not affected. The JSON routes also refuse a
 * body that is not JSON (json-body.ts), which a form cannot send.
 */
import type { MiddlewareHandler } from 'hono';
import { cors } from 'hono/cors';
import { detailResponse, RUN_ID_HEADER } from './errors.js';

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/** CORS for `origins` (`*`: any); `null` when none is allowed (CORS off). */
export function corsFor(origins: readonly string[]): MiddlewareHandler | null {
  if (origins.length === 0) return null;
  return cors({
    origin: origins.includes('*') ? '*' : [...origins],
    allowMethods: ['GET', 'POST', 'OPTIONS'],
    // X-Session-Id: the OpenAI API's session (`../openai/turns.ts`); Mcp-*: what the MCP
    // clients send (`../mcp/`); A2A-Version: what the A2A client sends (`../a2a/`), from a
    // page's own client. (An MCP client's `Mcp-Param-*` headers cannot be listed ahead.)
    allowHeaders: [
      'Content-Type',
      'Authorization',
      'Last-Event-ID',
      'X-Session-Id',
      'Mcp-Protocol-Version',
      'Mcp-Session-Id',
      'Mcp-Method',
      'Mcp-Name',
      'A2A-Version',
    ],
    exposeHeaders: [RUN_ID_HEADER, 'Retry-After', 'Mcp-Session-Id'],
    maxAge: 600,
  });
}

/** Refuse a state-changing request a browser sent from an origin that is not allowed. */
export function crossOriginProtection(origins: readonly string[]): MiddlewareHandler {
  const allowed = new Set(origins);
  return async (c, next) => {
    if (SAFE_METHODS.has(c.req.method)) return next();
    const site = c.req.header('sec-fetch-site');
    if (site === 'same-origin' || site === 'none') return next();
    const origin = c.req.header('origin');
    if (origin === undefined && site === undefined) return next(); // not a browser
    if (origin !== undefined && (allowed.has('*') || allowed.has(origin))) return next();
    if (origin !== undefined && origin === new URL(c.req.url).origin) return next();
    return detailResponse(
      403,
      `cross-origin request from '${origin ?? site}' refused: a browser page on another origin ` +
        'may call this service only when its origin is allowed (SERVICE_CORS_ORIGINS, ' +
        'deck.app({ corsOrigins }) or service-serve --cors-origin)',
    );
  };
}
