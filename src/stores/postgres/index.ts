/** The PostgreSQL event store (`SERVICE_EVENTS=postgres://...`), for several server processes. */
export { PostgresEventStore, type PostgresEventStoreOptions } from './events.js';
export { GROUP_COMMIT_MAX_EVENTS } from './group-commit.js';
export { EVENT_STORE_MIGRATIONS, type Migration, migrate } from './migrations.js';
