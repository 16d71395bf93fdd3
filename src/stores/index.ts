/**
 * `agentdeck/stores`: the built-in backends, to construct one yourself and pass it in
 * (`new Deck({ eventStore })`; a session backend as `sessionFactory: (id) =>
 * backend.sessionFor(id)`, closed by you) instead of naming it by URL in `SERVICE_EVENTS` /
 * `SERVICE_SESSION`. Each passes its contract suite
 * (`agentdeck/testing/contracts`). Importing this entry loads `pg` and `ioredis`, which the
 * root `agentdeck` entry loads only when a URL asks for them.
 * @example
 * import { PostgresEventStore } from 'agentdeck/stores';
 * const deck = new Deck({ agents, eventStore: new PostgresEventStore({ url: process.env.DATABASE_URL! }) });
 */

export { openEventStore } from './events-url.js';
export { MemoryEventStore } from './memory/events.js';
export { PostgresEventStore, type PostgresEventStoreOptions } from './postgres/events.js';
export { RedisSessionBackend, type RedisSessionBackendOptions } from './redis/sessions.js';
export { openSessionBackend } from './sessions-url.js';
export { SqliteCheckpointer, type SqliteCheckpointerOptions } from './sqlite/checkpointer.js';
export { SqliteEventStore, type SqliteEventStoreOptions } from './sqlite/events.js';
export { SqliteSessionBackend, type SqliteSessionBackendOptions } from './sqlite/sessions.js';
