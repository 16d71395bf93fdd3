/**
 * Assembles a Hono app from routes: the error handler (errors.ts), request metrics, the `Host`
 * check (hosts.ts), CORS and cross-origin protection (browsers.ts), the run inspector's files
 * under `/ui` (../ui/ui-app.ts), the 503 gate until the deck is open, the authentication gate
 * that attaches each caller's identity (auth/gate.ts: keys, tokens, the app's `authenticate`),
 * the body-size limit, then the routes and `/openapi.json`. With no authentication, the control routes beyond 1.2.1 and the inspector's controls
 * are for loopback clients only unless `openControl` says otherwise. Under `/v1` (the OpenAI
 * API) every error, these refusals included, is in OpenAI's shape (`../openai/errors.ts`).
 */
import { type Context, Hono } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { OPENAI_PREFIX, openAiErrorShape } from '../openai/errors.js';
import { mountUi, type UiMode } from '../ui/ui-app.js';
import { type ApiKey, normalizeApiKeys } from './auth/api-keys.js';
import { Gate } from './auth/gate.js';
import {
  resolveTokenSettings,
  type TokenOptions,
  tokenOptionsFromEnv,
} from './auth/token-settings.js';
import { JwtVerifier } from './auth/tokens.js';
import { corsFor, crossOriginProtection } from './browsers.js';
import type { HttpDeps } from './deps.js';
import { detailResponse, errorResponse } from './errors.js';
import { checkHosts, hostCheck, isLoopback } from './hosts.js';
import { clientAddress } from './key-guesses.js';
import { openApiDocument } from './openapi.js';
import { type AppOptions, appSettingsFromEnv, checkOrigins } from './options.js';
import { countRequests } from './request-metrics.js';
import { mount, type Route, route } from './routes.js';
import { OpenApiDocument } from './schemas.js';

export type DeckApp = Hono;

/** The headers a proxy adds to say whom it relays a request for. */
const RELAYED = ['forwarded', 'x-forwarded-for', 'x-real-ip'];

/** Whether `options` (or the environment) configure any authentication: keys, tokens or a function. */
export function authenticationIsOn(options: AppOptions<unknown>): boolean {
  const env = appSettingsFromEnv();
  const tokens = options.tokens === undefined ? env.tokens : { ...env.tokens, ...options.tokens };
  return (
    options.authenticate !== undefined ||
    (options.apiKeys ?? env.apiKeys).length > 0 ||
    resolveTokenSettings(tokens) !== null
  );
}

export function buildApp<C>(deps: HttpDeps, routes: Route[], options: AppOptions<C>): DeckApp {
  const settings = { ...appSettingsFromEnv(), ...definedOptions(options) };
  const jwtSettings = resolveTokenSettings(settings.tokens);
  const gate = new Gate(
    {
      keys: settings.apiKeys,
      authenticate: options.authenticate,
      tokens: jwtSettings ? new JwtVerifier(jwtSettings) : null,
    },
    deps.metrics,
  );
  const app = new Hono();
  app.onError((error) => errorResponse(error, deps.log));
  app.notFound(() => detailResponse(404, 'Not Found'));
  // Every /v1 answer, the refusals below included, in the OpenAI API's error shape.
  app.use(`${OPENAI_PREFIX}/*`, openAiErrorShape());
  const publicPaths = new Set(routes.filter((r) => r.public).map((r) => r.path));
  app.use('*', countRequests(deps.metrics));
  const checkHost = hostCheck(settings.allowedHosts ?? ['*']);
  if (checkHost) app.use('*', checkHost);
  // No authentication and not opened: what changes state beyond 1.2.1 is for this machine's clients only.
  // A request a proxy relayed (it says whom for) is taken to come from beyond, wherever the
  // proxy runs: behind one on this machine, every client's connection is a loopback one.
  const remote = (c: Context) => {
    if (gate.on || settings.openControl) return false;
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

  app.use('*', async (c, next) => {
    if (publicPaths.has(c.req.path)) {
      gate.admitPublic(c);
      return next();
    }
    if (deps.deck.state !== 'open')
      return detailResponse(503, `deck '${deps.deck.name}' not started`);
    return (await gate.check(c)) ?? next();
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
  // The body limit may have replaced the request object the gate attached the identity to.
  app.use('*', (c, next) => {
    gate.carry(c);
    return next();
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
    secured: gate.on,
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

function definedOptions(options: AppOptions<unknown>) {
  const out: {
    apiKeys?: readonly ApiKey[];
    maxBodyBytes?: number;
    corsOrigins?: readonly string[];
    ui?: UiMode;
    allowedHosts?: readonly string[];
    openControl?: boolean;
    tokens?: TokenOptions;
  } = {};
  if (options.apiKeys !== undefined) out.apiKeys = normalizeApiKeys(options.apiKeys);
  if (options.corsOrigins !== undefined) out.corsOrigins = checkOrigins(options.corsOrigins);
  if (options.maxBodyBytes !== undefined) out.maxBodyBytes = options.maxBodyBytes;
  if (options.ui !== undefined) out.ui = options.ui;
  if (options.allowedHosts !== undefined) out.allowedHosts = checkHosts(options.allowedHosts);
  if (options.openControl !== undefined) out.openControl = options.openControl;
  // Given, they are laid over the SERVICE_AUTH_* settings, as every option over its variable.
  if (options.tokens !== undefined) out.tokens = { ...tokenOptionsFromEnv(), ...options.tokens };
  return out;
}
