/**
 * Conversation memory in Redis, for deployments where several server processes share one
 * history (`SERVICE_SESSION=redis://...`). One list per session: RPUSH appends (one command
 * per `addItems`, so a call's items stay together and concurrent calls lose nothing), LRANGE
 * with a negative start reads the latest items, RPOP removes the latest, DEL clears.
 *
 * ioredis by default queues commands and reconnects forever, so a down server makes a turn
 * hang. Here a command fails after one reconnect attempt or a few seconds, whichever comes
 * first, as a StoreError that names the server (password hidden).
 */
import { Redis } from 'ioredis';
import { ConfigError, errorMessage, StoreError, StoreUnavailableError } from '../../core/errors.js';
import type { ConversationSession, SessionBackend, SessionItem } from '../../core/sessions.js';
import type { Pingable } from '../../core/store.js';
import { storeFailure } from '../shared/driver-errors.js';
import { redactUrl } from '../shared/url.js';

/** Options for {@link RedisSessionBackend}. */
export interface RedisSessionBackendOptions {
  /** The server: `redis://[[user]:password@]host[:port][/db]`, or `rediss://` for TLS. */
  url: string;
  /** Prepended to the session id to form the list's key. @default 'agentdeck:session:' */
  keyPrefix?: string;
  /** Seconds a session lives after its last write (each write refreshes it); `null`: no expiry. @default null */
  ttlSeconds?: number | null;
}

const DEFAULTS = { keyPrefix: 'agentdeck:session:', ttlSeconds: null } as const;

/** A TCP connect that takes longer than this counts as a failed attempt. */
const CONNECT_TIMEOUT_MS = 3_000;
/** The longest any command may take, queued while reconnecting included. */
const COMMAND_TIMEOUT_MS = 5_000;

/**
 * Session backend on a Redis server. It connects on first use and keeps one connection;
 * {@link RedisSessionBackend.close} quits it (an open connection keeps the process alive).
 *
 * @example
 * ```ts
 * const backend = new RedisSessionBackend({ url: 'redis://127.0.0.1:6379', ttlSeconds: 86_400 });
 * const session = backend.sessionFor('user-42');
 * await session.addItems([{ role: 'user', content: 'hi' }]);
 * await session.getItems(10); // the latest 10, oldest first
 * await backend.close();
 * ```
 */
export class RedisSessionBackend implements SessionBackend, Pingable {
  /** The server URL with its password replaced by `***`. */
  readonly url: string;
  readonly keyPrefix: string;
  readonly ttlSeconds: number | null;
  readonly #client: Redis;
  #lastConnectionError: Error | undefined;
  #closed = false;

