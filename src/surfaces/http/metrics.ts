/**
 * `GET /metrics`: the open deck's metrics in the Prometheus text format (the metrics and what
 * they mean: docs/deployment.md, "Watching the service"). Not public: with API keys set, a
 * scraper sends one as a bearer token like any client; before the deck is open it is 503.
 */
import type { HttpDeps } from './deps.js';
import { HttpError } from './errors.js';
import { route } from './routes.js';

export function metricsRoute(deps: HttpDeps) {
  return route({
    method: 'get',
    path: '/metrics',
    role: 'admin',
    summary: 'Metrics in the Prometheus text format',
    tag: 'metrics',
    responses: {
      200: {
        description: 'Every metric of the open deck (Prometheus text exposition format 0.0.4).',
        text: 'text/plain; version=0.0.4; charset=utf-8',
      },
    },
    handle: async () => {
      const metrics = deps.metrics();
      if (!metrics) throw new HttpError(503, `deck '${deps.deck.name}' not started`);
      const { contentType, body } = await metrics.scrape();
      return new Response(body, { headers: { 'content-type': contentType } });
    },
  });
}
