/**
 * What only the Postgres claims have to prove: a claim is decided in one round trip, its
 * stale rule written in SQL (claims.ts), so the rows the rule reads are set here by hand
 * (a holder's age, lease and a `claimed_at` that is not an instant) and the decision is
 * checked against `isStale`, the rule every backend follows. The contract suite covers the
 * rest (refusals, renewals, takeovers, concurrency, odd keys).
 */
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { schemaStores, TEST_POSTGRES_URL } from '../../../test/support/postgres.js';
import { isStale } from '../../core/store.js';

const { freshSchema, open } = schemaStores(2);

/** A claims row as another process could have left it. */
async function setRow(
  schema: string,
  row: { key: string; runId: string; claimedAt: string; leaseMs: number | null },
): Promise<void> {
  const client = new pg.Client({ connectionString: TEST_POSTGRES_URL });
  await client.connect();
  try {
    await client.query(
      `INSERT INTO "${schema}".claims (key, run_id, claimed_at, lease_ms) VALUES ($1, $2, $3, $4)`,
      [row.key, row.runId, row.claimedAt, row.leaseMs],
    );
  } finally {
    await client.end();
  }
}

const ago = (ms: number) => new Date(Date.now() - ms).toISOString();

describe('Postgres claims: the stale rule in SQL', () => {
  const cases = [
    { name: 'young, no lease', claimedAt: ago(1_000), leaseMs: null, staleAfterMs: 60_000 },
    { name: 'old, no lease', claimedAt: ago(120_000), leaseMs: null, staleAfterMs: 60_000 },
    { name: 'young, lease run out', claimedAt: ago(5_000), leaseMs: 2_000, staleAfterMs: 60_000 },
    { name: 'young, lease still on', claimedAt: ago(1_000), leaseMs: 30_000, staleAfterMs: 60_000 },
    { name: 'a register, never stale', claimedAt: ago(9e9), leaseMs: null, staleAfterMs: 2 ** 53 },
    { name: 'not an instant', claimedAt: 'yesterday', leaseMs: null, staleAfterMs: 60_000 },
  ];
  for (const { name, claimedAt, leaseMs, staleAfterMs } of cases) {
    it(`decides as isStale does: ${name}`, async () => {
      const schema = freshSchema();
      const store = open(schema);
      await store.connect();
      const key = `session:${crypto.randomUUID()}`;
      await setRow(schema, { key, runId: 'run-old', claimedAt, leaseMs });
      const holder = { runId: 'run-old', claimedAt, ...(leaseMs === null ? {} : { leaseMs }) };
      const stale = isStale(holder, staleAfterMs, Date.now());
      const result = await store.claim({ key, runId: 'run-new', staleAfterMs, leaseMs: 30_000 });
      expect(result).toEqual(
        stale ? { acquired: true, tookOverFrom: holder } : { acquired: false, holder },
      );
      expect((await store.claimHolder(key))?.runId).toBe(stale ? 'run-new' : 'run-old');
    });
  }

  it('refuses a fractional lease, as the INTEGER column does, and changes nothing', async () => {
    const store = open(freshSchema());
    await store.connect();
    const key = `session:${crypto.randomUUID()}`;
    await expect(
      store.claim({ key, runId: 'run-a', staleAfterMs: 60_000, leaseMs: 1.5 }),
    ).rejects.toThrow(/claim/);
    expect(await store.claimHolder(key)).toBeNull();
    expect(await store.claim({ key, runId: 'run-a', staleAfterMs: 60_000 })).toEqual({
      acquired: true,
      tookOverFrom: null,
    });
  });
});
