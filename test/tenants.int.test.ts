/**
 * Tenants over a real server on the Postgres event store (#39), in a schema of its own: the
 * cross-tenant suite generated from the OpenAPI document (support/cross-tenant.ts), as
 * tenants.test.ts runs it on SQLite.
 */
import { describe } from 'vitest';
import { PostgresEventStore } from '../src/stores/postgres/events.js';
import { describeCrossTenant } from './support/cross-tenant.js';
import { dropSchemas, TEST_POSTGRES_URL, uniqueSchema } from './support/postgres.js';

describe('tenants on Postgres, through a real server', () => {
  describeCrossTenant(async () => {
    const schema = uniqueSchema();
    const store = new PostgresEventStore({ url: TEST_POSTGRES_URL, schema, poolSize: 4 });
    return {
      store,
      async close() {
        await store.close();
        await dropSchemas([schema]);
      },
    };
  });
});
