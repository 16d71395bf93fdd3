/**
 * The schema layout of the event store a location names, read without migrating or
 * writing anything (`agentdeck status`): an SQLite file is opened read-only, a Postgres
 * database through one connection of its own. A store that does not exist yet reads as
 * layout 0. See CONTRIBUTING.md, "Migrations and rolling upgrades".
 */
import { existsSync } from 'node:fs';
import pg from 'pg';
import { errorMessage, StoreError } from '../core/errors.js';
import type { StoreLayout } from '../core/store.js';
import type { EventStoreLocation } from './events-url.js';
import {
  EVENT_STORE_MIGRATIONS as POSTGRES_MIGRATIONS,
  readLayout as readPostgres,
} from './postgres/migrations.js';
import { reportLayout } from './shared/migration.js';
import { redactUrl } from './shared/url.js';
import { sqliteModule } from './sqlite/driver.js';
import {
  readLayout as readSqlite,
  EVENT_STORE_MIGRATIONS as SQLITE_MIGRATIONS,
} from './sqlite/migrations.js';

/** The `events` layout at `location`; `null` for the memory store, which has no schema. */
export async function readEventStoreLayout(
  location: EventStoreLocation,
): Promise<StoreLayout | null> {
  if (location.backend === 'memory') return null;
  if (location.backend === 'sqlite') {
    const { path } = location;
    if (path !== ':memory:' && !path.startsWith('file:') && !existsSync(path)) {
      return reportLayout(undefined, 0, SQLITE_MIGRATIONS); // no file yet (opening creates it)
    }
    let db: import('node:sqlite').DatabaseSync | undefined;
    try {
      db = new (sqliteModule().DatabaseSync)(path, { readOnly: true, timeout: 5_000 });
      return readSqlite(db, 'events', SQLITE_MIGRATIONS);
    } catch (error) {
      throw new StoreError(
        `could not read the schema layout of the SQLite event store at '${path}': ${errorMessage(error)}`,
        { cause: error },
      );
    } finally {
      db?.close();
    }
  }
  const client = new pg.Client({ connectionString: location.url });
  client.on('error', () => {});
  try {
    await client.connect();
    return await readPostgres(client, 'events', POSTGRES_MIGRATIONS);
  } catch (error) {
    throw new StoreError(
      `could not read the schema layout of the Postgres event store at ${redactUrl(location.url)}: ${errorMessage(error)}`,
      { cause: error },
    );
  } finally {
    await client.end().catch(() => {});
  }
}
