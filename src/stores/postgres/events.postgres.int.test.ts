/**
 * What only the Postgres event store has to prove, against the local server: seq stays
 * gap-free with appenders on separate pools (separate connections, as separate processes
 * have), migrations serialize, connection failures are StoreErrors that hide the password,
 * and the written-behind deltas keep the durability contract. Every store here uses a
 * schema of its own test run, dropped afterwards.
 */
import { createServer } from 'node:net';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import {
  dropSchemas,
  pgEvents,
  schemaStores,
  TEST_POSTGRES_URL,
} from '../../../test/support/postgres.js';
import { StoreError } from '../../core/errors.js';
import type { Event } from '../../core/events.js';
import { PostgresEventStore } from './events.js';
import { EVENT_STORE_MIGRATIONS, migrate } from './migrations.js';

const { freshSchema, open } = schemaStores(4);
const started = (runId: string) => pgEvents.started(runId, 'go');
const { delta, completed } = pgEvents;

const seqsOf = (events: Event[]) => events.map((event) => event.seq);
const upTo = (n: number) => Array.from({ length: n }, (_, i) => i);

describe('PostgresEventStore across connections', () => {
  for (const [name, options, batch] of [
    ['one delta per append, groupCommit: false', { groupCommit: false }, 1],
    ['batches of three, the default', {}, 3],
  ] as const) {
    it(`keeps seq gap-free with 8 appenders on separate pools (${name})`, async () => {
      const schema = freshSchema();
      const writers = Array.from({ length: 8 }, () => open(schema, { ...options, poolSize: 2 }));
      await Promise.all(writers.map((store) => store.connect()));
      const runId = `run-${crypto.randomUUID()}`;
      const returned = await Promise.all(
        writers.flatMap((store, w) =>
          Array.from({ length: 30 }, (_, i) =>
            store.append(Array.from({ length: batch }, (_, j) => delta(runId, `w${w}.${i}.${j}`))),
          ),
        ),
      );
      const total = 8 * 30 * batch;
      for (const events of returned) {
        expect(seqsOf(events)).toEqual(seqsOf(events).map((_, i) => (events[0]?.seq ?? 0) + i));
      }
      const stored = await open(schema).read(runId);
      expect(seqsOf(stored)).toEqual(upTo(total));
      const bySeq = new Map(returned.flat().map((event) => [event.seq, event]));
      expect(bySeq.size).toBe(total);
      for (const event of stored) expect(event).toEqual(bySeq.get(event.seq));
      expect((await writers[0]?.getRun(runId))?.lastSeq).toBe(total - 1);
    });
  }

  it('serializes two stores migrating a fresh schema at once; the second finds nothing to do', async () => {
    const schema = freshSchema();
    const racers = Array.from({ length: 4 }, () => open(schema));
    await Promise.all(racers.map((store) => store.connect()));
    const client = new pg.Client({
      connectionString: TEST_POSTGRES_URL,
      options: `-c search_path=${schema}`,
    });
    await client.connect();
    try {
      const { rows } = await client.query(
        'SELECT component, version, name FROM schema_migrations ORDER BY version',
      );
      expect(rows).toEqual(
        EVENT_STORE_MIGRATIONS.map((m) => ({
          component: 'events',
          version: m.version,
          name: m.name,
        })),
      );
      expect(
        await migrate(client as unknown as pg.PoolClient, schema, 'events', EVENT_STORE_MIGRATIONS),
      ).toEqual([]);
    } finally {
      await client.end();
    }
  });
});

