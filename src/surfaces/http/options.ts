/**
 * The HTTP app's and the server's options, declared once, and the environment settings
 * they default to (`SERVICE_API_KEYS`, `SERVICE_API_KEYS_FILE`, the token settings `SERVICE_AUTH_*`
 * (auth/token-settings.ts), `SERVICE_MAX_BODY_BYTES`, `SERVICE_CORS_ORIGINS`,
 * `SERVICE_UI`, `SERVICE_ALLOWED_HOSTS`, `SERVICE_OPEN_CONTROL`, `HOST`, `PORT`,
 * `SERVICE_REQUEST_TIMEOUT_SECONDS`).
 */
import { ConfigError } from '../../core/errors.js';
import type { Identity } from '../../core/identity.js';
import type { McpEndpointOptions } from '../mcp/options.js';
import { UI_MODES, type UiMode } from '../ui/ui-app.js';
import { type ApiKey, apiKeysFromFile, parseApiKeys } from './auth/api-keys.js';
import type { Authenticate } from './auth/gate.js';
import { type TokenOptions, tokenOptionsFromEnv } from './auth/token-settings.js';
import { checkHosts } from './hosts.js';

export interface AppOptions<C = unknown> {
  /**
   * The per-run application context of each HTTP-started run, computed from the request and
   * the caller's verified identity (its tenant, user, roles and a token's claims), so a tool
   * can act as the user. It never crosses the wire and is never recorded.
   * @example deck.app({ context: (request, identity) => ({ userId: identity.user }) })
   * @default none: HTTP runs get `null`, as SPEC.md says
   */
  context?: (request: Request, identity: Identity) => C | Promise<C>;
  /**
   * Bearer keys; when non-empty every route but `/health` requires
   * `Authorization: Bearer <key>` (401 otherwise). A plain string stands for no tenant and
   * every role; `{ key, tenant, roles, user }` for what it says (docs/authentication.md).
   * @default SERVICE_API_KEYS (comma-separated `key` or `key=tenant:role+role`) and the JSON array in SERVICE_API_KEYS_FILE, else none: every route is open
   */
  apiKeys?: readonly (string | ApiKey)[];
  /**
   * The app's own authentication, for what keys and tokens do not cover (a session cookie, a
   * header a proxy sets): the caller's identity, or `null` to refuse (401). Tried after the
   * API keys and tokens; with it set, every route but the public ones requires it to accept.
   * @example deck.app({ authenticate: async (request) => (await mySessions.identity(request)) ?? null })
   * @default none
   */
  authenticate?: Authenticate;
  /**
   * JWT bearer tokens from an OAuth/OIDC issuer (Auth0, Clerk, Keycloak...), verified with its
   * published keys: the issuer, the audience, claim names (docs/authentication.md). With an
   * issuer set, a token that verifies is accepted beside the API keys, and `/mcp` points OAuth
   * clients to `/.well-known/oauth-protected-resource`.
   * @default the SERVICE_AUTH_* settings, else none: no tokens
   */
  tokens?: TokenOptions;
  /**
   * Origins of the browser apps allowed to call the service (`https://app.example.com`,
   * `http://localhost:3000`; `*` for any): their CORS preflights are answered and their
   * state-changing requests accepted. Every other origin's are refused (403).
   * @default SERVICE_CORS_ORIGINS (comma-separated), else none: CORS off
   */
  corsOrigins?: readonly string[];
  /**
   * The run inspector under `/ui` (docs/ui.md): `on`; `read-only` (its pages show no control
   * that answers, pauses, cancels or resumes a run; the API's own keys still decide what a
   * client may do); `off` (`/ui` is 404).
   * @default SERVICE_UI, else 'on'
   */
  ui?: UiMode;
  /**
   * The host names the server answers to (hosts.ts): a request whose `Host` names another is
   * refused (403), which stops DNS rebinding. IP addresses and `localhost` are always
   * answered; `.example.com` allows every name under it, `*` any host.
   * @default SERVICE_ALLOWED_HOSTS (comma-separated), else any host (`serve()` bound to a loopback address: none but those always answered)
   */
  allowedHosts?: readonly string[];
  /**
   * With no API keys: whether clients beyond loopback may call the routes beyond release 1.2.1
   * that change state (answering a run, ticking timers, firing and pausing schedules) and get
   * the run inspector's controls. Off, they get 403 and a read-only inspector; the 1.2.1
   * routes stay open, as the spec says. Keys set, a key decides and this changes nothing.
   * @default SERVICE_OPEN_CONTROL (`true`/`false`), else false
   */
  openControl?: boolean;
  /**
   * The MCP server endpoint `/mcp` (docs/mcp-server.md): on or off, the agents and workflows
   * it serves as tools, how long a call waits for its run.
   * @default SERVICE_MCP, SERVICE_MCP_TOOLS, SERVICE_MCP_WAIT_SECONDS: on, every agent and workflow, 45 s
   */
  mcp?: McpEndpointOptions;
  /**
   * The secret of the five-minute tokens `POST /runs/{run_id}/events-token` issues for a
   * browser's event stream (events-token.ts), at least 32 characters: set the same on every
   * replica behind a load balancer so that each accepts the others' tokens.
   * @default SERVICE_EVENTS_TOKEN_SECRET, else random per process
   */
  eventsTokenSecret?: string;
  /** Largest request body accepted; a larger one gets 413. @default SERVICE_MAX_BODY_BYTES, else 4 MiB */
  maxBodyBytes?: number;
  /**
   * Aborted when the server shuts down: `GET /runs/{id}/events` streams that follow a run
   * end then (a run waiting for an answer could hold the shutdown indefinitely); other
   * requests in flight finish. `serve()` sets it. @default none
   */
  shutdown?: AbortSignal;
  /** Where server-side failures are written (the client sees only `internal error`). @default console.error */
  log?: (message: string) => void;
}

