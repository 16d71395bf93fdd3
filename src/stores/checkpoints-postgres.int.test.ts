/**
 * Several server processes starting at once on a fresh database each open the Postgres
 * checkpointer, whose own setup (LangGraph's PostgresSaver.setup()) is neither transactional
 * nor locked: the opens must serialize, and every one succeed.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { adminQuery, scratchDatabase } from '../../test/support/postgres.js';
import { openCheckpointer } from './checkpoints-url.js';

const { name: database, url } = scratchDatabase();

beforeAll(() => adminQuery(`CREATE DATABASE ${database}`));
afterAll(() => adminQuery(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`));

it('opens the checkpointer from several openers at once on a fresh database', async () => {
  const opened = await Promise.allSettled(
    Array.from({ length: 4 }, () => openCheckpointer(url.href, undefined)),
  );
  await Promise.all(opened.map((r) => (r.status === 'fulfilled' ? r.value.close() : null)));
  expect(opened.filter((r) => r.status === 'rejected')).toEqual([]);
});
