/**
 * `GET /v1/models`: the agents as models (the workflows are not: a chat client can only
 * talk to an agent), in the order of the catalog. `created` is when this app was built,
 * for want of a date per agent.
 */

import type { HttpDeps } from '../http/deps.js';
import { route } from '../http/routes.js';
import { OPENAI_PREFIX } from './errors.js';
import { ModelList } from './schemas.js';

export function modelsRoute(deps: HttpDeps) {
  const created = Math.floor(Date.now() / 1000);
  return route({
    method: 'get',
    path: `${OPENAI_PREFIX}/models`,
    role: 'read',
    summary: 'OpenAI models: the agents',
    description: 'Each agent as a model whose `id` is its name; workflows are not listed.',
    tag: 'openai',
    responses: { 200: { description: 'The agents.', schema: ModelList } },
    handle() {
      const data = [...deps.deck.agents.keys()].map((id) => ({
        id,
        object: 'model' as const,
        created,
        owned_by: 'agentdeck' as const,
      }));
      return Response.json({ object: 'list', data });
    },
  });
}
