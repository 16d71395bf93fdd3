/**
 * Resolves the `SERVICE_CHECKPOINT` setting (durable workflow checkpoints) to a LangGraph
 * checkpointer. Unset, checkpoints follow the event store's kind and go where the events are:
 * the same SQLite file (so one file holds everything an approval needs to survive a restart),
 * the same Postgres database (so every server process reaches them), or the process's memory
 * when the events are in memory (`memory://`: a deck that keeps nothing on disk writes no
 * file). Set, `memory://` keeps them in the process; `sqlite://...` in that file;
 * `postgres://...` uses LangGraph's official PostgresSaver, creating its tables on first use.
 * Postgres support is loaded only when named.
 */
import type { BaseCheckpointSaver } from '@langchain/langgraph-checkpoint';
import { MemorySaver } from '@langchain/langgraph-checkpoint';
import { ConfigError, errorMessage, StoreError } from '../core/errors.js';
import type { EventStore } from '../core/store.js';
import { DEFAULT_EVENTS_FILE, parseEventStoreUrl } from './events-url.js';
import { MemoryEventStore } from './memory/events.js';
import { guardedPostgresSaver, WAKEUPS_SCHEMA } from './postgres/checkpointer.js';
import { withAdvisoryLock } from './postgres/migrations.js';
import { resilientPool } from './postgres/pool.js';
import { storeFailure } from './shared/driver-errors.js';
import { redactUrl } from './shared/url.js';
import { SqliteCheckpointer } from './sqlite/checkpointer.js';
import { SqliteEventStore } from './sqlite/events.js';
import { fileKey } from './sqlite/group-commit.js';

/** Where checkpoints live, as read from a `SERVICE_CHECKPOINT` value. */
export type CheckpointLocation =
  | { backend: 'memory' }
  | { backend: 'sqlite'; path: string }
  | { backend: 'postgres'; url: string };

export interface OpenCheckpointer {
  saver: BaseCheckpointSaver;
  location: CheckpointLocation;
  close(): Promise<void>;
  /**
   * For readiness, on a checkpointer with a server of its own (Postgres): resolves when it
   * answers, rejects with a StoreUnavailableError. Absent when the checkpoints share the
   * event store's file, which readiness checks already.
   */
  ping?(): Promise<void>;
}

/** How long opening a checkpoint connection may take before the write fails, in ms. */
const POSTGRES_CONNECT_TIMEOUT_MS = 5_000;

const ACCEPTED =
  "leave SERVICE_CHECKPOINT unset for the event store's SQLite file, Postgres database or memory (./.agentdeck/state.db by default), " +
  'or set it to memory://, sqlite:///absolute/path.db, sqlite://relative/path.db or postgres://user@host:5432/db';

/**
 * Read a `SERVICE_CHECKPOINT` value. Unset or empty: where `SERVICE_EVENTS` (`eventsUrl`)
 * keeps the events: its SQLite file (`./.agentdeck/state.db` when it is unset too), its
 * Postgres database, or memory.
 *
 * @example
 * ```ts
 * parseCheckpointUrl(undefined, 'sqlite:///srv/state.db'); // { backend: 'sqlite', path: '/srv/state.db' }
 * parseCheckpointUrl(undefined, 'postgres://app@db/deck'); // { backend: 'postgres', url: 'postgres://app@db/deck' }
 * parseCheckpointUrl(undefined, 'memory://'); // { backend: 'memory' }
 * ```
 */
export function parseCheckpointUrl(
  url: string | undefined,
  eventsUrl: string | undefined,
  cwd: string = process.cwd(),
): CheckpointLocation {
  const value = url?.trim() ?? '';
  if (value === '') {
    const events = safeEventsLocation(eventsUrl, cwd);
    return events ?? parseEventStoreUrl(`sqlite://${DEFAULT_EVENTS_FILE}`, cwd);
  }
  const scheme = /^([a-z][a-z0-9+.-]*):/i.exec(value)?.[1]?.toLowerCase();
  if (scheme === 'postgres' || scheme === 'postgresql') return { backend: 'postgres', url: value };
  if (scheme === 'memory' || scheme === 'sqlite') {
    try {
      return parseEventStoreUrl(value, cwd);
    } catch {
      // Reported below with this setting's name.
    }
  }
  throw new ConfigError(
    `SERVICE_CHECKPOINT '${value.replace(/\/\/[^/@]*@/, '//***@')}' is not a supported checkpointer; ${ACCEPTED}`,
  );
}

