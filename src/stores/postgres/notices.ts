/**
 * Append notices on Postgres: how a process learns, at once, that another process appended
 * to a run it follows (a live tail of `GET /runs/{id}/events`). Postgres's LISTEN/NOTIFY
 * carries them on the channel `agentdeck_events`, each payload `<schema> <run id>`.
 *
 * Sending ({@link Announcer}): after an append commits, the store announces its runs. The
 * notices are gathered and sent in one statement per event-loop turn (while one is in
 * flight, the next gather), never inside the append's own transaction: Postgres serializes
 * the commits of every transaction that notifies (a cluster-wide lock held through its WAL
 * flush), so a NOTIFY per append statement cost concurrent turns about a third of their
 * throughput in `bench:scale`. Sent after the commit, a notice never runs ahead of the
 * events it announces; a streamed turn's deltas, written in gathered batches, cost one
 * notice per batch at most, not one per token.
 *
 * Listening ({@link AppendNotices}): one dedicated connection per store, opened when the
 * first run is watched, wakes the watchers of the run a notice names. A notice is a wake-up,
 * never the events: the watcher reads the store after the last seq it has, and reads nothing
 * between notices. So that none is lost: a send that fails is sent again after a pause (a
 * second notice costs a watcher one read that finds nothing), and when the listening
 * connection drops every watcher is woken, and again once it listens anew.
 */
import type { Pool } from 'pg';
import pg from 'pg';
import { errorMessage, StoreError } from '../../core/errors.js';
import { RunWatchers } from '../shared/run-watchers.js';

/** The channel every Postgres event store notifies on; the payload names schema and run. */
export const NOTICE_CHANNEL = 'agentdeck_events';

/**
 * The channel of the run queue: an entry enqueued or given back (sent in the statement that
 * writes it, queue-sql.ts); the payload is the schema.
 */
export const NOTICE_CHANNEL_QUEUE = 'agentdeck_queue';

const NOTIFY_RUNS = `SELECT pg_notify('${NOTICE_CHANNEL}', current_schema() || ' ' || run_id)
  FROM unnest($1::text[]) AS run_id`;

/** How long to wait before sending notices again after a send failed, in ms. */
const RESEND_MS = 1_000;

/** Sends the notices of one store: gathered runs, one statement at a time. */
export class Announcer {
  readonly #pool: Pool;
  readonly #enabled: boolean;
  #runs = new Set<string>();
  #sending: Promise<void> | null = null;
  #scheduled: NodeJS.Immediate | null = null;
  #retry: NodeJS.Timeout | null = null;
  #closing = false;

  constructor(pool: Pool, enabled: boolean) {
    this.#pool = pool;
    this.#enabled = enabled;
  }

