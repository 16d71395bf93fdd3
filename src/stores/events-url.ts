/**
 * Resolves the `SERVICE_EVENTS` setting (events, claims, control requests) to an event
 * store. The default is durable on purpose: an SQLite file at `./.agentdeck/state.db`, so an
 * approval survives a restart and `service runs signal` reaches a server on the same machine
 * with no configuration. Parsing is separate from opening so the setting can be checked
 * (and shown) without creating a file.
 */
import { resolve } from 'node:path';
import { ConfigError } from '../core/errors.js';
import type { EventStore } from '../core/store.js';
import { MemoryEventStore } from './memory/events.js';
import { PostgresEventStore } from './postgres/events.js';
import { SqliteEventStore } from './sqlite/events.js';

/** The SQLite file used when `SERVICE_EVENTS` is unset, relative to the working directory. */
export const DEFAULT_EVENTS_FILE = '.agentdeck/state.db';

/** Where the events live, as read from a `SERVICE_EVENTS` value. */
export type EventStoreLocation =
  | { backend: 'memory' }
  | { backend: 'sqlite'; path: string }
  | { backend: 'postgres'; url: string };

const ACCEPTED =
  'leave SERVICE_EVENTS unset for ./.agentdeck/state.db, or set it to memory://, ' +
  'sqlite:///absolute/path.db, sqlite://relative/path.db or postgres://user:password@host:5432/db';

/**
 * Read a `SERVICE_EVENTS` value. Unset or empty: the default SQLite file; `memory://`: in
 * process; `sqlite:///abs/path.db`: that file; `sqlite://rel/path.db`: relative to `cwd`;
 * `postgres://...` or `postgresql://...`: that database, the URL kept as given (it is read
 * by the `pg` driver). Throws `ConfigError` for anything else, the password hidden.
 *
 * @example
 * ```ts
 * parseEventStoreUrl('sqlite://data/state.db', '/srv/app');
 * // { backend: 'sqlite', path: '/srv/app/data/state.db' }
 * ```
 */
export function parseEventStoreUrl(
  url: string | undefined,
  cwd: string = process.cwd(),
): EventStoreLocation {
  const value = url?.trim() ?? '';
  if (value === '') return { backend: 'sqlite', path: resolve(cwd, DEFAULT_EVENTS_FILE) };
  const scheme = /^([a-z][a-z0-9+.-]*):/i.exec(value)?.[1]?.toLowerCase();
  if (scheme === 'memory' && /^memory:(\/\/)?$/i.test(value)) return { backend: 'memory' };
  if (scheme === 'sqlite' && value.startsWith('sqlite://')) {
    const path = value.slice('sqlite://'.length);
    if (path === '' || path === '/') {
      throw new ConfigError(`SERVICE_EVENTS '${value}' names no database file; ${ACCEPTED}`);
    }
    return { backend: 'sqlite', path: resolve(cwd, path) };
  }
  if ((scheme === 'postgres' || scheme === 'postgresql') && /^[a-z]+:\/\/./i.test(value)) {
    return { backend: 'postgres', url: value };
  }
  throw new ConfigError(
    `SERVICE_EVENTS '${redact(value)}' is not a supported event store; ${ACCEPTED}`,
  );
}

/** Hide a password (user info) so the value can go into an error message or a log. */
function redact(value: string): string {
  return value.replace(/\/\/[^/@]*@/, '//***@');
}

/**
 * Open the event store a `SERVICE_EVENTS` value names (see {@link parseEventStoreUrl}).
 * An SQLite store has its defaults, group commit included: another writer to the same file
 * in this process calls `SqliteEventStore.flushGroupCommits(path)` first. A Postgres store
 * (default options: streamed deltas written behind) connects and migrates on its first
 * call, which rejects with a `StoreError` if the server cannot be reached. Throws
 * `ConfigError` for a value it cannot use and `StoreError` when an SQLite file cannot be
 * opened or created.
 *
 * @example
 * ```ts
 * const store = openEventStore(process.env.SERVICE_EVENTS);
 * ```
 */
export function openEventStore(url?: string): EventStore {
  const location = parseEventStoreUrl(url);
  if (location.backend === 'memory') return new MemoryEventStore();
  if (location.backend === 'postgres') return new PostgresEventStore({ url: location.url });
  return new SqliteEventStore({ path: location.path });
}
