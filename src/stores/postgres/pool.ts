/**
 * A `pg` pool that survives its server's outages. `pg` reports a broken connection as an
 * `'error'` event on the client, and an `'error'` event nobody listens to ends the Node
 * process: the pool listens only while a client is idle, so a connection that breaks while
 * checked out (a transaction, LangGraph's PostgresSaver writing a checkpoint) crashed the
 * whole server on a Postgres restart. Here every client gets a listener for its whole life
 * the moment the pool opens it, and the pool itself has one: a broken connection fails the
 * query in flight (which the store reports as `StoreUnavailableError`) and is dropped; the
 * next query opens a new one. Used by the event store and the Postgres checkpointer.
 */
import pg from 'pg';

export interface ResilientPoolOptions extends pg.PoolConfig {
  /** Told of each connection error (for a log or a metric); never throws into `pg`. */
  onConnectionError?: (error: Error) => void;
}

/**
 * Open a pool whose connection errors never reach the process as unhandled events.
 *
 * @example
 * ```ts
 * const pool = resilientPool({ connectionString: url, max: 10 });
 * await pool.query('SELECT 1'); // rejects while the server is down, works again after
 * ```
 */
export function resilientPool(options: ResilientPoolOptions): pg.Pool {
  const { onConnectionError, ...config } = options;
  const report = (error: Error) => {
    try {
      onConnectionError?.(error);
    } catch {
      // A reporting hook must not turn a handled error into an unhandled one.
    }
  };
  const pool = new pg.Pool(config);
  pool.on('error', report);
  pool.on('connect', (client) => {
    client.on('error', report);
  });
  return pool;
}

/**
 * Run `work` in one transaction on a client of `pool`: committed when it resolves, rolled back
 * when it throws. A connection whose rollback fails is not given back to the pool (its state
 * is unknown).
 */
export async function inTransaction<T>(
  pool: pg.Pool,
  work: (client: pg.PoolClient) => Promise<T>,
): Promise<T> {
  return onClient(pool, async (client) => {
    await client.query('BEGIN');
    const result = await work(client);
    await client.query('COMMIT');
    return result;
  });
}

/**
 * Run `work` on a client of `pool`, where it opens a transaction (`BEGIN`, perhaps inside a
 * simple query of several statements): rolled back when it throws, and a connection whose
 * rollback fails is not given back to the pool (its state is unknown).
 */
export async function onClient<T>(
  pool: pg.Pool,
  work: (client: pg.PoolClient) => Promise<T>,
): Promise<T> {
  const client = await pool.connect();
  let broken = false;
  try {
    return await work(client);
  } catch (error) {
    await client.query('ROLLBACK').catch(() => {
      broken = true;
    });
    throw error;
  } finally {
    client.release(broken);
  }
}
