/**
 * `GET /health` (liveness, as 1.2.1 has it): 503 `{"status":"starting"}` until the deck is
 * open, then the catalog's names. `GET /health/ready` (readiness): 200 only while every
 * backend the deck was configured with answers (deck/readiness.ts), else 503 naming the one
 * that does not, with `Retry-After`.
 */
import type { HttpDeps } from './deps.js';
import { route } from './routes.js';
import { Health, Ready, Starting } from './schemas.js';
import type { ServedDeck } from './served-deck.js';

export interface CatalogNames {
  agents: string[];
  workflows: string[];
  skills: string[];
}

/** The catalog's names, each list sorted (WIRE.md). */
export function catalogNames(
  deck: Pick<ServedDeck, 'agents' | 'workflows' | 'skills'>,
): CatalogNames {
  return {
    agents: [...deck.agents.keys()].sort(),
    workflows: [...deck.workflows.keys()].sort(),
    skills: [...deck.skills.keys()].sort(),
  };
}

export function healthRoute(deck: ServedDeck) {
  return route({
    method: 'get',
    path: '/health',
    role: null,
    summary: 'Whether the deck is open, and its catalog',
    tag: 'health',
    public: true,
    responses: {
      200: { description: 'The deck is open.', schema: Health },
      503: { description: 'The deck is not open yet: `{"status": "starting"}`.', schema: Starting },
    },
    handle: () =>
      deck.state === 'open'
        ? Response.json({ status: 'ok', ...catalogNames(deck) })
        : Response.json({ status: 'starting' }, { status: 503 }),
  });
}

export function readinessRoute(deps: HttpDeps) {
  return route({
    method: 'get',
    path: '/health/ready',
    role: null,
    summary: 'Whether every backend the deck uses answers now (readiness)',
    description:
      'Asks the event store, the session backend and the checkpointer (when it has a server ' +
      'of its own) at once, each within 2 s. For a load balancer or an orchestrator: take the ' +
      'process out of rotation on 503, do not restart it (`GET /health` is liveness). ' +
      "`layout` is the event store's schema layout: its version, this code's, and the oldest " +
      'layout (and release) that can still use it, for a rolling upgrade.',
    tag: 'health',
    public: true,
    responses: {
      200: { description: 'Every backend answers.', schema: Ready },
      503: {
        description: 'A backend does not answer (with `Retry-After`), or the deck is not open yet.',
        schema: Ready,
        headers: ['Retry-After'],
      },
    },
    handle: async () => {
      const readiness = deps.readiness();
      if (!readiness) return Response.json({ status: 'starting', checks: [] }, { status: 503 });
      const { ready, checks, retryAfterSeconds, layout } = await readiness;
      const shown = layout ? { layout } : {};
      if (ready) return Response.json({ status: 'ready', checks, ...shown });
      const detail = checks
        .filter((check) => !check.ok)
        .map((check) => check.detail ?? `${check.backend} (${check.role}) failed`)
        .join('; ');
      return Response.json(
        { status: 'unavailable', detail, checks, ...shown },
        { status: 503, headers: { 'retry-after': String(retryAfterSeconds) } },
      );
    },
  });
}