  constructor(options: RedisSessionBackendOptions) {
    const { url, keyPrefix, ttlSeconds } = { ...DEFAULTS, ...options };
    this.url = redactUrl(url);
    this.keyPrefix = keyPrefix;
    this.ttlSeconds = ttlSeconds;
    checkUrl(url, this.url);
    if (ttlSeconds !== null && !(Number.isSafeInteger(ttlSeconds) && ttlSeconds > 0)) {
      throw new ConfigError(
        `Redis session ttlSeconds must be a positive whole number of seconds or null, got ${ttlSeconds}`,
      );
    }
    this.#client = new Redis(url, {
      lazyConnect: true,
      connectTimeout: CONNECT_TIMEOUT_MS,
      commandTimeout: COMMAND_TIMEOUT_MS,
      maxRetriesPerRequest: 1,
    });
    // Without a listener ioredis prints every failed reconnect; keep the latest for messages
    // (not the "max retries" notice, which only repeats what the failed command says).
    this.#client.on('error', (error: Error) => {
      if (error.name !== 'MaxRetriesPerRequestError') this.#lastConnectionError = error;
    });
    this.#client.on('ready', () => {
      this.#lastConnectionError = undefined;
    });
  }

  sessionFor(sessionId: string): ConversationSession {
    const key = this.keyPrefix + sessionId;
    const client = this.#client;
    const ttl = this.ttlSeconds;
    return {
      getSessionId: async () => sessionId,
      getItems: (limit) =>
        this.#run('read', sessionId, async () => {
          if (limit !== undefined && limit <= 0) return [];
          const rows = await client.lrange(key, limit === undefined ? 0 : -limit, -1);
          return rows.map(parseItem);
        }),
      addItems: (items) =>
        this.#run('add items to', sessionId, async () => {
          if (items.length === 0) return;
          const rows = items.map((item) => JSON.stringify(item));
          if (ttl === null) {
            await client.rpush(key, ...rows);
            return;
          }
          const write = client
            .multi()
            .rpush(key, ...rows)
            .expire(key, ttl);
          execResults(await write.exec());
        }),
      popItem: (): Promise<SessionItem | undefined> =>
        this.#run('pop an item from', sessionId, async () => {
          const row =
            ttl === null
              ? await client.rpop(key)
              : execResults(await client.multi().rpop(key).expire(key, ttl).exec())[0];
          return typeof row === 'string' ? parseItem(row) : undefined;
        }),
      clearSession: () =>
        this.#run('clear', sessionId, async () => {
          await client.del(key);
        }),
    };
  }

  /** Quits the connection (or drops it if the server is unreachable). Safe to call twice. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    if (this.#client.status !== 'ready') {
      this.#client.disconnect();
      return;
    }
    try {
      await this.#client.quit();
    } catch {
      this.#client.disconnect();
    }
  }

  /** Resolves when the server answers PING (readiness); rejects with a StoreUnavailableError. */
  async ping(): Promise<void> {
    await this.#run('ping for', '(readiness)', () => this.#client.ping());
  }

  /** Runs one operation, turning a driver failure into a StoreError that names server and session. */
  async #run<T>(what: string, sessionId: string, operation: () => Promise<T>): Promise<T> {
    const where = `Redis session store at ${this.url}`;
    if (this.#closed) {
      throw new StoreError(`${where} is closed; cannot ${what} session '${sessionId}'`);
    }
    try {
      return await operation();
    } catch (error) {
      // While the connection is failing, its error (ECONNREFUSED...) is the useful cause.
      const connection = this.#lastConnectionError;
      const detail =
        connection !== undefined && connection !== error
          ? ` (connection: ${connection.message})`
          : '';
      const failure = storeFailure(
        'redis',
        `${where} could not ${what} session '${sessionId}'`,
        connection ?? error,
      );
      const message = `${where} could not ${what} session '${sessionId}': ${errorMessage(error)}${detail}`;
      if (failure instanceof StoreUnavailableError) {
        throw new StoreUnavailableError('redis', `${message}; redis is unavailable, retry later`, {
          cause: connection ?? error,
        });
      }
      throw new StoreError(
        `${message}; check that the server is reachable and SERVICE_SESSION is right`,
        { cause: connection ?? error },
      );
    }
  }
}

function checkUrl(url: string, shown: string): void {
  let protocol: string;
  try {
    protocol = new URL(url).protocol;
  } catch (error) {
    throw new ConfigError(`Redis session URL '${shown}' is not a valid URL`, { cause: error });
  }
  if (protocol !== 'redis:' && protocol !== 'rediss:') {
    throw new ConfigError(
      `Redis session URL '${shown}' must start with redis:// or rediss:// (TLS)`,
    );
  }
}

/** The replies of a MULTI/EXEC, throwing the first command error. */
function execResults(results: [error: Error | null, reply: unknown][] | null): unknown[] {
  if (results === null) throw new Error('transaction was aborted');
  return results.map(([error, reply]) => {
    if (error) throw error;
    return reply;
  });
}

function parseItem(row: string): SessionItem {
  return JSON.parse(row) as SessionItem;
}
