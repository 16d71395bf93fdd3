/**
 * Conversation memory on `node:sqlite`: the default session backend. SPEC.md asks for "an
 * in-process SQLite session, lost on process exit" when `SERVICE_SESSION` is unset, so the
 * database is `:memory:` unless a file path is given. Each item is one JSON row; the
 * autoincrement key keeps insertion order across sessions and survives deletes, so "latest"
 * is always the highest key of a session. `DatabaseSync` is synchronous, so every call
 * runs to completion before another starts: concurrent `addItems` cannot interleave.
 */
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import type { DatabaseSync, StatementSync } from 'node:sqlite';
import { errorMessage, StoreError } from '../../core/errors.js';
import type { ConversationSession, SessionBackend, SessionItem } from '../../core/sessions.js';
import { storeFailure } from '../shared/driver-errors.js';
import { sqliteModule } from './driver.js';

/** Options for {@link SqliteSessionBackend}. */
export interface SqliteSessionBackendOptions {
  /** Database file, or `':memory:'` for a private database lost on process exit. @default ':memory:' */
  path?: string;
}

const DEFAULTS: Required<SqliteSessionBackendOptions> = { path: ':memory:' };

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
`;

interface Statements {
  all: StatementSync;
  insertMany: StatementSync;
  latest: StatementSync;
  insert: StatementSync;
  pop: StatementSync;
  clear: StatementSync;
}

/**
 * Session backend on an SQLite database, in memory by default.
 *
 * @example
 * ```ts
 * const backend = new SqliteSessionBackend(); // or { path: './.agentdeck/sessions.db' }
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
  #closed = false;

  constructor(options: SqliteSessionBackendOptions = {}) {
    const { path } = { ...DEFAULTS, ...options };
    this.path = path;
    try {
      const inMemory = path === ':memory:';
      if (!inMemory && !path.startsWith('file:')) mkdirSync(dirname(path), { recursive: true });
      this.#db = new (sqliteModule().DatabaseSync)(path);
      this.#db.exec(`PRAGMA busy_timeout = ${BUSY_TIMEOUT_MS};`);
      if (!inMemory) this.#db.exec('PRAGMA journal_mode = WAL;');
      this.#db.exec(SCHEMA);
      this.#sql = {
        all: this.#db.prepare(
          'SELECT item FROM agentdeck_session_items WHERE session_id = ? ORDER BY seq',
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
      };
    } catch (error) {
      throw new StoreError(
        `SQLite session store could not open '${path}': ${errorMessage(error)}; ` +
          'check that the path is writable',
        { cause: error },
      );
    }
  }

  sessionFor(sessionId: string): ConversationSession {
    return {
      getSessionId: async () => sessionId,
      getItems: async (limit) =>
        this.#run('read', sessionId, () => {
          if (limit !== undefined && limit <= 0) return [];
          const rows =
            limit === undefined
              ? this.#sql.all.all(sessionId)
              : this.#sql.latest.all(sessionId, limit);
          return rows.map((row) => parseItem(row.item));
        }),
      addItems: async (items) =>
        this.#run('add items to', sessionId, () => {
          if (items.length === 0) return;
          if (items.length === 1) {
            this.#sql.insert.run(sessionId, JSON.stringify(items[0]));
            return;
          }
          // One statement is atomic: no transaction to open and commit around the rows.
          const rows = JSON.stringify(items.map((item) => JSON.stringify(item)));
          this.#sql.insertMany.run(sessionId, rows);
        }),
      popItem: async () =>
        this.#run('pop an item from', sessionId, () => {
          const row = this.#sql.pop.get(sessionId);
          return row === undefined ? undefined : parseItem(row.item);
        }),
      clearSession: async () =>
        this.#run('clear', sessionId, () => {
          this.#sql.clear.run(sessionId);
        }),
    };
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
