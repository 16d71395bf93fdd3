/**
 * The requests an open deck's HTTP surface answered, by method, route pattern and status, and
 * how long each took to answer. The surface's middleware reports each one; the labels stay
 * bounded because the route is the matched pattern (`/runs/:id`, `unmatched`), never the raw
 * path, and an unusual method counts as `OTHER`.
 */
import { Counter, Histogram, type Registry } from 'prom-client';

const METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);

/** From a health check to a JSON turn that waits for a model. */
const BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];

const ANSWERED =
  ' A streamed (SSE) response counts when its status and headers are sent, not when its stream ends.';

export class HttpRequestMetrics {
  readonly #requests: Counter<'method' | 'route' | 'status'>;
  readonly #duration: Histogram<'method' | 'route'>;
  readonly #refusals: Counter<'reason'>;
  /** Labelled children by `method route status`: a request costs no label hashing. */
  readonly #children = new Map<string, { inc(): void; observe(seconds: number): void }>();

  constructor(registry: Registry) {
    this.#requests = new Counter({
      name: 'agentdeck_http_requests_total',
      help: `HTTP requests answered, by method, matched route pattern and status.${ANSWERED}`,
      labelNames: ['method', 'route', 'status'],
      registers: [registry],
    });
    this.#duration = new Histogram({
      name: 'agentdeck_http_request_duration_seconds',
      help: `Time to answer an HTTP request, by method and matched route pattern.${ANSWERED}`,
      labelNames: ['method', 'route'],
      buckets: BUCKETS,
      registers: [registry],
    });
    this.#refusals = new Counter({
      name: 'agentdeck_auth_refusals_total',
      help:
        'Requests the authentication gate refused (401, or 503 when the token issuer is down), by ' +
        'reason: missing, invalid_key, malformed, expired, wrong_audience... (docs/authentication.md).',
      labelNames: ['reason'],
      registers: [registry],
    });
  }

  /** Count one refusal; `reason` is one of the gate's closed list, so the series stay bounded. */
  refused(reason: string): void {
    this.#refusals.labels({ reason }).inc();
  }

  /** Count one answered request; `route` is the matched pattern, or `unmatched`. */
  record(method: string, route: string, status: number, seconds: number): void {
    const verb = METHODS.has(method) ? method : 'OTHER';
    const key = `${verb} ${route} ${status}`;
    let child = this.#children.get(key);
    if (!child) {
      const counter = this.#requests.labels({ method: verb, route, status: String(status) });
      const histogram = this.#duration.labels({ method: verb, route });
      child = { inc: () => counter.inc(), observe: (s) => histogram.observe(s) };
      this.#children.set(key, child);
    }
    child.inc();
    child.observe(seconds);
  }
}