describe('PostgresEventStore failures', () => {
  it('reports an unreachable server as a StoreError with the cause, password hidden', async () => {
    const port = await unusedPort();
    const store = new PostgresEventStore({ url: `postgres://deck:s3cret@127.0.0.1:${port}/deck` });
    const error = await store.append([started('r1')]).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(StoreError);
    const message = (error as StoreError).message;
    expect(message).toMatch(/could not connect to the Postgres event store/);
    expect(message).toContain(`127.0.0.1:${port}`);
    expect(message).not.toContain('s3cret');
    expect((error as StoreError).cause).toMatchObject({ code: 'ECONNREFUSED' });
    const read = await store.read('r1').catch((caught: unknown) => caught);
    expect(read).toBeInstanceOf(StoreError);
    expect((read as StoreError).message).not.toContain('s3cret');
    await store.close();
  });

  it('names what it could not do when a query fails', async () => {
    const schema = freshSchema();
    const store = open(schema);
    await store.append([started('r1')]);
    await dropSchemas([schema]);
    const error = await store.listRuns().catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(StoreError);
    expect((error as StoreError).message).toMatch(
      /could not list runs: relation "runs" does not exist/,
    );
    expect((error as StoreError).cause).toMatchObject({ code: '42P01' });
  });
});

describe('PostgresEventStore group commit', () => {
  it('makes a non-delta event durable, with the deltas before it, when its append resolves', async () => {
    const schema = freshSchema();
    const writer = open(schema);
    const reader = open(schema);
    const runId = `run-${crypto.randomUUID()}`;
    await writer.append([started(runId)]);
    for (const text of ['a', 'b', 'c', 'd']) await writer.append([delta(runId, text)]);
    await writer.append([completed(runId)]);
    expect(seqsOf(await reader.read(runId))).toEqual(upTo(6));
    expect(await reader.getRun(runId)).toMatchObject({ status: 'completed', lastSeq: 5 });
  });

  it('holds at most 1,000 deltas, and writes them all in order', async () => {
    const schema = freshSchema();
    const writer = open(schema);
    const runId = `run-${crypto.randomUUID()}`;
    await writer.append([started(runId)]);
    for (let i = 0; i < 2_500; i += 1) await writer.append([delta(runId, `t${i}`)]);
    await writer.close();
    const events = await open(schema).read(runId);
    expect(seqsOf(events)).toEqual(upTo(2_501));
    expect(events[2_500]?.payload).toMatchObject({ text: 't2499' });
  });

  it('refuses to write held deltas after another writer moved the run, and reports them lost', async () => {
    const schema = freshSchema();
    const writer = open(schema);
    const other = open(schema);
    const runId = `run-${crypto.randomUUID()}`;
    await writer.append([started(runId)]); // the writer now knows the tail: seq 0
    await other.append([delta(runId, 'elsewhere'), delta(runId, 'x')]);
    const [held] = await writer.append([delta(runId, 'stale')]);
    expect(held?.seq).toBe(1); // resolved at once, from the stale tail
    await new Promise((resolve) => setTimeout(resolve, 50));
    const lost = await writer.read(runId).catch((caught: unknown) => caught);
    expect(lost).toBeInstanceOf(StoreError);
    expect((lost as StoreError).message).toMatch(
      /1 streamed event\(s\) of run .* are lost: another writer/,
    );
    const events = await other.read(runId);
    expect(seqsOf(events)).toEqual([0, 1, 2]);
    expect(events.map((event) => (event.payload as { text?: string }).text)).not.toContain('stale');
    const [next] = await writer.append([delta(runId, 'after')]);
    expect(next?.seq).toBe(3);
  });

  it('refuses a durable append that follows lost deltas, so it is never durable without them', async () => {
    const schema = freshSchema();
    const writer = open(schema);
    const other = open(schema);
    const runId = `run-${crypto.randomUUID()}`;
    await writer.append([started(runId)]);
    await other.append([delta(runId, 'elsewhere')]);
    await writer.append([delta(runId, 'stale')]); // held, then refused
    await expect(writer.append([completed(runId)])).rejects.toBeInstanceOf(StoreError);
    const events = await other.read(runId);
    expect(events.map((event) => event.kind)).toEqual(['run.started', 'text.delta']);
  });
});

async function unusedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise((resolve) => server.close(resolve));
  if (typeof address !== 'object' || address === null) throw new Error('no port');
  return address.port;
}