export interface ServeOptions<C = unknown> {
  /** Interface to listen on. @default HOST, else '0.0.0.0' */
  host?: string;
  /** Port to listen on; 0 picks a free one. @default PORT, else 8000 */
  port?: number;
  /** Options of the app `serve()` builds with `deck.app()`. @default {} */
  app?: AppOptions<C>;
  /**
   * Wake sleeping workflow threads at their time, by themselves (`deck.open({ wakeTimers })`);
   * `false` leaves it to `deck.tick()`, `POST /timers/tick` or `agentdeck tick`. @default true
   */
  wakeTimers?: boolean;
  /** Handle SIGTERM and SIGINT: stop accepting, let in-flight requests end, close the deck. @default true */
  handleSignals?: boolean;
  /**
   * Longest time a client may take to send a whole request, headers and body: a slower one
   * (a body trickled byte by byte) gets 408 and its connection is closed, within a quarter
   * of this more. The response is not limited (a stream may last hours).
   * @default SERVICE_REQUEST_TIMEOUT_SECONDS × 1000, else 60000
   */
  requestTimeoutMs?: number;
}

export const DEFAULT_MAX_BODY_BYTES = 4 * 1024 * 1024;
export const DEFAULT_REQUEST_TIMEOUT_MS = 60_000;
export const DEFAULT_DRAIN_SECONDS = 30;

type Env = Record<string, string | undefined>;

/** The app settings the environment gives, for the options left out. */
export function appSettingsFromEnv(env: Env = process.env) {
  const keys: ApiKey[] = parseApiKeys(env.SERVICE_API_KEYS ?? '');
  const file = env.SERVICE_API_KEYS_FILE?.trim();
  if (file) keys.push(...apiKeysFromFile(file));
  const origins = (env.SERVICE_CORS_ORIGINS ?? '')
    .split(',')
    .map((origin) => origin.trim())
    .filter((origin) => origin !== '');
  return {
    apiKeys: keys,
    tokens: tokenOptionsFromEnv(env),
    maxBodyBytes: positiveInt(env, 'SERVICE_MAX_BODY_BYTES') ?? DEFAULT_MAX_BODY_BYTES,
    corsOrigins: checkOrigins(origins, 'SERVICE_CORS_ORIGINS'),
    ui: uiMode(env.SERVICE_UI),
    openControl: flag(env, 'SERVICE_OPEN_CONTROL') ?? false,
    allowedHosts: allowedHostsFromEnv(env),
  };
}

