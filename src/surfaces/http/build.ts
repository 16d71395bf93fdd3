/**
 * Assembles a Hono app from routes: the error handler (errors.ts), request metrics, the `Host`
 * check (hosts.ts), CORS and cross-origin protection (browsers.ts), the run inspector's files
 * under `/ui` (../ui/ui-app.ts), the 503 gate until the deck is open, bearer keys, the
 * body-size limit, then the routes and `/openapi.json`.
 */
import { timingSafeEqual } from 'node:crypto';
import { Hono } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { mountUi, type UiMode } from '../ui/ui-app.js';
import { corsFor, crossOriginProtection } from './browsers.js';
import type { HttpDeps } from './deps.js';
import { detailResponse, errorResponse } from './errors.js';
import { checkHosts, hostCheck } from './hosts.js';
import { openApiDocument } from './openapi.js';
import { type AppOptions, appSettingsFromEnv, checkOrigins } from './options.js';
import { countRequests } from './request-metrics.js';
import { mount, type Route, route } from './routes.js';
import { OpenApiDocument } from './schemas.js';

export type DeckApp = Hono;

export function buildApp<C>(deps: HttpDeps, routes: Route[], options: AppOptions<C>): DeckApp {
  const settings = { ...appSettingsFromEnv(), ...definedOptions(options) };
  const keys = settings.apiKeys.map((k) => Buffer.from(k));
  const app = new Hono();
  app.onError((error) => errorResponse(error, deps.log));
  app.notFound(() => detailResponse(404, 'Not Found'));
  const publicPaths = new Set(routes.filter((r) => r.public).map((r) => r.path));
  app.use('*', countRequests(deps.metrics));
  const checkHost = hostCheck(settings.allowedHosts ?? ['*']);
  if (checkHost) app.use('*', checkHost);
  // CORS answers preflights before the key gate; cross-origin protection refuses the rest.
  const allowCors = corsFor(settings.corsOrigins);
  if (allowCors) app.use('*', allowCors);
  app.use('*', crossOriginProtection(settings.corsOrigins));
  // The inspector's files, in front of the gate: the page asks for a key, then calls the API.
  mountUi(app, settings.ui);

  app.use('*', async (c, next) => {
    if (publicPaths.has(c.req.path)) return next();
    if (deps.deck.state !== 'open')
      return detailResponse(503, `deck '${deps.deck.name}' not started`);
    if (keys.length > 0 && !authorized(c.req.header('authorization'), keys)) {
      return detailResponse(401, 'missing or invalid API key: send Authorization: Bearer <key>', {
        'www-authenticate': 'Bearer',
      });
    }
    return next();
  });
  const tooLarge = () =>
    detailResponse(413, `the request body is over the ${settings.maxBodyBytes}-byte limit`);
  const countedLimit = bodyLimit({ maxSize: settings.maxBodyBytes, onError: tooLarge });
  app.use('*', (c, next) => {
    // A body with a length is judged by its header, before anything is read: touching the
    // body stream would cost the server's direct read of it (a web stream per request).
    const length = Number(c.req.header('content-length') ?? Number.NaN);
    if (Number.isSafeInteger(length) && c.req.header('transfer-encoding') === undefined) {
      return length > settings.maxBodyBytes ? Promise.resolve(tooLarge()) : next();
    }
    return countedLimit(c, next); // chunked, or no body: counted as it is read
  });

  const all = [
    ...routes,
    route({
      method: 'get',
      path: '/openapi.json',
      summary: 'This OpenAPI document',
      tag: 'openapi',
      responses: { 200: { description: 'An OpenAPI 3.1 document.', schema: OpenApiDocument } },
      handle: () => Response.json(document),
    }),
  ];
  const document = openApiDocument(all, {
    title: `${deps.deck.name} (agentdeck)`,
    // The wire version its routes are compatible with; the routes beyond it are additive.
    version: '1.2.1',
    secured: keys.length > 0,
  });
  mount(app, all);
  return app;
}

function authorized(header: string | undefined, keys: readonly Buffer[]): boolean {
  const match = /^Bearer\s+(.+)$/i.exec(header ?? '');
  if (!match?.[1]) return false;
  const given = Buffer.from(match[1].trim());
  // Compare against every key, in constant time per key, so timing does not reveal which matched.
  let ok = false;
  for (const key of keys) {
    if (key.length === given.length && timingSafeEqual(key, given)) ok = true;
  }
  return ok;
}

function definedOptions(options: AppOptions<unknown>) {
  const out: {
    apiKeys?: readonly string[];
    maxBodyBytes?: number;
    corsOrigins?: readonly string[];
    ui?: UiMode;
    allowedHosts?: readonly string[];
  } = {};
  if (options.apiKeys !== undefined) out.apiKeys = options.apiKeys;
  if (options.corsOrigins !== undefined) out.corsOrigins = checkOrigins(options.corsOrigins);
  if (options.maxBodyBytes !== undefined) out.maxBodyBytes = options.maxBodyBytes;
  if (options.ui !== undefined) out.ui = options.ui;
  if (options.allowedHosts !== undefined) out.allowedHosts = checkHosts(options.allowedHosts);
  return out;
}
