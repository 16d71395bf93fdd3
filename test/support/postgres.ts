/**
 * For the Postgres integration tests: the local server (TEST_POSTGRES_URL, default the
 * local `test` database, trust auth) and a schema name unique to one test run, dropped
 * afterwards, so that suites running at once on the same database never collide.
 */
import pg from 'pg';
import { afterAll, afterEach } from 'vitest';
import { TextBlock } from '../../src/core/blocks.js';
import type { NewEvent } from '../../src/core/events.js';
import {
  PostgresEventStore,
  type PostgresEventStoreOptions,
} from '../../src/stores/postgres/events.js';
import { listRunsSql } from '../../src/stores/postgres/migrations.js';

export const TEST_POSTGRES_URL =
  process.env.TEST_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

/** A fresh schema name: `agentdeck_test_<random>`. */
export function uniqueSchema(): string {
  return `agentdeck_test_${crypto.randomUUID().replaceAll('-', '')}`;
}

/** Drop the schemas a test file created, with everything in them. */
export async function dropSchemas(schemas: Iterable<string>): Promise<void> {
  const client = new pg.Client({ connectionString: TEST_POSTGRES_URL });
  await client.connect();
  try {
    for (const schema of schemas) await client.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
  } finally {
    await client.end();
  }
}

/** Run one statement as the server's admin (a `CREATE DATABASE` cannot run in a pool's transaction). */
export async function adminQuery(sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: TEST_POSTGRES_URL });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

/** A database of a test file's own (create it before, drop it after): its name and URL. */
export function scratchDatabase(): { name: string; url: URL } {
  const name = uniqueSchema();
  const url = new URL(TEST_POSTGRES_URL);
  url.pathname = `/${name}`;
  return { name, url };
}

/**
 * Event stores on fresh schemas for one test file: each test's stores are closed after it
 * (connections are few, and another suite may share the server), the schemas after the file.
 */
export function schemaStores(poolSize: number) {
  const schemas: string[] = [];
  const stores: PostgresEventStore[] = [];
  afterEach(async () => {
    await Promise.all(stores.splice(0).map((store) => store.close().catch(() => {})));
  });
  afterAll(() => dropSchemas(schemas));
  return {
    freshSchema(): string {
      const schema = uniqueSchema();
      schemas.push(schema);
      return schema;
    },
    open(schema: string, options: Partial<PostgresEventStoreOptions> = {}) {
      const store = new PostgresEventStore({
        url: TEST_POSTGRES_URL,
        schema,
        poolSize,
        ...options,
      });
      stores.push(store);
      return store;
    },
  };
}

/** Events of a run `runId` (origin `pg`), for the Postgres store tests. */
export const pgEvents = {
  envelope: (runId: string) => ({ runId, sessionId: null, namespace: null, origin: 'pg' }),
  started: (runId: string, text = 'hi'): NewEvent => ({
    ...pgEvents.envelope(runId),
    kind: 'run.started',
    payload: { invocableType: 'agent', input: [new TextBlock(text)] },
  }),
  delta: (runId: string, text: string): NewEvent => ({
    ...pgEvents.envelope(runId),
    kind: 'text.delta',
    payload: { messageId: 'm1', text },
  }),
  completed: (runId: string): NewEvent => ({
    ...pgEvents.envelope(runId),
    kind: 'run.completed',
    payload: { output: [new TextBlock('done')], usage: null },
  }),
};

/** A client whose search path is `schema`, for `body`; closed after it. */
export async function withClient<T>(
  schema: string,
  body: (client: pg.Client) => Promise<T>,
): Promise<T> {
  const client = new pg.Client({
    connectionString: TEST_POSTGRES_URL,
    options: `-c search_path=${schema}`,
  });
  await client.connect();
  try {
    return await body(client);
  } finally {
    await client.end();
  }
}

/** The listing's cursor condition (`after` a run), with its parameters at $2 and $3. */
export const LISTING_AFTER =
  '(started_at, created) < ($2, coalesce((SELECT c.created FROM runs c WHERE c.run_id = $3), -1))';

/** The plan Postgres makes for the run listing filtered by `where` (`args`: its parameters). */
export async function listingPlan(
  client: pg.Client,
  where: string[],
  limitParam: number,
  args: string,
): Promise<string> {
  await client.query(`PREPARE listing AS ${listRunsSql(where, limitParam)}`);
  const { rows } = await client.query(`EXPLAIN EXECUTE listing(${args})`);
  await client.query('DEALLOCATE listing');
  return rows.map((row) => String(row['QUERY PLAN'])).join('\n');
}
