/**
 * `GET /v1/models` and `GET /v1/models/{model}`: the agents as models (the workflows are not:
 * a chat client can only talk to an agent), in the order of the catalog. `created` is when
 * this app was built, for want of a date per agent.
 */

import type { HttpDeps } from '../http/deps.js';
import { route } from '../http/routes.js';
import { OPENAI_PREFIX } from './errors.js';
import { Model, ModelList, OpenAiErrorSchema } from './schemas.js';
import { agentOf } from './turns.js';

export function modelsRoutes(deps: HttpDeps) {
  const created = Math.floor(Date.now() / 1000);
  const model = (id: string) => ({
    id,
    object: 'model' as const,
    created,
    owned_by: 'agentdeck' as const,
  });
  const list = route({
    method: 'get',
    path: `${OPENAI_PREFIX}/models`,
    role: 'read',
    summary: 'OpenAI models: the agents',
    description: 'Each agent as a model whose `id` is its name; workflows are not listed.',
    tag: 'openai',
    responses: { 200: { description: 'The agents.', schema: ModelList } },
    handle() {
      return Response.json({ object: 'list', data: [...deps.deck.agents.keys()].map(model) });
    },
  });
  const one = route({
    method: 'get',
    path: `${OPENAI_PREFIX}/models/{model}`,
    role: 'read',
    summary: 'An OpenAI model: one agent',
    description: 'The agent named `model`, as a model; 404 `model_not_found` for another name.',
    tag: 'openai',
    responses: {
      200: { description: 'The agent.', schema: Model },
      404: { description: 'No agent by that name (`model_not_found`).', schema: OpenAiErrorSchema },
    },
    handle({ params }) {
      return Response.json(model(agentOf(deps, params.model ?? '')));
    },
  });
  return [list, one];
}
