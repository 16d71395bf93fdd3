/**
 * Several server processes starting at once on a fresh database each open the Postgres
 * checkpointer, whose own setup (LangGraph's PostgresSaver.setup()) is neither transactional
 * nor locked: the opens must serialize, and every one succeed.
 */
import pg from 'pg';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { TEST_POSTGRES_URL } from '../../test/support/postgres.js';
import { openCheckpointer } from './checkpoints-url.js';

const database = `agentdeck_test_${crypto.randomUUID().replaceAll('-', '')}`;
const url = new URL(TEST_POSTGRES_URL);
url.pathname = `/${database}`;

async function admin(sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: TEST_POSTGRES_URL });
  await client.connect();
  await client.query(sql).finally(() => client.end());
}

beforeAll(() => admin(`CREATE DATABASE ${database}`));
afterAll(() => admin(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`));

it('opens the checkpointer from several openers at once on a fresh database', async () => {
  const opened = await Promise.allSettled(
    Array.from({ length: 4 }, () => openCheckpointer(url.href, undefined)),
  );
  await Promise.all(opened.map((r) => (r.status === 'fulfilled' ? r.value.close() : null)));
  expect(opened.filter((r) => r.status === 'rejected')).toEqual([]);
});
