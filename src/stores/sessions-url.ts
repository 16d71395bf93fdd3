/**
 * Resolves the `SERVICE_SESSION` setting to a session backend. Unset, conversations are kept
 * where the events are when that is an SQLite file (the default `./.agentdeck/state.db`), so a
 * restart keeps a conversation as it keeps its runs; otherwise (events in memory or in
 * Postgres) in an SQLite database in the process's memory. `memory://` asks for the latter
 * whatever the events; `redis://` for a Redis shared by several processes. This lifts SPEC.md
 * rule 8 ("otherwise an in-process SQLite session lost on process exit") for a deck whose
 * events are in a file (issue #35). Reading the environment, reading where sessions go, and
 * opening the backend are separate steps so the Deck can take settings from its options as
 * well as from `process.env`, the server can say at start-up where they are, and the parsing
 * is tested without a server.
 */
import { ConfigError } from '../core/errors.js';
import type { SessionBackend } from '../core/sessions.js';
import type { EventStoreLocation } from './events-url.js';
import { RedisSessionBackend } from './redis/sessions.js';
import { redactUrl } from './shared/url.js';
import { DEFAULT_MAX_SESSIONS, SqliteSessionBackend } from './sqlite/sessions.js';

/** Options for {@link openSessionBackend}. */
export interface OpenSessionBackendOptions {
  /** Prepended to each session id to form its Redis key (Redis only). @default 'agentdeck:session:' */
  keyPrefix?: string;
  /** Seconds a session lives after its last write (Redis and in-process); `null`: no expiry. @default null */
  ttlSeconds?: number | null;
  /**
   * The most sessions the in-process store keeps; the ones written longest ago go first
   * (Redis is bounded by its own memory policy and the TTL). @default 10_000
   */
  maxSessions?: number | null;
  /**
   * Where the events are kept: with `url` unset, sessions go in their SQLite file, or in
   * memory when they are elsewhere. @default { backend: 'memory' }
   */
  events?: EventStoreLocation;
}

/** Where conversation memory lives, as read from a `SERVICE_SESSION` value. */
export type SessionLocation =
  | { backend: 'memory' }
  | { backend: 'sqlite'; path: string }
  | { backend: 'redis'; url: string };

/** The session settings read from the environment; a key is present only when its variable is set. */
export interface SessionSettings extends OpenSessionBackendOptions {
  /** `SERVICE_SESSION`: where conversation memory lives. */
  url?: string;
}

const ACCEPTED =
  "leave SERVICE_SESSION unset to keep sessions beside the events (in their SQLite file, else in the process's memory), " +
  'or set it to memory:// or redis://host:port[/db] (rediss:// for TLS)';

/**
 * Read a `SERVICE_SESSION` value. Unset or empty: the SQLite file of the events (`events`),
 * or memory when they are not in a file; `memory://`: the process's memory; `redis://` or
 * `rediss://`: that Redis server. Throws `ConfigError` for anything else, the password hidden.
 *
 * @example
 * ```ts
 * parseSessionUrl(undefined, { backend: 'sqlite', path: '/srv/state.db' });
 * // { backend: 'sqlite', path: '/srv/state.db' }
 * parseSessionUrl('memory://', { backend: 'sqlite', path: '/srv/state.db' }); // { backend: 'memory' }
 * ```
 */
export function parseSessionUrl(
  url: string | undefined,
  events: EventStoreLocation = { backend: 'memory' },
): SessionLocation {
  const value = url?.trim() ?? '';
  if (value === '') {
    return events.backend === 'sqlite'
      ? { backend: 'sqlite', path: events.path }
      : { backend: 'memory' };
  }
  const scheme = /^([a-z][a-z0-9+.-]*):/i.exec(value)?.[1]?.toLowerCase();
  if (scheme === 'memory' && /^memory:(\/\/)?$/i.test(value)) return { backend: 'memory' };
  if (scheme === 'redis' || scheme === 'rediss') return { backend: 'redis', url: value };
  throw new ConfigError(`SERVICE_SESSION '${redactUrl(value)}' is not supported: ${ACCEPTED}`);
}

/**
 * Opens the session backend a `SERVICE_SESSION` value names (see {@link parseSessionUrl}): an
 * SQLite database, in the events' file or in memory; or a Redis server (connected on first
 * use). Anything else is a ConfigError. Close the result with the deck.
 *
 * @example
 * ```ts
 * const { url, ...options } = sessionSettingsFromEnv();
 * const events = parseEventStoreUrl(process.env.SERVICE_EVENTS);
 * const backend = openSessionBackend(url, { ...options, events });
 * const session = backend.sessionFor('user-42');
 * ```
 */
export function openSessionBackend(
  url?: string,
  options: OpenSessionBackendOptions = {},
): SessionBackend {
  const { events, ...backendOptions } = options;
  const location = parseSessionUrl(url, events);
  if (location.backend === 'redis') {
    return new RedisSessionBackend({ url: location.url, ...backendOptions });
  }
  return new SqliteSessionBackend({
    ...(location.backend === 'sqlite' ? { path: location.path } : {}),
    ttlSeconds: options.ttlSeconds ?? null,
    ...(options.maxSessions !== undefined ? { maxSessions: options.maxSessions } : {}),
  });
}

/**
 * Reads `SERVICE_SESSION`, `SERVICE_SESSION_KEY_PREFIX`, `SERVICE_SESSION_TTL_SECONDS` and
 * `SERVICE_SESSION_MAX`.
 * An empty variable counts as unset. A TTL that is not a positive whole number of seconds is
 * a ConfigError naming the variable and its value.
 *
 * @example
 * ```ts
 * sessionSettingsFromEnv({ SERVICE_SESSION: 'redis://cache:6379', SERVICE_SESSION_TTL_SECONDS: '3600' });
 * // { url: 'redis://cache:6379', ttlSeconds: 3600 }
 * ```
 */
export function sessionSettingsFromEnv(
  env: Record<string, string | undefined> = process.env,
): SessionSettings {
  const settings: SessionSettings = {};
  const url = env.SERVICE_SESSION?.trim();
  if (url) settings.url = url;
  const keyPrefix = env.SERVICE_SESSION_KEY_PREFIX;
  if (keyPrefix) settings.keyPrefix = keyPrefix;
  const ttl = env.SERVICE_SESSION_TTL_SECONDS?.trim();
  if (ttl) {
    const seconds = /^\d+$/.test(ttl) ? Number(ttl) : Number.NaN;
    if (!(Number.isSafeInteger(seconds) && seconds > 0)) {
      throw new ConfigError(
        `SERVICE_SESSION_TTL_SECONDS must be a positive whole number of seconds, got '${ttl}'; ` +
          'unset it for sessions that never expire',
      );
    }
    settings.ttlSeconds = seconds;
  }
  const max = env.SERVICE_SESSION_MAX?.trim();
  if (max) {
    const count = /^\d+$/.test(max) ? Number(max) : Number.NaN;
    if (!(Number.isSafeInteger(count) && count > 0)) {
      throw new ConfigError(
        `SERVICE_SESSION_MAX must be a positive whole number of sessions, got '${max}'; ` +
          `unset it for the default (${DEFAULT_MAX_SESSIONS})`,
      );
    }
    settings.maxSessions = count;
  }
  return settings;
}