  /** Announce that `runId` has new committed events (soon, gathered with others). */
  announce(runId: string): void {
    if (!this.#enabled) return;
    this.#runs.add(runId);
    if (!this.#sending && !this.#scheduled && !this.#retry) {
      this.#scheduled = setImmediate(() => this.#send());
    }
  }

  /** Send what is gathered, once more for a failed send, and stop retrying (the store closes). */
  async close(): Promise<void> {
    this.#closing = true;
    while (this.#sending || this.#runs.size > 0) {
      if (!this.#sending) this.#send();
      await this.#sending;
    }
  }

  #send(): void {
    if (this.#scheduled) clearImmediate(this.#scheduled);
    if (this.#retry) clearTimeout(this.#retry);
    this.#scheduled = null;
    this.#retry = null;
    const runs = [...this.#runs];
    this.#runs = new Set();
    this.#sending = this.#pool
      .query(NOTIFY_RUNS, [runs])
      .then(
        () => true,
        () => false,
      )
      .then((sent) => {
        this.#sending = null;
        if (!sent && !this.#closing) {
          // Watchers read nothing without a notice: send these again (with any gathered meanwhile).
          for (const runId of runs) this.#runs.add(runId);
          this.#retry = setTimeout(() => this.#send(), RESEND_MS);
          this.#retry.unref();
        } else if (this.#runs.size > 0) {
          this.#send();
        }
      });
  }
}

/** How long to wait before listening again after the connection dropped, in ms. */
const RELISTEN_MS = 1_000;

/** One store's LISTEN connection and the runs (and the queue) watched through it. */
export class AppendNotices {
  readonly #config: pg.ClientConfig;
  readonly #where: string;
  readonly #watchers = new RunWatchers();
  readonly #queueWatchers = new Set<() => void>();
  /** The connection being opened or open, and the schema its notices must name. */
  #listening: Promise<void> | null = null;
  #client: pg.Client | null = null;
  #schema = '';
  #retry: NodeJS.Timeout | null = null;
  #closed = false;

  constructor(config: pg.ClientConfig, where: string) {
    this.#config = config;
    this.#where = where;
  }

  /**
   * Call `onAppend` after each commit that appends to `runId`, in any process; resolves once
   * listening (so nothing committed after it is missed) with a function that stops watching.
   * Rejects with a StoreError when the connection cannot be opened.
   */
  async watch(runId: string, onAppend: () => void): Promise<() => void> {
    if (this.#closed) throw new StoreError(`${this.#where} is closed; open a new one`);
    return this.#watch(this.#watchers.watch(runId, onAppend));
  }

  /** Call `onEnqueued` after each commit that enqueues or gives back an entry, in any process. */
  async watchQueue(onEnqueued: () => void): Promise<() => void> {
    const watcher = () => onEnqueued();
    this.#queueWatchers.add(watcher);
    return this.#watch(() => this.#queueWatchers.delete(watcher));
  }

  async #watch(stop: () => void): Promise<() => void> {
    if (this.#closed) {
      stop();
      throw new StoreError(`${this.#where} is closed; open a new one`);
    }
    try {
      await this.#listen();
    } catch (error) {
      stop();
      throw error;
    }
    return stop;
  }

  async close(): Promise<void> {
    this.#closed = true;
    if (this.#retry) clearTimeout(this.#retry);
    this.#watchers.clear();
    this.#queueWatchers.clear();
    const client = this.#client;
    this.#client = null;
    await client?.end().catch(() => {});
  }

  #listen(): Promise<void> {
    this.#listening ??= this.#connect().catch((error: unknown) => {
      this.#listening = null;
      throw new StoreError(
        `${this.#where} could not listen for appends on channel '${NOTICE_CHANNEL}': ${errorMessage(error)}`,
        { cause: error },
      );
    });
    return this.#listening;
  }

  async #connect(): Promise<void> {
    const client = new pg.Client(this.#config);
    this.#client = client;
    client.on('error', () => this.#lost(client));
    client.on('end', () => this.#lost(client));
    client.on('notification', (message) => {
      if (client !== this.#client) return;
      if (message.channel === NOTICE_CHANNEL_QUEUE) {
        if (message.payload === this.#schema) this.#wakeQueue();
      } else this.#deliver(message.payload ?? '');
    });
    try {
      await client.connect();
      const { rows } = await client.query<{ schema: string }>('SELECT current_schema() AS schema');
      this.#schema = rows[0]?.schema ?? '';
      await client.query(`LISTEN ${NOTICE_CHANNEL}; LISTEN ${NOTICE_CHANNEL_QUEUE}`);
    } catch (error) {
      if (this.#client === client) this.#client = null;
      await client.end().catch(() => {});
      throw error;
    }
    if (this.#closed) await client.end().catch(() => {});
  }

  #deliver(payload: string): void {
    const space = payload.indexOf(' ');
    if (space < 0 || payload.slice(0, space) !== this.#schema) return;
    this.#watchers.wake(payload.slice(space + 1));
  }

  #wakeAll(): void {
    this.#watchers.wakeAll();
    this.#wakeQueue();
  }

  #wakeQueue(): void {
    for (const watcher of this.#queueWatchers) queueMicrotask(watcher);
  }

  /** The connection dropped: wake everyone (they read), and listen again after a pause. */
  #lost(client: pg.Client): void {
    if (client !== this.#client) return;
    this.#client = null;
    this.#listening = null;
    client.end().catch(() => {});
    this.#wakeAll();
    this.#relistenLater();
  }

  #relistenLater(): void {
    if (this.#closed || this.#retry) return;
    this.#retry = setTimeout(() => {
      this.#retry = null;
      if (this.#closed || this.#watchers.size + this.#queueWatchers.size === 0) return;
      // Anything committed while the connection was down was missed: read again once listening.
      this.#listen().then(
        () => this.#wakeAll(),
        () => this.#relistenLater(),
      );
    }, RELISTEN_MS);
    this.#retry.unref();
  }
}
