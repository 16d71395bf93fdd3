/**
 * Conversation memory on `node:sqlite`: the default session backend. Unless `SERVICE_SESSION`
 * names another place, it keeps sessions in the events' SQLite file (the default
 * `./.agentdeck/state.db`, `sessions-url.ts`), so a restart keeps them as it keeps the runs, or
 * in a `:memory:` database when the events are not in a file. Each item is one JSON row; the
 * autoincrement key keeps insertion order across sessions and survives deletes, so "latest"
 * is always the highest key of a session. `DatabaseSync` is synchronous, so every call
 * runs to completion before another starts: concurrent `addItems` cannot interleave. On a
 * file, each write first commits the event store's open group commits on it
 * (`group-commit.ts`): an open group holds the file's write lock, and a synchronous wait for
 * it would block the very event loop that commits it.
 *
 * Bounded, so a long-lived process does not grow with every session id it ever saw: a session
 * expires `ttlSeconds` after its last write (as Redis's do), and beyond `maxSessions` the
 * sessions written longest ago are dropped. Both are checked on writes (every
 * `EVICT_EVERY_WRITES`), and an expired session reads as empty at once.
 *
 * `getSharedItems` (what a turn reads) is served from a per-backend cache of parsed histories
 * (`history-cache.ts`):
 * rows are only ever deleted from a session's end (`popItem`) or all at once (`clearSession`,
 * expiry, eviction), and keys are never reused, so while the row of the last item read is
 * still the session's, every row before it is too, and only the rows after it are read and
 * parsed. That holds whichever process wrote the file.
 */
import type { DatabaseSync, StatementSync } from 'node:sqlite';
import { errorMessage, StoreError } from '../../core/errors.js';
import { log } from '../../core/log.js';
import type { SessionBackend, SessionItem, SharedHistorySession } from '../../core/sessions.js';
import { storeFailure } from '../shared/driver-errors.js';
import { DEFAULT_CACHED_SESSIONS, deepFreeze, HistoryCache } from '../shared/history-cache.js';
import { openDatabaseFile } from './database.js';
import { flushGroupCommits } from './group-commit.js';

/** Options for {@link SqliteSessionBackend}. */
export interface SqliteSessionBackendOptions {
  /**
   * Database file (it may be the event store's), or `':memory:'` for a private database lost
   * on process exit. @default ':memory:'
   */
  path?: string;
  /** Seconds a session lives after its last write; `null`: no expiry. @default null */
  ttlSeconds?: number | null;
  /** The most sessions kept; the ones written longest ago go first. `null`: no bound. @default 10_000 */
  maxSessions?: number | null;
  /** How many sessions' parsed histories are kept for the next full read; 0: none. @default 256 */
  cachedSessions?: number;
}

export const DEFAULT_MAX_SESSIONS = 10_000;

const DEFAULTS: Required<SqliteSessionBackendOptions> = {
  path: ':memory:',
  ttlSeconds: null,
  maxSessions: DEFAULT_MAX_SESSIONS,
  cachedSessions: DEFAULT_CACHED_SESSIONS,
};

/** Expiry and the session bound are enforced once per this many writes. */
export const EVICT_EVERY_WRITES = 64;

/** How long a write waits for another process's lock on a file database. */
const BUSY_TIMEOUT_MS = 5_000;

const SCHEMA = `
CREATE TABLE IF NOT EXISTS agentdeck_session_items (
  seq INTEGER PRIMARY KEY AUTOINCREMENT,
  session_id TEXT NOT NULL,
  item TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS agentdeck_session_items_by_session
  ON agentdeck_session_items (session_id, seq);
CREATE TABLE IF NOT EXISTS agentdeck_sessions (
  session_id TEXT PRIMARY KEY,
  written_at INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS agentdeck_sessions_by_write ON agentdeck_sessions (written_at);
`;

interface Statements {
  all: StatementSync;
  after: StatementSync;
  has: StatementSync;
  insertMany: StatementSync;
  latest: StatementSync;
  insert: StatementSync;
  pop: StatementSync;
  clear: StatementSync;
  touch: StatementSync;
  writtenAt: StatementSync;
  forget: StatementSync;
  expire: StatementSync;
  count: StatementSync;
  evictOldest: StatementSync;
  adopt: StatementSync;
}

/**
 * Session backend on an SQLite database, in memory by default.
 *
 * @example
 * ```ts
 * const backend = new SqliteSessionBackend(); // or { path: './.agentdeck/state.db' }
 * const session = backend.sessionFor('user-42');
 * await session.addItems([{ role: 'user', content: 'hi' }]);
 * await session.getItems(10); // the latest 10, oldest first
 * await backend.close();
 * ```
 */
export class SqliteSessionBackend implements SessionBackend {
  /** The database file, or `':memory:'`. */
  readonly path: string;
  readonly #db: DatabaseSync;
  readonly #sql: Statements;
  readonly #ttlMs: number | null;
  readonly #maxSessions: number | null;
  readonly #cache: HistoryCache;
  #writes = 0;
  #closed = false;

