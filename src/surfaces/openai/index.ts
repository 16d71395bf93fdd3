/**
 * The OpenAI API under `/v1`: the agents as models, chat completions and responses, so an
 * OpenAI client or a chat app (Open WebUI, LibreChat) talks to an agent. A thin reader of
 * the one event stream: routes that start runs through the same deck calls as the rest of
 * the HTTP surface (`turns.ts`), and codecs from canonical events to the API's frames
 * (`chat-codec.ts`, `responses-codec.ts`), kept apart so they are tested on the event corpus.
 */
import type { HttpDeps } from '../http/deps.js';
import { chatCompletionsRoute } from './chat-completions.js';
import { modelsRoutes } from './models.js';
import { responseReadRoute, responsesRoute } from './responses.js';

export { OPENAI_PREFIX, openAiErrorShape } from './errors.js';

export function openAiRoutes(deps: HttpDeps) {
  return [
    ...modelsRoutes(deps),
    chatCompletionsRoute(deps),
    responsesRoute(deps),
    responseReadRoute(deps),
  ];
}
