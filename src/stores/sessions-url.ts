/**
 * Resolves the `SERVICE_SESSION` setting to a session backend. SPEC.md: "Redis-backed when
 * `SERVICE_SESSION` is set, otherwise an in-process SQLite session lost on process exit."
 * Reading the environment and opening the backend are separate steps so the Deck can take
 * settings from its options as well as from `process.env`, and so the env parsing is tested
 * without a server.
 */
import { ConfigError } from '../core/errors.js';
import type { SessionBackend } from '../core/sessions.js';
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
}

/** The session settings read from the environment; a key is present only when its variable is set. */
export interface SessionSettings extends OpenSessionBackendOptions {
  /** `SERVICE_SESSION`: where conversation memory lives. */
  url?: string;
}

const ACCEPTED =
  'leave SERVICE_SESSION unset for an in-process SQLite session, or set it to redis://host:port[/db] ' +
  '(rediss:// for TLS)';

/**
 * Opens the session backend a `SERVICE_SESSION` value names: unset or empty, an in-process
 * SQLite database (history lost on exit); `redis://` or `rediss://`, that Redis server
 * (connected on first use). Anything else is a ConfigError. Close the result with the deck.
 *
 * @example
 * ```ts
 * const { url, ...options } = sessionSettingsFromEnv();
 * const backend = openSessionBackend(url, options);
 * const session = backend.sessionFor('user-42');
 * ```
 */
export function openSessionBackend(
  url?: string,
  options: OpenSessionBackendOptions = {},
): SessionBackend {
  const value = url?.trim() ?? '';
  if (value === '') {
    return new SqliteSessionBackend({
      ttlSeconds: options.ttlSeconds ?? null,
      ...(options.maxSessions !== undefined ? { maxSessions: options.maxSessions } : {}),
    });
  }
  const scheme = /^([a-z][a-z0-9+.-]*):/i.exec(value)?.[1]?.toLowerCase();
  if (scheme === 'redis' || scheme === 'rediss') {
    return new RedisSessionBackend({ url: value, ...options });
  }
  throw new ConfigError(`SERVICE_SESSION '${redactUrl(value)}' is not supported: ${ACCEPTED}`);
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
