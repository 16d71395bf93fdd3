/**
 * Group commit for the Postgres event store: streamed token deltas (and workflows' node
 * updates, {@link GROUPABLE_KINDS}) written behind. Against
 * a server every commit is a network round trip (and a WAL flush), so a streamed turn that
 * awaited one per token would run at the round-trip rate. Instead, a `text.delta` or
 * `thought.delta` for a run whose tail this store knows (it wrote the run's previous event,
 * and no durable append to the run is in flight) is *held*: given the next seq and a
 * timestamp at once, its `append` resolves without a round trip, and the held events are
 * written at the end of the event-loop turn, one statement per run. While that write is in
 * flight, new deltas gather, and go in the next statement as soon as it returns: a fast
 * stream pays one round trip per gathered batch, not per token. At most
 * {@link GROUP_COMMIT_MAX_EVENTS} are held; an append beyond that waits for a write.
 *
 * The write is checked, not trusted: it advances the run's counter only if the counter is
 * still where this store left it. The process that plays a run (it holds the run's claim)
 * is its only writer while it streams; if another writer appended in between, the write is
 * refused rather than leaving a gap or a duplicate, the held deltas are lost, and the store
 * reports it on its next call. Every other append, and every read, first waits for the held
 * events to be written, so an event of another kind is durable, with everything appended
 * before it, when its `append` resolves.
 */
import type { Pool } from 'pg';
import { StoreError } from '../../core/errors.js';
import { EVENT_SCHEMA_VERSION, type Event } from '../../core/events.js';
import { storeFailure } from '../shared/driver-errors.js';
import { nextTimestamp, type PreparedEvent, stampPrepared } from '../shared/stored-event.js';
import type { Tail } from './append.js';
import { ENDED_SQL, envSql } from './migrations.js';

/** Most events held at once; an append beyond waits for them to be written. */
export const GROUP_COMMIT_MAX_EVENTS = 1_000;

/**
 * The kinds that may be held: a streamed turn's token deltas, and a workflow's node updates
 * (a round trip and a WAL flush per node would cost a 3-node run more than LangGraph's work;
 * the run's end still waits for them, invariant 7 of docs/internals/postgres-write-behind.md).
 */
const GROUPABLE_KINDS = new Set(['text.delta', 'thought.delta', 'node.updated']);

/** Runs whose tail a store remembers, to hold their deltas. */
const TAIL_CACHE_SIZE = 1_024;

/** Held events of one run, written in one statement if the run's counter is still at `$2 - 1`. */
const WRITE_HELD = `
  WITH run AS (
    UPDATE runs SET last_seq = $2::int + $3::int - 1, updated_at = GREATEST(updated_at, $4),
      ended_at = CASE WHEN status IN ${ENDED_SQL} THEN GREATEST(updated_at, $4) END
    WHERE run_id = $1 AND last_seq = $2::int - 1
    RETURNING run_id, v, session_id, namespace, origin
  ), inserted AS (
    INSERT INTO events (run_id, seq, kind, ts, payload, env)
    SELECT $1, $2::int - 1 + e.ord, e.kind, e.ts, e.payload, ${envSql('$5::int', 'e', 'run')}
    FROM run, unnest($6::text[], $7::text[], $8::text[], $9::text[], $10::text[], $11::text[])
      WITH ORDINALITY AS e(kind, session_id, namespace, origin, ts, payload, ord)
  )
  SELECT count(*)::int AS written FROM run`;

interface Held {
  item: PreparedEvent;
  seq: number;
  ts: string;
}

/** One store's held deltas, its knowledge of run tails, and the writes that flush them. */
export class GroupCommit {
  readonly #pool: Pool;
  readonly #enabled: boolean;
  /** Names the store in errors (password hidden). */
  readonly #where: string;
  #held: Held[] = [];
  #writing: Promise<void> | null = null;
  #scheduled: NodeJS.Immediate | null = null;
  /** The last seq and ts this store wrote (or holds) per run. */
  readonly #tails = new Map<string, Tail>();
  /** Durable appends in flight per run: until they return, the tail is not known. */
  readonly #durable = new Map<string, number>();
  #lost: StoreError | null = null;

  /** Told of each run whose held events a write committed (to announce them, notices.ts). */
  readonly #written: (runId: string) => void;

  constructor(pool: Pool, enabled: boolean, where: string, written: (runId: string) => void) {
    this.#pool = pool;
    this.#enabled = enabled;
    this.#where = where;
    this.#written = written;
  }

