/**
 * Every Postgres connection the deck opens survives its server's failures without ending
 * the process: an idle pool connection, one checked out of the pool (a transaction in
 * flight), LangGraph's PostgresSaver's pool, and the LISTEN connection. Each is broken by the
 * server (`pg_terminate_backend`, then a crash stop of the whole cluster); an `'error'` event
 * with no listener would throw out of the socket handler and fail this file as an unhandled
 * error. After each, the same objects work again, and a failure while the server is down is
 * a StoreUnavailableError naming Postgres. The cluster is this file's own (initdb in a temp
 * dir), so it can be stopped freely.
 */
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type OwnPostgres,
  ownPostgresUnavailableReason,
  startOwnPostgres,
} from '../../../test/support/own-postgres.js';
import { pgEvents } from '../../../test/support/postgres.js';
import { StoreUnavailableError } from '../../core/errors.js';
import { openCheckpointer } from '../checkpoints-url.js';
import { PostgresEventStore } from './events.js';
import { resilientPool } from './pool.js';

const skipReason = ownPostgresUnavailableReason();
let server: OwnPostgres;

beforeAll(async () => {
  if (!skipReason) server = await startOwnPostgres();
}, 30_000);

afterAll(async () => {
  await server?.destroy();
});

/** Break every connection but the caller's, as a failover or an admin would. */
async function terminateOthers(): Promise<number> {
  const admin = new pg.Client({ connectionString: server.url });
  await admin.connect();
  try {
    const { rows } = await admin.query(
      `SELECT pg_terminate_backend(pid) FROM pg_stat_activity
       WHERE pid <> pg_backend_pid() AND backend_type = 'client backend'`,
    );
    return rows.length;
  } finally {
    await admin.end();
  }
}

const settle = (ms = 100) => new Promise((done) => setTimeout(done, ms));

describe.skipIf(skipReason !== null)(
  `Postgres connections through outages ${skipReason ?? ''}`,
  () => {
    it('a pool connection broken while idle or checked out fails its query, not the process', async () => {
      const errors: Error[] = [];
      const pool = resilientPool({
        connectionString: server.url,
        max: 4,
        onConnectionError: (e) => errors.push(e),
      });
      try {
        const [idle, checkedOut] = await Promise.all([pool.connect(), pool.connect()]);
        idle.release();
        await checkedOut.query('BEGIN');
        try {
          expect(await terminateOthers()).toBe(2);
          await settle();
          await expect(checkedOut.query('SELECT 1')).rejects.toThrow(/not queryable/);
        } finally {
          checkedOut.release(true);
        }
        expect(errors.length).toBeGreaterThanOrEqual(2); // both were told, neither thrown
        expect((await pool.query('SELECT 1 AS one')).rows).toEqual([{ one: 1 }]);
      } finally {
        await pool.end();
      }
    });

    it("the checkpointer's pool survives a broken connection checked out of it; down, it is an outage", async () => {
      const checkpointer = await openCheckpointer(server.url, undefined);
      try {
        const pool = (checkpointer.saver as unknown as { pool: pg.Pool }).pool;
        const client = await pool.connect();
        await terminateOthers();
        await settle();
        await expect(client.query('SELECT 1')).rejects.toThrow();
        client.release(true);
        await checkpointer.ping?.();
        const config = { configurable: { thread_id: 't-outage', checkpoint_ns: '' } };
        expect(await checkpointer.saver.getTuple(config)).toBeUndefined();
        // Down: a workflow step's read fails as an outage naming the checkpointer (503, not 500).
        await server.stop('immediate');
        try {
          const failure = await checkpointer.saver
            .getTuple(config)
            .catch((error: unknown) => error);
          expect(failure).toBeInstanceOf(StoreUnavailableError);
          expect(String(failure)).toMatch(
            /the Postgres checkpointer at .* could not read a checkpoint/,
          );
        } finally {
          await server.start();
        }
        expect(await checkpointer.saver.getTuple(config)).toBeUndefined();
      } finally {
        await checkpointer.close();
      }
    });

    it('the event store: unavailable while the cluster is down, the same store works after, LISTEN comes back', async () => {
      const store = new PostgresEventStore({ url: server.url });
      try {
        await store.append([pgEvents.started('r-outage')]);
        const woken: number[] = [];
        const stop = await store.watchRun('r-outage', () => woken.push(Date.now()));
        await server.stop('immediate');
        await expect(store.read('r-outage')).rejects.toBeInstanceOf(StoreUnavailableError);
        await expect(store.ping()).rejects.toThrow(
          /Postgres event store .* postgres is unavailable/,
        );
        await expect(store.append([pgEvents.delta('r-outage', 'x')])).resolves.toHaveLength(1); // held
        await settle(); // its write behind fails
        await server.start();
        // The delta written behind while the server was down was lost, and the store says so once.
        await expect(store.read('r-outage')).rejects.toThrow(/whose appends had already resolved/);
        expect((await store.read('r-outage')).map((event) => event.kind)).toEqual(['run.started']);
        await store.ping();
        // The LISTEN connection reconnects by itself (after a pause of a second) and wakes again.
        const deadline = Date.now() + 10_000;
        let before = woken.length;
        while (Date.now() < deadline) {
          await store.append([pgEvents.delta('r-outage', 'y')]);
          await settle(200);
          if (woken.length > before) break;
          before = woken.length;
        }
        expect(woken.length).toBeGreaterThan(before);
        stop();
      } finally {
        await store.close().catch(() => {});
      }
    }, 30_000);
  },
);
