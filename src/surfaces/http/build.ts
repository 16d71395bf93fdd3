/**
 * Assembles a Hono app from routes: the error handler (errors.ts), request metrics, the `Host`
 * check (hosts.ts), CORS and cross-origin protection (browsers.ts), the run inspector's files
 * under `/ui` (../ui/ui-app.ts), the 503 gate until the deck is open, bearer keys with wrong
 * ones limited per address (key-guesses.ts), the body-size limit, then the routes and
 * `/openapi.json`. With no keys, the control routes beyond 1.2.1 and the inspector's controls
 * are for loopback clients only unless `openControl` says otherwise. Under `/v1` (the OpenAI
 * API) every error, these refusals included, is in OpenAI's shape (`../openai/errors.ts`).
 */
import { timingSafeEqual } from 'node:crypto';
import { type Context, Hono } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { OPENAI_PREFIX, openAiErrorShape } from '../openai/errors.js';
import { mountUi, type UiMode } from '../ui/ui-app.js';
import { corsFor, crossOriginProtection } from './browsers.js';
import type { HttpDeps } from './deps.js';
import { detailResponse, errorResponse } from './errors.js';
import { EventsTokens, eventsTokenGate } from './events-token.js';
import { checkHosts, hostCheck, isLoopback } from './hosts.js';
import { hasIdentity } from './identity.js';
import { clientAddress, KeyGuesses } from './key-guesses.js';
import { openApiDocument } from './openapi.js';
import { type AppOptions, appSettingsFromEnv, checkOrigins } from './options.js';
import { countRequests } from './request-metrics.js';
import { mount, type Route, route } from './routes.js';
import { OpenApiDocument } from './schemas.js';

export type DeckApp = Hono;

/** The headers a proxy adds to say whom it relays a request for. */
const RELAYED = ['forwarded', 'x-forwarded-for', 'x-real-ip'];

export function buildApp<C>(
  deps: HttpDeps,
  routes: Route[],
  options: AppOptions<C>,
  tokens: EventsTokens = new EventsTokens(),
): DeckApp {
  const settings = { ...appSettingsFromEnv(), ...definedOptions(options) };
  const keys = settings.apiKeys.map((k) => Buffer.from(k));
  const app = new Hono();
  app.onError((error) => errorResponse(error, deps.log));
  app.notFound(() => detailResponse(404, 'Not Found'));
  // Every /v1 answer, the refusals below included, in the OpenAI API's error shape.
  app.use(`${OPENAI_PREFIX}/*`, openAiErrorShape());
  const guesses = new KeyGuesses();
  const publicPaths = new Set(routes.filter((r) => r.public).map((r) => r.path));
  app.use('*', countRequests(deps.metrics));
  const checkHost = hostCheck(settings.allowedHosts ?? ['*']);
  if (checkHost) app.use('*', checkHost);
  // No keys and not opened: what changes state beyond 1.2.1 is for this machine's clients only.
  // A request a proxy relayed (it says whom for) is taken to come from beyond, wherever the
  // proxy runs: behind one on this machine, every client's connection is a loopback one.
  const remote = (c: Context) => {
    if (keys.length > 0 || settings.openControl) return false;
    if (RELAYED.some((name) => c.req.header(name) !== undefined)) return true;
    const address = clientAddress(c);
    return address !== null && !isLoopback(address);
  };
  // CORS answers preflights before the key gate; cross-origin protection refuses the rest.
  const allowCors = corsFor(settings.corsOrigins);
  if (allowCors) app.use('*', allowCors);
  app.use('*', crossOriginProtection(settings.corsOrigins));
  // The inspector's files, in front of the gate: the page asks for a key, then calls the API.
  mountUi(app, settings.ui, remote);

  // A browser's EventSource sends a run's events token in the query, not a key (events-token.ts).
  app.use('*', eventsTokenGate(tokens));
  app.use('*', async (c, next) => {
    if (publicPaths.has(c.req.path)) return next();
    if (deps.deck.state !== 'open')
      return detailResponse(503, `deck '${deps.deck.name}' not started`);
    if (keys.length === 0 || hasIdentity(c.req.raw)) return next();
    const address = clientAddress(c) ?? 'unknown';
    const refused = guesses.refusal(address);
    if (refused) return refused;
    const header = c.req.header('authorization');
    if (!authorized(header, keys)) {
      if (header !== undefined) guesses.failed(address); // a key sent, and wrong: a guess
      return detailResponse(401, 'missing or invalid API key: send Authorization: Bearer <key>', {
        'www-authenticate': 'Bearer',
      });
    }
    guesses.succeeded(address);
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
      role: 'read',
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
  mount(app, all, (c) =>
    remote(c)
      ? detailResponse(
          403,
          `${c.req.method} ${c.req.path} is refused to clients beyond this machine: no API keys ` +
            'are set. Set SERVICE_API_KEYS to require a key, or SERVICE_OPEN_CONTROL=true ' +
            '(deck.app({ openControl: true })) to open it to the network',
        )
      : null,
  );
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
    openControl?: boolean;
  } = {};
  if (options.apiKeys !== undefined) out.apiKeys = options.apiKeys;
  if (options.corsOrigins !== undefined) out.corsOrigins = checkOrigins(options.corsOrigins);
  if (options.maxBodyBytes !== undefined) out.maxBodyBytes = options.maxBodyBytes;
  if (options.ui !== undefined) out.ui = options.ui;
  if (options.allowedHosts !== undefined) out.allowedHosts = checkHosts(options.allowedHosts);
  if (options.openControl !== undefined) out.openControl = options.openControl;
  return out;
}
