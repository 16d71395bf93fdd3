/**
 * The middleware that counts each request the app answers for the deck's metrics: method,
 * matched route pattern (`/runs/:id`; `unmatched` when no route matched, so a scan of random
 * paths adds no series), status and time. It runs first, so the gate's 401 and 503, the
 * body limit's 413 and the error handler's answers are counted too. A streamed (SSE)
 * response counts when the handler returns it, that is when its status and headers go out.
 */
import type { Context, MiddlewareHandler } from 'hono';
import { matchedRoutes } from 'hono/route';
import { METHOD_NAME_ALL } from 'hono/router';
import type { HttpMetrics } from './served-deck.js';

export function countRequests(metrics: () => HttpMetrics | null): MiddlewareHandler {
  return async (c, next) => {
    const started = performance.now();
    await next();
    const sink = metrics(); // null before the deck opens: there is nothing to count in yet
    if (!sink) return;
    sink.recordRequest(
      c.req.method,
      routeOf(c),
      c.res.status,
      (performance.now() - started) / 1000,
    );
  };
}

/**
 * The pattern of the route that matched (`/runs/:run_id`), found even when the gate answered
 * before it ran; `unmatched` when only middleware (registered for every method) matched.
 */
function routeOf(c: Context): string {
  return matchedRoutes(c).findLast((r) => r.method !== METHOD_NAME_ALL)?.path ?? 'unmatched';
}
