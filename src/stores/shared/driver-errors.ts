/**
 * What a driver's failure means for a caller: the backend is unreachable for now (retry
 * later: HTTP 503 with `Retry-After`), it has no room for a write (507), or the call itself
 * failed (a bug, a constraint: 500). Every store wraps its driver's errors through
 * {@link storeFailure}, so the HTTP layer, readiness and the metrics see one vocabulary
 * whatever the backend. The tables are the drivers' own: `pg` (SQLSTATE classes 08 and 57,
 * socket errno codes, its connection messages), `node:sqlite` (`errcode`, primary code in
 * the low byte), ioredis (its connection and timeout messages).
 */
import {
  type Backend,
  type DeckError,
  errorMessage,
  isDeckError,
  StorageFullError,
  StoreError,
  StoreUnavailableError,
} from '../../core/errors.js';

export type DriverFailure = 'unavailable' | 'full' | 'failed';

/** Socket failures: the server is down, restarting, or the network between is. */
const SOCKET_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'ENOTFOUND',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EAI_AGAIN',
  'ECONNABORTED',
]);

/** pg's own messages for a connection that broke or never opened. */
const PG_CONNECTION_MESSAGES = [
  'Connection terminated',
  'timeout exceeded when trying to connect',
  'Client has encountered a connection error',
  'Client was closed and is not queryable',
  'Connection closed',
];

/** Postgres SQLSTATEs that say "the server cannot serve you now". */
function postgresStateFailure(state: string): DriverFailure | null {
  if (state === '53100') return 'full'; // disk_full
  if (state.startsWith('08')) return 'unavailable'; // connection_exception
  if (state.startsWith('57P')) return 'unavailable'; // admin/crash shutdown, cannot connect now
  if (state === '53300' || state === '53400') return 'unavailable'; // too many connections
  return null;
}

export function postgresFailure(error: unknown): DriverFailure {
  const code = codeOf(error);
  if (code && SOCKET_CODES.has(code)) return 'unavailable';
  if (code) {
    const state = postgresStateFailure(code);
    if (state) return state;
  }
  const message = errorMessage(error);
  if (PG_CONNECTION_MESSAGES.some((text) => message.includes(text))) return 'unavailable';
  if (error instanceof AggregateError) return postgresFailure(error.errors[0]);
  return 'failed';
}

/** SQLite primary result codes (the low byte of an extended code). */
const SQLITE_BUSY = 5;
const SQLITE_LOCKED = 6;
const SQLITE_IOERR = 10;
const SQLITE_FULL = 13;
const SQLITE_CANTOPEN = 14;

export function sqliteFailure(error: unknown): DriverFailure {
  const code = codeOf(error);
  if (code === 'ENOSPC' || code === 'EDQUOT') return 'full';
  const errcode = (error as { errcode?: unknown } | null)?.errcode;
  if (typeof errcode === 'number') {
    const primary = errcode & 0xff;
    if (primary === SQLITE_FULL) return 'full';
    // An I/O error on a full disk is reported as IOERR by some paths (WAL growth).
    if (primary === SQLITE_IOERR)
      return /full|space/i.test(errorMessage(error)) ? 'full' : 'unavailable';
    if (primary === SQLITE_BUSY || primary === SQLITE_LOCKED || primary === SQLITE_CANTOPEN) {
      return 'unavailable';
    }
  }
  if (/database or disk is full/i.test(errorMessage(error))) return 'full';
  return 'failed';
}

/** ioredis's own messages for a command that could not reach the server. */
const REDIS_CONNECTION_MESSAGES = [
  'Connection is closed',
  'Command timed out',
  'Reached the max retries per request limit',
  "Stream isn't writeable",
  'connect ETIMEDOUT',
];

export function redisFailure(error: unknown): DriverFailure {
  const code = codeOf(error);
  if (code && SOCKET_CODES.has(code)) return 'unavailable';
  const name = (error as { name?: unknown } | null)?.name;
  if (name === 'MaxRetriesPerRequestError') return 'unavailable';
  const message = errorMessage(error);
  if (message.startsWith('OOM ')) return 'full';
  if (message.startsWith('LOADING') || message.startsWith('MASTERDOWN')) return 'unavailable';
  if (REDIS_CONNECTION_MESSAGES.some((text) => message.includes(text))) return 'unavailable';
  return 'failed';
}

const CLASSIFIERS: Record<Backend, (error: unknown) => DriverFailure> = {
  postgres: postgresFailure,
  sqlite: sqliteFailure,
  redis: redisFailure,
};

/**
 * The StoreError for a driver's `error` met while `message` was being done on `backend`:
 * a {@link StoreUnavailableError}, a {@link StorageFullError} or a plain StoreError, with
 * the driver's error as `cause`. A DeckError passes through unchanged.
 *
 * @example
 * ```ts
 * throw storeFailure('postgres', `the Postgres event store at '${where}' could not append`, error);
 * ```
 */
export function storeFailure(backend: Backend, message: string, error: unknown): DeckError {
  if (isDeckError(error)) return error;
  const full = `${message}: ${errorMessage(error)}`;
  switch (CLASSIFIERS[backend](error)) {
    case 'unavailable':
      return new StoreUnavailableError(backend, `${full}; ${backend} is unavailable, retry later`, {
        cause: error,
      });
    case 'full':
      return new StorageFullError(backend, `${full}; free space on ${backend}'s disk`, {
        cause: error,
      });
    default:
      return new StoreError(full, { cause: error });
  }
}

function codeOf(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : undefined;
}