/** Where `SERVICE_EVENTS` keeps the events; `null` when it cannot be read (its store says why). */
function safeEventsLocation(eventsUrl: string | undefined, cwd: string): CheckpointLocation | null {
  try {
    return parseEventStoreUrl(eventsUrl, cwd);
  } catch {
    return null;
  }
}

/**
 * The checkpoints' default beside an event store the deck was given (which `SERVICE_EVENTS`
 * may not describe): memory for a memory store, the file of an SQLite one; `null` for another
 * kind, whose place `SERVICE_EVENTS` says (a Postgres store keeps its URL to itself).
 */
function besideStore(eventStore: EventStore | undefined): CheckpointLocation | null {
  if (eventStore instanceof MemoryEventStore) return { backend: 'memory' };
  if (eventStore instanceof SqliteEventStore) return { backend: 'sqlite', path: eventStore.path };
  return null;
}

/**
 * Open the checkpointer a `SERVICE_CHECKPOINT` value names (see {@link parseCheckpointUrl}).
 * Unset, beside `eventStore` when it is a memory or SQLite store, since the deck may have
 * been given one `SERVICE_EVENTS` does not name. An SQLite checkpointer on the same file as
 * `eventStore` shares its connection. A Postgres checkpointer is connected and its tables
 * are created before this resolves.
 */
export async function openCheckpointer(
  url: string | undefined,
  eventsUrl: string | undefined,
  eventStore?: EventStore,
): Promise<OpenCheckpointer> {
  const unset = (url?.trim() ?? '') === '';
  const location = (unset ? besideStore(eventStore) : null) ?? parseCheckpointUrl(url, eventsUrl);
  if (location.backend === 'memory') {
    return { saver: new MemorySaver(), location, close: async () => {} };
  }
  if (location.backend === 'sqlite') {
    const shared =
      eventStore instanceof SqliteEventStore && fileKey(eventStore.path) === fileKey(location.path)
        ? eventStore.connection
        : null;
    const saver = new SqliteCheckpointer(location.path, shared ? { database: shared } : {});
    return { saver, location, close: async () => saver.close() };
  }
  const { PostgresSaver } = await import('@langchain/langgraph-checkpoint-postgres');
  // Our own pool rather than fromConnString's: a connection that breaks while a checkpoint
  // is written must fail that write, not end the process (pool.ts).
  const pool = resilientPool({
    connectionString: location.url,
    connectionTimeoutMillis: POSTGRES_CONNECT_TIMEOUT_MS,
  });
  const where = `the Postgres checkpointer at '${redactUrl(location.url)}'`;
  const saver = guardedPostgresSaver(PostgresSaver, pool, where);
  try {
    // Serialized across processes: several servers may start at once on a fresh database.
    await withAdvisoryLock(location.url, 'agentdeck.migrate:checkpoints', async () => {
      await saver.setup();
      await pool.query(WAKEUPS_SCHEMA);
    });
  } catch (error) {
    await saver.end().catch(() => {});
    throw new StoreError(
      `could not open the Postgres checkpointer (SERVICE_CHECKPOINT, or SERVICE_EVENTS when it is unset): ${errorMessage(error)}; ` +
        'check that the server is reachable and the database exists',
      { cause: error },
    );
  }
  const ping = async () => {
    try {
      await pool.query('SELECT 1');
    } catch (error) {
      throw storeFailure('postgres', `${where} could not answer a ping`, error);
    }
  };
  return { saver, location, close: () => saver.end(), ping };
}
