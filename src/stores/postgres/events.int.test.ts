import { afterAll } from 'vitest';
import { dropSchemas, TEST_POSTGRES_URL, uniqueSchema } from '../../../test/support/postgres.js';
import { describeEventStoreContract } from '../../testing/event-store-contract.js';
import { PostgresEventStore } from './events.js';

const schemas: string[] = [];
afterAll(() => dropSchemas(schemas));

// The default writes streamed deltas behind; `groupCommit: false` makes every append one
// round trip. Both must keep the contract. Each suite has its own schema (ids are random, so
// its tests may share it), and few connections (another suite may share the server).
for (const [name, options] of [
  ['postgres', {}],
  ['postgres, groupCommit: false', { groupCommit: false }],
] as const) {
  const schema = uniqueSchema();
  schemas.push(schema);
  const open = () =>
    new PostgresEventStore({ url: TEST_POSTGRES_URL, schema, poolSize: 4, ...options });
  describeEventStoreContract(name, { create: open, another: open });
}
