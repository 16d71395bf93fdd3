import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { EventStore } from '../../core/store.js';
import { describeEventStoreContract } from '../../testing/event-store-contract.js';
import { SqliteEventStore } from './events.js';

const dirs = new Map<EventStore, string>();

// The default groups streamed deltas into one commit per event-loop turn; `groupCommit: false`
// commits every append. Both must keep the contract.
for (const [name, options] of [
  ['sqlite', {}],
  ['sqlite, groupCommit: false', { groupCommit: false }],
] as const) {
  describeEventStoreContract(name, {
    create() {
      const dir = mkdtempSync(join(tmpdir(), 'agentdeck-events-'));
      const store = new SqliteEventStore({ path: join(dir, 'state.db'), ...options });
      dirs.set(store, dir);
      return store;
    },
    another: (store) =>
      new SqliteEventStore({ path: (store as SqliteEventStore).path, ...options }),
    async destroy(store) {
      await store.close();
      rmSync(dirs.get(store) ?? '', { recursive: true, force: true });
      dirs.delete(store);
    },
  });
}
