/**
 * What the model saw, as sent (#41): the deck's OpenAI client tells the turn whose model
 * request it makes the body it was handed (`responses.create`, `chat.completions.create`), so
 * the turn records the request exactly as the provider receives it rather than the engine's
 * form of it (`model-call-log.ts`). The engine's OpenAI models build the body and hand it to
 * the client synchronously when a request starts, so the body is known before the request
 * leaves. Only a turn that records its model calls is told (`turn-context.ts` rule 6); a
 * model object an agent brings keeps its own client, and is recorded in the engine's form.
 */
import type OpenAI from 'openai';
import { currentTurnCalls } from './turn-context.js';

type Create = (params: unknown, options?: unknown) => unknown;

/** `client`, telling the current turn each request body it is handed. */
export function withSentBodies(client: OpenAI): OpenAI {
  tellBodiesOf(client.responses as unknown as { create: Create }, 'responses');
  tellBodiesOf(client.chat.completions as unknown as { create: Create }, 'chat');
  return client;
}

function tellBodiesOf(resource: { create: Create }, api: 'responses' | 'chat'): void {
  const create = resource.create.bind(resource);
  resource.create = (params, options) => {
    const calls = currentTurnCalls();
    if (calls?.modelCalls && typeof params === 'object' && params !== null) {
      calls.sent = { api, body: params as Record<string, unknown> };
    }
    return create(params, options);
  };
}
