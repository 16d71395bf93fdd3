/**
 * The native surface (SPEC.md point 6, WIRE.md): `POST /v2/invocables/{name}/chat` streams
 * a run's canonical events as SSE, `data: <canonical event JSON>` per event. It exists and
 * is tested, but no command mounts it: `deck.app()` does not include it, and it is not
 * exported from the package.
 */
import type { z } from 'zod';
import { errorMessage, errorTypeName } from '../../core/errors.js';
import type { Event } from '../../core/events.js';
import { toWire } from '../../core/events.js';
import { buildApp } from './build.js';
import { type HttpDeps, makeDeps, unknownName } from './deps.js';
import type { AppOptions } from './options.js';
import { route } from './routes.js';
import { Detail, NativeChatBody } from './schemas.js';
import type { DeckGrants, ServedDeck } from './served-deck.js';
import { formatFrame, sseResponse } from './sse.js';
import { scopeByTenant } from './tenancy.js';

export function nativeRoutes(deps: HttpDeps) {
  return [
    route<z.infer<typeof NativeChatBody>>({
      method: 'post',
      path: '/v2/invocables/{name}/chat',
      role: 'run',
      summary: 'Play an agent turn or a workflow run; stream its canonical events',
      tag: 'native',
      body: { schema: NativeChatBody, description: 'The session and the message.' },
      responses: {
        200: { description: 'One `data:` frame per canonical event.', sse: true },
        404: { description: 'No agent or workflow by that name.', schema: Detail },
        409: { description: 'The session is busy.', schema: Detail },
      },
      async handle({ params, body, request }) {
        const { deck } = deps;
        const name = params.name ?? '';
        if (!deck.agents.has(name) && !deck.workflows.has(name)) {
          throw unknownName('agent', name, [...deck.agents.keys(), ...deck.workflows.keys()]);
        }
        const options = { sessionId: body.session_id, ...(await deps.runContext(request)) };
        const events = deck.stream(name, body.message, options);
        const first = await events.next();
        return sseResponse(eventFrames(first, events, deps.log), () => events.return());
      },
    }),
  ];
}

/** An app with only the native routes (for tests and a future command). */
export function createNativeApp<C>(deck: ServedDeck<C>, options: AppOptions<C> = {}) {
  // No grants: the native routes read no log, and a client that leaves ends its run at the next event.
  const grants = {
    eventLog: () => null,
    stopRun: () => false,
    readiness: () => null,
    streamForResult: deck.stream.bind(deck) as DeckGrants['streamForResult'],
  };
  const scoped = scopeByTenant(deck, grants);
  const deps = makeDeps(scoped.deck, scoped.grants, options);
  return buildApp(deps, nativeRoutes(deps), options);
}

async function* eventFrames(
  first: IteratorResult<Event, void>,
  events: AsyncGenerator<Event, void, undefined>,
  log: HttpDeps['log'],
) {
  try {
    for (let step = first; !step.done; step = await events.next()) {
      yield formatFrame({ data: toWire(step.value) });
    }
  } catch (error) {
    log(`[agentdeck] native stream failed with ${errorTypeName(error)}: ${errorMessage(error)}`);
  } finally {
    await events.return();
  }
}
