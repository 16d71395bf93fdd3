/**
 * What only the Postgres claims have to prove: a claim is decided in one round trip, its
 * stale rule written in SQL (claims.ts), so the rows the rule reads are set here by hand (a
 * holder's age and lease) and the decision is checked against `isStale`, the rule every
 * backend follows; a `claimed_at` agentdeck never writes is taken over, never an error; a
 * NUL character is refused as bad input. The contract suite covers the rest (refusals,
 * renewals, takeovers, concurrency, odd keys).
 */
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { schemaStores, TEST_POSTGRES_URL } from '../../../test/support/postgres.js';
import { InvalidInputError } from '../../core/errors.js';
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
    {
      name: 'no timeout, lease run out',
      claimedAt: ago(5_000),
      leaseMs: 2_000,
      staleAfterMs: Infinity,
    },
    {
      name: 'a NaN timeout, never stale',
      claimedAt: ago(5_000),
      leaseMs: 2_000,
      staleAfterMs: NaN,
    },
  ];
  for (const { name, claimedAt, leaseMs, staleAfterMs } of cases) {
    it(`decides as isStale does: ${name}`, async () => {
      const { store, key, holder } = await heldBy(claimedAt, leaseMs);
      const stale = isStale(holder, staleAfterMs, Date.now());
      const result = await store.claim({ key, runId: 'run-new', staleAfterMs, leaseMs: 30_000 });
      expect(result).toEqual(
        stale ? { acquired: true, tookOverFrom: holder } : { acquired: false, holder },
      );
      expect((await store.claimHolder(key))?.runId).toBe(stale ? 'run-new' : 'run-old');
    });
  }

  // Never written by agentdeck (toISOString): stale, taken over and said so, never an error.
  for (const claimedAt of [
    'yesterday',
    new Date().toUTCString(),
    new Date().toISOString().replace('T', ' '),
    new Date().toISOString().replace('Z', '+00:00'),
    '2024-02-30T00:00:00.000Z',
  ]) {
    it(`takes over a claim whose claimed_at is not toISOString() output: ${claimedAt}`, async () => {
      const { store, key, holder } = await heldBy(claimedAt, null);
      expect(await store.claim({ key, runId: 'run-new', staleAfterMs: 60_000 })).toEqual({
        acquired: true,
        tookOverFrom: holder,
      });
    });
  }

  it('refuses a fractional lease, as the INTEGER column does, and changes nothing', async () => {
    const { store } = await connectedStore();
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

  it('refuses a key or run id with a NUL character as bad input, not as an outage', async () => {
    const { store } = await connectedStore();
    for (const request of [
      { key: 'session:a\u0000b', runId: 'run-a' },
      { key: `session:${crypto.randomUUID()}`, runId: 'run\u0000a' },
    ]) {
      const refused = store.claim({ ...request, staleAfterMs: 60_000 });
      await expect(refused).rejects.toBeInstanceOf(InvalidInputError);
      await expect(refused).rejects.toThrow(/NUL character/);
    }
  });
});

/** A fresh schema whose claim on a new key is held by `run-old` as another process left it. */
async function heldBy(claimedAt: string, leaseMs: number | null) {
  const { schema, store } = await connectedStore();
  const key = `session:${crypto.randomUUID()}`;
  await setRow(schema, { key, runId: 'run-old', claimedAt, leaseMs });
  const holder = { runId: 'run-old', claimedAt, ...(leaseMs === null ? {} : { leaseMs }) };
  return { store, key, holder };
}

/** A store connected to a schema of its own. */
async function connectedStore() {
  const schema = freshSchema();
  const store = open(schema);
  await store.connect();
  return { schema, store };
}
