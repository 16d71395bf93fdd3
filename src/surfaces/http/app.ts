/**
 * `deck.app()`: the HTTP surface of a deck, wire-compatible with release 1.2.1 (WIRE.md)
 * plus additive routes to read runs and their events, and `/openapi.json`. Every handler
 * passes plain arguments to the deck's methods, so an HTTP-started run is recorded exactly
 * as `deck.run`/`deck.stream` records it.
 */

import { a2aRoutes } from '../a2a/routes.js';
import { aiSdkRoutes } from '../ai-sdk/routes.js';
import { mcpRoutes } from '../mcp/endpoint.js';
import { resolveMcpSettings } from '../mcp/options.js';
import { openAiRoutes } from '../openai/index.js';
import { agentRoutes } from './agents.js';
import { resourceMetadataRoutes } from './auth/resource-metadata.js';
import { backgroundRoutes } from './background.js';
import { authenticationIsOn, buildApp, type DeckApp } from './build.js';
import { callerRoutes } from './caller.js';
import { controlRoutes } from './control.js';
import { makeDeps } from './deps.js';
import { evalsRoutes } from './evals.js';
import { EventsTokens } from './events-token.js';
import { healthRoute, readinessRoute } from './health.js';
import { inboxRoutes } from './inbox.js';
import { metricsRoute } from './metrics.js';
import { modelCallRoutes } from './model-calls.js';
import type { AppOptions } from './options.js';
import { replayRoutes } from './replays.js';
import { runRoutes } from './runs.js';
import { scheduleRoutes } from './schedules.js';
import type { DeckGrants, ServedDeck } from './served-deck.js';
import { studioRoutes } from './studio.js';
import { scopeByTenant } from './tenancy.js';
import { timerRoutes } from './timers.js';
import { workflowRoutes } from './workflows.js';

export type { DeckApp } from './build.js';
export type { AppOptions } from './options.js';

/**
 * Build the app for `deck`. `grants` are what only the deck can give (its event log, null
 * until it is open; stopping a run; readiness; metrics): `deck.app()` passes them.
 */
export function createApp<C>(
  deck: ServedDeck<C>,
  grants: DeckGrants,
  options: AppOptions<C> = {},
): DeckApp {
  // Every call through these acts as the request's tenant (tenancy.ts).
  const scoped = scopeByTenant(deck, grants);
  const deps = makeDeps(scoped.deck, scoped.grants, options);
  const secret =
    options.eventsTokenSecret ?? (process.env.SERVICE_EVENTS_TOKEN_SECRET || undefined);
  const eventsTokens = new EventsTokens(secret);
  return buildApp(
    deps,
    [
      healthRoute(deps.deck),
      readinessRoute(deps),
      ...callerRoutes(deps, eventsTokens),
      ...agentRoutes(deps),
      ...workflowRoutes(deps),
      ...controlRoutes(deps),
      ...inboxRoutes(deps),
      ...runRoutes(deps),
      ...modelCallRoutes(deps),
      ...replayRoutes(deps),
      ...backgroundRoutes(deps),
      ...timerRoutes(deps),
      ...scheduleRoutes(deps),
      ...studioRoutes(deps, scoped.grants),
      ...evalsRoutes(deps, scoped.grants),
      ...aiSdkRoutes(deps),
      metricsRoute(deps),
      // With tokens, OAuth clients (MCP's) learn where to get one (RFC 9728).
      ...resourceMetadataRoutes(options, deck.name),
      ...openAiRoutes(deps),
      ...mcpRoutes(deps, resolveMcpSettings(options.mcp)),
      ...a2aRoutes(deps, scoped.grants, {
        secured: authenticationIsOn(options),
      }),
    ],
    options,
    eventsTokens,
  );
}
