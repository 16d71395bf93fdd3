/**
 * Tenants over a real server on the SQLite event store (#39): the cross-tenant suite generated
 * from the OpenAPI document (support/cross-tenant.ts). The Postgres run is
 * tenants.int.test.ts.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe } from 'vitest';
import { SqliteEventStore } from '../src/stores/sqlite/events.js';
import { describeCrossTenant } from './support/cross-tenant.js';

describe('tenants on SQLite, through a real server', () => {
  describeCrossTenant(async () => {
    const dir = mkdtempSync(join(tmpdir(), 'agentdeck-tenants-'));
    const store = new SqliteEventStore({ path: join(dir, 'state.db') });
    return {
      store,
      async close() {
        await store.close();
        rmSync(dir, { recursive: true, force: true });
      },
    };
  });
});