  constructor(options: SqliteSessionBackendOptions = {}) {
    const { path, ttlSeconds, maxSessions, cachedSessions } = { ...DEFAULTS, ...options };
    this.path = path;
    this.#ttlMs =
      checkBound('ttlSeconds', ttlSeconds) === null ? null : (ttlSeconds as number) * 1000;
    this.#maxSessions = checkBound('maxSessions', maxSessions);
    if (!(Number.isSafeInteger(cachedSessions) && cachedSessions >= 0)) {
      throw new StoreError(
        `SQLite session store: \`cachedSessions\` must be a whole number, 0 or more; got ${String(cachedSessions)}`,
      );
    }
    this.#cache = new HistoryCache(cachedSessions);
    try {
      this.#db = openDatabaseFile(path, BUSY_TIMEOUT_MS);
      this.#flushEventGroups();
      this.#db.exec(SCHEMA);
      this.#sql = {
        all: this.#db.prepare(
          'SELECT item FROM agentdeck_session_items WHERE session_id = ? ORDER BY seq',
        ),
        after: this.#db.prepare(
          `SELECT seq, item FROM agentdeck_session_items WHERE session_id = ? AND seq > ?
             ORDER BY seq`,
        ),
        has: this.#db.prepare(
          'SELECT 1 AS found FROM agentdeck_session_items WHERE seq = ? AND session_id = ?',
        ),
        latest: this.#db.prepare(
          `SELECT item FROM (SELECT seq, item FROM agentdeck_session_items
             WHERE session_id = ? ORDER BY seq DESC LIMIT ?) ORDER BY seq`,
        ),
        insert: this.#db.prepare(
          'INSERT INTO agentdeck_session_items (session_id, item) VALUES (?, ?)',
        ),
        // Several items in one statement (atomic, in order): a JSON array of their JSON texts.
        insertMany: this.#db.prepare(
          `INSERT INTO agentdeck_session_items (session_id, item)
             SELECT ?, value FROM json_each(?) ORDER BY key`,
        ),
        pop: this.#db.prepare(
          `DELETE FROM agentdeck_session_items WHERE seq =
             (SELECT max(seq) FROM agentdeck_session_items WHERE session_id = ?)
           RETURNING item`,
        ),
        clear: this.#db.prepare('DELETE FROM agentdeck_session_items WHERE session_id = ?'),
        touch: this.#db.prepare(
          // A replaced row gets a new, higher rowid: the write order within one millisecond.
          'INSERT OR REPLACE INTO agentdeck_sessions (session_id, written_at) VALUES (?, ?)',
        ),
        writtenAt: this.#db.prepare(
          'SELECT written_at FROM agentdeck_sessions WHERE session_id = ?',
        ),
        forget: this.#db.prepare('DELETE FROM agentdeck_sessions WHERE session_id = ?'),
        expire: this.#db.prepare(
          'DELETE FROM agentdeck_sessions WHERE written_at < ? RETURNING session_id',
        ),
        count: this.#db.prepare('SELECT count(*) AS n FROM agentdeck_sessions'),
        evictOldest: this.#db.prepare(
          `DELETE FROM agentdeck_sessions WHERE session_id IN
             (SELECT session_id FROM agentdeck_sessions ORDER BY written_at, rowid LIMIT ?)
           RETURNING session_id`,
        ),
        // A database written before sessions were tracked: its sessions count from now.
        adopt: this.#db.prepare(
          `INSERT OR IGNORE INTO agentdeck_sessions (session_id, written_at)
             SELECT DISTINCT session_id, ? FROM agentdeck_session_items`,
        ),
      };
      this.#sql.adopt.run(Date.now());
    } catch (error) {
      throw new StoreError(
        `SQLite session store could not open '${path}': ${errorMessage(error)}; ` +
          'check that the path is writable',
        { cause: error },
      );
    }
  }

  sessionFor(sessionId: string): SharedHistorySession {
    return {
      getSessionId: async () => sessionId,
      getItems: async (limit) =>
        this.#run('read', sessionId, () => {
          if (limit !== undefined && limit <= 0) return [];
          if (this.#expired(sessionId)) return [];
          const rows =
            limit === undefined
              ? this.#sql.all.all(sessionId)
              : this.#sql.latest.all(sessionId, limit);
          return rows.map((row) => parseItem(row.item));
        }),
      getSharedItems: async () =>
        this.#run('read', sessionId, () => {
          if (!this.#expired(sessionId)) return this.#history(sessionId);
          this.#cache.forget(sessionId);
          return [];
        }),
      addItems: async (items) =>
        this.#run('add items to', sessionId, () => {
          if (items.length === 0) return;
          // One transaction: another process sharing the file never sees (or evicts) a write
          // half done, and an expired history is cleared with the write that replaces it.
          this.#transaction(() => {
            if (this.#expired(sessionId)) this.#sql.clear.run(sessionId);
            if (items.length === 1) {
              this.#sql.insert.run(sessionId, JSON.stringify(items[0]));
            } else {
              const rows = JSON.stringify(items.map((item) => JSON.stringify(item)));
              this.#sql.insertMany.run(sessionId, rows);
            }
            this.#sql.touch.run(sessionId, Date.now());
          });
          this.#evictNowAndThen();
        }),
      popItem: async () =>
        this.#run('pop an item from', sessionId, () => {
          if (this.#expired(sessionId)) return undefined;
          this.#flushEventGroups();
          const row = this.#sql.pop.get(sessionId);
          return row === undefined ? undefined : parseItem(row.item);
        }),
      clearSession: async () =>
        this.#run('clear', sessionId, () => {
          this.#transaction(() => {
            this.#sql.clear.run(sessionId);
            this.#sql.forget.run(sessionId);
          });
          this.#cache.forget(sessionId);
        }),
    };
  }

  /**
   * The whole history, shared, from the cache: the rows after the last one read, when that row is
   * still the session's (see the module's header); else every row.
   */
  #history(sessionId: string): SessionItem[] {
    let cached = this.#cache.get(sessionId);
    if (cached !== undefined && cached.cursor > 0 && !this.#sql.has.get(cached.cursor, sessionId)) {
      cached = undefined; // popped or cleared since: read it all again
    }
    const rows = this.#sql.after.all(sessionId, cached?.cursor ?? 0) as Array<{
      seq: number;
      item: unknown;
    }>;
    const added = rows.map((row) => deepFreeze(parseItem(row.item)));
    // The cached array never leaves here (readers get a copy), so it grows in place.
    const entry = cached ?? { items: [], cursor: 0 };
    for (const item of added) entry.items.push(item);
    entry.cursor = rows.at(-1)?.seq ?? entry.cursor;
    if (cached === undefined) this.#cache.set(sessionId, entry);
    return [...entry.items];
  }

  /** Whether the session expired (its last write is older than the TTL). */
  #expired(sessionId: string): boolean {
    if (this.#ttlMs === null) return false;
    const row = this.#sql.writtenAt.get(sessionId) as { written_at: number } | undefined;
    return row !== undefined && row.written_at < Date.now() - this.#ttlMs;
  }

  /** Note a write, and now and then drop what expired or is beyond the bound. */
  /**
   * Now and then, drop what expired or is beyond the bound, in a transaction of its own (a
   * session's rows and its items go together). A failure here is logged, not raised: the
   * write before it is done, and a caller that retried it would write it twice.
   */
  #evictNowAndThen(): void {
    this.#writes += 1;
    if (this.#writes % EVICT_EVERY_WRITES !== 0) return;
    try {
      this.#transaction(() => {
        const dropped: unknown[] = [];
        const now = Date.now();
        if (this.#ttlMs !== null) dropped.push(...this.#sql.expire.all(now - this.#ttlMs));
        if (this.#maxSessions !== null) {
          const { n } = this.#sql.count.get() as { n: number };
          if (n > this.#maxSessions) {
            dropped.push(...this.#sql.evictOldest.all(n - this.#maxSessions));
          }
        }
        for (const row of dropped) this.#sql.clear.run((row as { session_id: string }).session_id);
      });
    } catch (error) {
      log.error(
        `[agentdeck] SQLite session store '${this.path}' could not drop expired sessions: ${errorMessage(error)}; it tries again later`,
      );
    }
  }

  /** Run `body` in one write transaction (`BEGIN IMMEDIATE`: the write lock first). */
  #transaction(body: () => void): void {
    this.#flushEventGroups();
    this.#db.exec('BEGIN IMMEDIATE');
    try {
      body();
      this.#db.exec('COMMIT');
    } catch (error) {
      this.#db.exec('ROLLBACK');
      throw error;
    }
  }

  /** Commit the event stores' open groups on this file, which would hold up a write here. */
  #flushEventGroups(): void {
    if (this.path !== ':memory:') flushGroupCommits(this.path);
  }

  /** Closes the database; a memory database's history is gone. Safe to call twice. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.#db.close();
  }

  /** Runs one operation, turning a driver failure into a StoreError that names the session. */
  #run<T>(what: string, sessionId: string, operation: () => T): T {
    if (this.#closed) {
      throw new StoreError(
        `SQLite session store '${this.path}' is closed; cannot ${what} session '${sessionId}'`,
      );
    }
    try {
      return operation();
    } catch (error) {
      throw storeFailure(
        'sqlite',
        `SQLite session store '${this.path}' could not ${what} session '${sessionId}'`,
        error,
      );
    }
  }
}

function parseItem(value: unknown): SessionItem {
  if (typeof value !== 'string')
    throw new TypeError(`stored item is a ${typeof value}, not JSON text`);
  return JSON.parse(value) as SessionItem;
}

function checkBound(name: string, value: number | null): number | null {
  if (value === null) return null;
  if (!Number.isFinite(value) || value <= 0) {
    throw new StoreError(
      `SQLite session store: \`${name}\` must be a positive number, or null for no bound; got ${String(value)}`,
    );
  }
  return value;
}
