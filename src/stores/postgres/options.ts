/**
 * The options of the Postgres event store (events.ts), kept apart so that the store's file
 * holds its calls.
 */
/** Options for `PostgresEventStore` (events.ts). */
export interface PostgresEventStoreOptions {
  /** The server and database: `postgres://user:password@host:5432/db` (or `postgresql://`). */
  url: string;
  /**
   * The Postgres schema that holds the tables, created if missing (lower-case letters,
   * digits and `_`); `null` uses the connection's search path (normally `public`).
   * @default null
   */
  schema?: string | null;
  /**
   * Write streamed `text.delta` and `thought.delta` events, and workflows' `node.updated`,
   * behind: their `append` resolves at once and they are written at the end of the
   * event-loop turn, gathered, one statement per run (see group-commit.ts). It trades: a
   * process crash loses the held events not yet written (at most one write in flight plus
   * what gathered since, never more than 1,000 events), and other processes see one a write
   * later. Every other event is durable, with everything appended before it, when its
   * `append` resolves. `false` makes every append one round trip.
   * @default true
   */
  groupCommit?: boolean;
  /** Most connections the store opens. @default 10 */
  poolSize?: number;
  /** How long connecting may take before the call fails, in ms. @default 5000 */
  connectTimeoutMs?: number;
  /**
   * Announce appends on channel `agentdeck_events` (LISTEN/NOTIFY: after each commit,
   * gathered, one statement per event-loop turn; see notices.ts), so a live tail in any
   * process sharing the database reads at once. `false` sends none (a tail then polls the
   * store, up to every 250 ms), and `watchRun` rejects.
   * @default true
   */
  notify?: boolean;
}

export const DEFAULTS = {
  schema: null,
  groupCommit: true,
  poolSize: 10,
  connectTimeoutMs: 5_000,
  notify: true,
};

export const SCHEMA_NAME = /^[a-z_][a-z0-9_]{0,62}$/;
