/**
 * For the Postgres integration tests: the local server (TEST_POSTGRES_URL, default the
 * local `test` database, trust auth) and a schema name unique to one test run, dropped
 * afterwards, so that suites running at once on the same database never collide.
 */
import pg from 'pg';

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
