/** `GET /health`: 503 `{"status":"starting"}` until the deck is open, then the catalog's names. */
import type { Deck } from '../../deck/deck.js';
import { route } from './routes.js';
import { Health } from './schemas.js';

export interface CatalogNames {
  agents: string[];
  workflows: string[];
  skills: string[];
}

/** The catalog's names, each list sorted (WIRE.md). */
export function catalogNames(deck: Deck<unknown>): CatalogNames {
  return {
    agents: [...deck.agents.keys()].sort(),
    workflows: [...deck.workflows.keys()].sort(),
    skills: [...deck.skills.keys()].sort(),
  };
}

export function healthRoute(deck: Deck<unknown>) {
  return route({
    method: 'get',
    path: '/health',
    summary: 'Whether the deck is open, and its catalog',
    public: true,
    responses: {
      200: { description: 'The deck is open.', schema: Health },
      503: { description: 'The deck is not open yet: `{"status": "starting"}`.' },
    },
    handle: () =>
      deck.state === 'open'
        ? Response.json({ status: 'ok', ...catalogNames(deck) })
        : Response.json({ status: 'starting' }, { status: 503 }),
  });
}
