/**
 * The Postgres round-trip count `bench:workflow` reports (bench/support/pg-statements.ts) is
 * exact only if every query lands on the work that made it: one sent from a pool's waiting
 * queue, or written behind from a `setImmediate`, included; a timer set up before, excluded.
 */
import pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import { countStatements } from '../bench/support/pg-statements.js';
import { TEST_POSTGRES_URL } from './support/postgres.js';

describe('bench statement count', () => {
  let pool: pg.Pool | undefined;
  afterEach(async () => {
    await pool?.end();
  });

  it('charges each query to the work that made it, and counts commits that write', async () => {
    // One connection: three of the four inserts wait in the pool's queue for it.
    pool = new pg.Pool({ connectionString: TEST_POSTGRES_URL, max: 1 });
    const db = pool;
    await db.query('CREATE TEMP TABLE probe (n int)');
    const query = pg.Client.prototype.query;
    const outside = setInterval(() => void db.query('SELECT 2'), 2);
    const { counted, background } = await countStatements(async () => {
      await Promise.all([1, 2, 3, 4].map((n) => db.query('INSERT INTO probe VALUES ($1)', [n])));
      const client = await db.connect();
      await client.query('BEGIN');
      await client.query('INSERT INTO probe VALUES (5)');
      await client.query('SELECT count(*) FROM probe');
      await client.query('COMMIT');
      client.release();
      await db.query('SELECT 1; INSERT INTO probe VALUES (6)');
      await db.query('BEGIN; SELECT 1; COMMIT');
      setImmediate(() => void db.query("SELECT pg_notify('probe', 'behind')"));
    }, 50);
    clearInterval(outside);

    expect(counted.byKind.get('INSERT INTO probe VALUES ($1)')).toBe(4);
    expect(counted.byKind.has('SELECT 2')).toBe(false);
    expect(background.byKind.get('SELECT 2')).toBeGreaterThan(0);
    expect(counted.calls).toBe(4 + 4 + 1 + 1 + 1);
    expect(counted.statements).toBe(4 + 4 + 2 + 3 + 1);
    expect(counted.transactionControl).toBe(4);
    // The four inserts, the explicit transaction and the implicit one; not the read-only
    // transaction, nor the notify (it writes no WAL).
    expect(counted.writeCommits).toBe(4 + 1 + 1);
    expect(pg.Client.prototype.query).toBe(query);
    expect(Object.hasOwn(pg.Pool.prototype, 'connect')).toBe(false);
  });
});
