/**
 * The SQLite backends on `node:sqlite`: the event store (the embedded default), sessions, and
 * the LangGraph checkpointer.
 */
export { SqliteCheckpointer, type SqliteCheckpointerOptions } from './checkpointer.js';
export { SqliteEventStore, type SqliteEventStoreOptions } from './events.js';
export { GROUP_COMMIT_MAX_EVENTS } from './group-commit.js';
export { EVENT_STORE_MIGRATIONS, type Migration, migrate } from './migrations.js';
export { SqliteSessionBackend, type SqliteSessionBackendOptions } from './sessions.js';