  /** Hold `item` if it may be written behind: the stored event, or `null` to append it durably. */
  hold(item: PreparedEvent): Event | null {
    if (!this.#enabled || !GROUPABLE_KINDS.has(item.kind)) return null;
    const { runId } = item.event;
    const tail = this.#tails.get(runId);
    if (!tail || this.#durable.has(runId)) return null;
    tail.seq += 1;
    tail.ts = nextTimestamp(tail.ts);
    this.#held.push({ item, seq: tail.seq, ts: tail.ts });
    if (!this.#writing && !this.#scheduled) {
      this.#scheduled = setImmediate(() => this.#write());
    }
    return stampPrepared(item, tail.seq, tail.ts);
  }

  /** Whether an append should wait for a write before it resolves (too much is held). */
  get full(): boolean {
    return this.#held.length >= GROUP_COMMIT_MAX_EVENTS;
  }

  /** Wait until every held event is written (or reported lost). */
  async flush(): Promise<void> {
    while (this.#writing || this.#held.length > 0) {
      if (!this.#writing) this.#write();
      await this.#writing;
    }
  }

  /** Run a durable append to `runIds`; their tails are taken from what it returns. */
  async durably(
    runIds: readonly string[],
    body: () => Promise<{ events: Event[]; tails: Map<string, Tail> }>,
  ): Promise<Event[]> {
    // Marked first: no delta of these runs may be held while the append waits for the flush.
    for (const runId of runIds) this.#durable.set(runId, (this.#durable.get(runId) ?? 0) + 1);
    let tails: Map<string, Tail> | null = null;
    try {
      await this.flush();
      // A durable event is durable with everything appended before it: not after a loss.
      const lost = this.takeLost();
      if (lost) throw lost;
      const done = await body();
      tails = done.tails;
      return done.events;
    } finally {
      for (const runId of runIds) {
        const left = (this.#durable.get(runId) ?? 1) - 1;
        if (left > 0) this.#durable.set(runId, left);
        else this.#durable.delete(runId);
        const tail = tails?.get(runId);
        const known = this.#tails.get(runId);
        // Concurrent durable appends return in any order: the highest seq is the tail.
        if (!tails) this.#tails.delete(runId);
        else if (tail && (!known || tail.seq > known.seq)) this.#remember(runId, { ...tail });
      }
    }
  }

  /** Forget a run's tail (it ended), so its memory is freed and nothing more is held for it. */
  forget(runId: string): void {
    this.#tails.delete(runId);
  }

  /** The error of a write that lost held events, once. */
  takeLost(): StoreError | null {
    const lost = this.#lost;
    this.#lost = null;
    return lost;
  }

  #remember(runId: string, tail: Tail): void {
    this.#tails.delete(runId);
    this.#tails.set(runId, tail);
    if (this.#tails.size > TAIL_CACHE_SIZE) {
      const oldest = this.#tails.keys().next();
      if (!oldest.done) this.#tails.delete(oldest.value);
    }
  }

  /** Write what is held now; new deltas gather meanwhile and go in the next write. */
  #write(): void {
    if (this.#scheduled) clearImmediate(this.#scheduled);
    this.#scheduled = null;
    const held = this.#held;
    this.#held = [];
    const byRun = new Map<string, Held[]>();
    for (const entry of held) {
      const list = byRun.get(entry.item.event.runId);
      if (list) list.push(entry);
      else byRun.set(entry.item.event.runId, [entry]);
    }
    const writes = [...byRun].map(([runId, entries]) => this.#writeRun(runId, entries));
    this.#writing = Promise.all(writes).then(() => {
      this.#writing = null;
      if (this.#held.length > 0) this.#write();
    });
  }

  async #writeRun(runId: string, entries: Held[]): Promise<void> {
    const [first] = entries as [Held, ...Held[]];
    const last = entries.at(-1) as Held;
    let written = 0;
    let cause: unknown = null;
    try {
      const result = await this.#pool.query<{ written: number }>(WRITE_HELD, [
        runId,
        first.seq,
        entries.length,
        last.ts,
        EVENT_SCHEMA_VERSION,
        entries.map(({ item }) => item.kind),
        entries.map(({ item }) => item.event.sessionId),
        entries.map(({ item }) => item.event.namespace),
        entries.map(({ item }) => item.event.origin),
        entries.map(({ ts }) => ts),
        entries.map(({ item }) => item.payload),
      ]);
      written = Number(result.rows[0]?.written ?? 0);
    } catch (error) {
      cause = error;
    }
    if (written === 1) {
      this.#written(runId);
      return;
    }
    // Seqs already handed out past the store's real tail: forget it, so the next append reads it.
    this.#tails.delete(runId);
    const what =
      `${this.#where} could not write ${entries.length} streamed event(s) of run '${runId}' ` +
      `(seq ${first.seq}-${last.seq}) whose appends had already resolved; they are lost`;
    this.#lost ??= cause
      ? (storeFailure('postgres', what, cause) as StoreError)
      : new StoreError(
          `${what}: another writer appended to the run in between (its seq counter had moved)`,
        );
  }
}