/** `SERVICE_ALLOWED_HOSTS`, checked; `null` when unset. */
export function allowedHostsFromEnv(env: Env = process.env): string[] | null {
  const hosts = (env.SERVICE_ALLOWED_HOSTS ?? '')
    .split(',')
    .map((host) => host.trim())
    .filter((host) => host !== '');
  return hosts.length === 0 ? null : checkHosts(hosts, 'SERVICE_ALLOWED_HOSTS');
}

function flag(env: Env, name: string): boolean | undefined {
  const raw = env[name]?.trim().toLowerCase();
  if (raw === undefined || raw === '') return undefined;
  if (raw === 'true' || raw === '1') return true;
  if (raw === 'false' || raw === '0') return false;
  throw new ConfigError(`${name} must be true or false, got '${env[name]}'`);
}

function uiMode(raw: string | undefined): UiMode {
  if (raw === undefined || raw.trim() === '') return 'on';
  const mode = raw.trim().toLowerCase();
  if ((UI_MODES as readonly string[]).includes(mode)) return mode as UiMode;
  throw new ConfigError(`SERVICE_UI must be one of ${UI_MODES.join(', ')}, got '${raw}'`);
}

/**
 * Check allowed origins: each `*` or a scheme, host and optional port with nothing after
 * (`https://app.example.com`, `http://localhost:3000`), as a browser sends `Origin`.
 */
export function checkOrigins(origins: readonly string[], where = 'corsOrigins'): string[] {
  return origins.map((origin) => {
    if (origin === '*') return origin;
    let parsed: URL | null = null;
    try {
      parsed = new URL(origin);
    } catch {
      // reported below
    }
    if (!parsed || parsed.origin !== origin) {
      throw new ConfigError(
        `${where}: '${origin}' is not an origin; write a scheme, host and optional port with ` +
          "no path or trailing slash, such as 'http://localhost:3000', or '*' for any",
      );
    }
    return origin;
  });
}

/** Where `serve()` listens unless told: `HOST` (default 0.0.0.0) and `PORT` (default 8000). */
export function serveSettingsFromEnv(env: Env = process.env): { host: string; port: number } {
  const port = env.PORT === undefined || env.PORT === '' ? 8000 : Number(env.PORT);
  if (!Number.isInteger(port) || port < 0 || port > 65_535) {
    throw new ConfigError(`PORT must be a port number (0-65535), got '${env.PORT}'`);
  }
  return { host: env.HOST || '0.0.0.0', port };
}

/** How long a client may take to send a request: `SERVICE_REQUEST_TIMEOUT_SECONDS`, else 60 s. */
export function requestTimeoutMsFromEnv(env: Env = process.env): number {
  const seconds = positiveInt(env, 'SERVICE_REQUEST_TIMEOUT_SECONDS', 'seconds');
  return seconds === undefined ? DEFAULT_REQUEST_TIMEOUT_MS : seconds * 1000;
}

/** How long a draining server lets its runs end: `SERVICE_DRAIN_SECONDS`, else 30 s (0: none). */
export function drainMsFromEnv(env: Env = process.env): number {
  const raw = env.SERVICE_DRAIN_SECONDS;
  if (raw === undefined || raw === '') return DEFAULT_DRAIN_SECONDS * 1000;
  const seconds = Number(raw);
  if (!Number.isInteger(seconds) || seconds < 0) {
    throw new ConfigError(`SERVICE_DRAIN_SECONDS must be a whole number of seconds, got '${raw}'`);
  }
  return seconds * 1000;
}

function positiveInt(env: Env, name: string, unit = 'bytes'): number | undefined {
  const raw = env[name];
  if (raw === undefined || raw === '') return undefined;
  const value = Number(raw);
  if (!Number.isInteger(value) || value <= 0) {
    throw new ConfigError(`${name} must be a positive whole number of ${unit}, got '${raw}'`);
  }
  return value;
}
