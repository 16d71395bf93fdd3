/**
 * The event store on PostgreSQL (`SERVICE_EVENTS=postgres://...`): the deployment for more
 * than one server process, which share the events, claims and control requests through it.
 * It connects (a `pg` pool) and migrates its schema on first use, so opening it is
 * synchronous, like the other backends; {@link PostgresEventStore.connect} does it at once.
 *
 * This class guards each call; durable appends are in `append.ts` (one statement per run,
 * the run row's counter keeping `seq` gap-free across processes), streamed deltas written
 * behind in `group-commit.ts`, claims and control requests in `claims.ts`, pruning in
 * `prune.ts`, datasets and experiments in `evals.ts`, the schema in `migrations.ts`. Every
 * driver failure is a `StoreError` saying what failed, naming the server (password hidden).
 */
import type pg from 'pg';
import { ConfigError, StoreError } from '../../core/errors.js';
import type { ControlVerb } from '../../core/event-kinds.js';
import { type Event, isTerminal, type NewEvent } from '../../core/events.js';
import type {
  QueueEntry,
  QueueLimits,
  RateLimit,
  RunQueue,
  TakeRequest,
  TokenResult,
} from '../../core/queue.js';
import type {
  AppendNotifier,
  ClaimAndRead,
  ClaimHolder,
  ClaimRequest,
  ClaimResult,
  ControlRequest,
  EventStore,
  LayoutReporting,
  ListRunsFilter,
  NamespaceListing,
  Pingable,
  PrunedRun,
  PruneRequest,
  ReadOptions,
  RunBoundaries,
  RunIdSearch,
  RunPauses,
  RunPruning,
  RunSummary,
  StoreLayout,
} from '../../core/store.js';
import { storeFailure } from '../shared/driver-errors.js';
import { resolvePruneRequest } from '../shared/prune.js';
import { requireQueued } from '../shared/queue.js';
import { fromCompact, toSummary } from '../shared/rows.js';
import {
  eventFromStored,
  type PreparedEvent,
  prepareEvents,
  requirePause,
  requireTerminal,
} from '../shared/stored-event.js';
import { redactUrl } from '../shared/url.js';
import { appendDurably } from './append.js';
import { BoundaryWrites } from './boundaries.js';
import * as claims from './claims.js';
import { PostgresEvals } from './evals.js';
import { GroupCommit } from './group-commit.js';
import { EVENT_STORE_MIGRATIONS, listRunsQuery, migrate, readLayout, SQL } from './migrations.js';
import { Announcer, AppendNotices } from './notices.js';
import { DEFAULTS, type PostgresEventStoreOptions, SCHEMA_NAME } from './options.js';
import { resilientPool } from './pool.js';
import { pruneRuns } from './prune.js';
import * as queue from './queue.js';

export type { PostgresEventStoreOptions };

/**
 * An `EventStore` in a PostgreSQL database, shared by several server processes.
 *
 * @example
 * ```ts
 * const store = new PostgresEventStore({ url: 'postgres://app@db:5432/deck' });
 * await store.append([{ kind: 'run.started', runId: 'r1', sessionId: null, namespace: null,
 *   origin: 'helper', payload: { invocableType: 'agent', input: [new TextBlock('Hi')] } }]);
 * (await store.getRun('r1'))?.status; // 'running'
 * await store.close();
 * ```
 */
export class PostgresEventStore
  implements
    EventStore,
    AppendNotifier,
    ClaimAndRead,
    RunBoundaries,
    RunPauses,
    RunPruning,
    RunIdSearch,
    Pingable,
    LayoutReporting,
    NamespaceListing,
    RunQueue
{
  /** The server, password hidden: safe to show. */
  readonly location: string;
  /** The schema of the tables, or `null` for the search path's. */
  readonly schema: string | null;
  readonly evals: PostgresEvals; // datasets and experiments (EvalStore, core/evals.ts)
  readonly #pool: pg.Pool;
  readonly #writes: GroupCommit;
  readonly #boundaries: BoundaryWrites;
  readonly #notify: boolean;
  readonly #announcer: Announcer;
  readonly #notices: AppendNotices;
  #connected: Promise<void> | null = null;
  #closed = false;

  constructor(options: PostgresEventStoreOptions) {
    const { url, schema, groupCommit, poolSize, connectTimeoutMs, notify } = {
      ...DEFAULTS,
      ...options,
    };
    this.location = redactUrl(url);
    if (schema !== null && !SCHEMA_NAME.test(schema)) {
      throw new ConfigError(
        `Postgres schema '${schema}' is not a plain name; use lower-case letters, digits and _`,
      );
    }
    this.schema = schema;
    const connection: pg.ClientConfig = {
      connectionString: url,
      connectionTimeoutMillis: connectTimeoutMs,
      ...(schema === null ? {} : { options: `-c search_path=${schema}` }),
    };
    // A connection that breaks (server restart) must not crash the process: the query on it
    // fails and is reported as a StoreUnavailableError; the next one opens a new connection.
    this.#pool = resilientPool({ ...connection, max: poolSize });
    this.evals = new PostgresEvals(this.#pool, (what, body) => this.#query(what, body));
    this.#notify = notify;
    this.#announcer = new Announcer(this.#pool, notify);
    this.#notices = new AppendNotices(connection, this.#describe());
    this.#writes = new GroupCommit(this.#pool, groupCommit, this.#describe(), (runId) =>
      this.#announcer.announce(runId),
    );
    this.#boundaries = new BoundaryWrites(this.#pool, this.#writes, (runId) =>
      this.#announcer.announce(runId),
    );
  }

  /** Connect and bring the schema up to date now, rather than on the first call. */
  async connect(): Promise<void> {
    this.#open();
    await this.#ready();
  }

  async append(events: readonly NewEvent[]): Promise<Event[]> {
    this.#open();
    const prepared = prepareEvents(events);
    if (prepared.length === 0) return [];
    await this.#ready();
    const [only] = prepared;
    if (prepared.length === 1 && only) {
      const held = this.#writes.hold(only);
      if (held) {
        if (this.#writes.full) await this.#guard('write streamed events', () => this.#flush());
        return [held];
      }
    }
    const runIds = [...new Set(prepared.map((item) => item.event.runId))];
    const stored = await this.#guard('append events', () =>
      this.#writes.durably(runIds, () => appendDurably(this.#pool, prepared)),
    );
    for (const event of stored) if (isTerminal(event)) this.#writes.forget(event.runId);
    for (const runId of runIds) this.#announcer.announce(runId);
    return stored;
  }

  async read(runId: string, options: ReadOptions = {}): Promise<Event[]> {
    return this.#query(`read run '${runId}'`, async () => {
      const { rows } = await this.#pool.query(SQL.read, [
        runId,
        options.afterSeq ?? -1,
        options.limit ?? null,
      ]);
      return rows.map((row) => eventFromStored(fromCompact(row)));
    });
  }

  async listRuns(filter: ListRunsFilter = {}): Promise<RunSummary[]> {
    return this.#list(filter, undefined);
  }

  /** One namespace's runs (see {@link NamespaceListing}), from `runs_by_namespace`. */
  async listRunsIn(namespace: string, filter: ListRunsFilter = {}): Promise<RunSummary[]> {
    return this.#list(filter, namespace);
  }

  async #list(filter: ListRunsFilter, namespace: string | undefined): Promise<RunSummary[]> {
    const { text, values } = listRunsQuery(filter, namespace);
    return this.#query('list runs', async () => {
      const { rows } = await this.#pool.query(text, values);
      return rows.map(toSummary);
    });
  }

  async getRun(runId: string): Promise<RunSummary | null> {
    return this.#query(`read run '${runId}'`, async () => {
      const { rows } = await this.#pool.query(SQL.getRun, [runId]);
      return rows[0] ? toSummary(rows[0]) : null;
    });
  }

  /** Runs by the start of their id (see {@link RunIdSearch}): a scan, for a person's lookup. */
  async runIdsStartingWith(prefix: string, limit: number): Promise<string[]> {
    return this.#query(`find runs starting with '${prefix}'`, async () => {
      const { rows } = await this.#pool.query(SQL.runIdsStartingWith, [
        prefix,
        Math.max(0, Math.floor(limit)),
      ]);
      return rows.map((row: { run_id: string }) => row.run_id);
    });
  }

  /**
   * Remove ended runs (see {@link RunPruning}): one transaction per call, safe to run from
   * several processes at once (prune.ts).
   */
  async pruneRuns(request: PruneRequest): Promise<PrunedRun[]> {
    this.#open();
    const selection = resolvePruneRequest(request);
    const pruned = await this.#query('prune runs', () => pruneRuns(this.#pool, selection));
    if (!selection.dryRun) for (const { runId } of pruned) this.#writes.forget(runId);
    return pruned;
  }

  async claim(request: ClaimRequest): Promise<ClaimResult> {
    return this.#query(`claim '${request.key}'`, () => claims.claim(this.#pool, request));
  }

  /** A claim and a run's row read after it, in one round trip (see {@link ClaimAndRead}). */
  async claimAndGetRun(
    request: ClaimRequest,
    runId: string,
  ): Promise<{ claim: ClaimResult; run: RunSummary | null }> {
    return this.#query(`claim '${request.key}' and read run '${runId}'`, () =>
      claims.claimAndGetRun(this.#pool, request, runId),
    );
  }

  async claimAndAppend(
    request: ClaimRequest,
    events: readonly NewEvent[],
  ): Promise<{ claim: ClaimResult; events: Event[] | null }> {
    const prepared = await this.#prepared(events);
    return this.#guard(`claim '${request.key}' and append`, () =>
      this.#boundaries.claimAndAppend(request, prepared),
    );
  }

  async endRun(event: NewEvent, releaseKey: string | null): Promise<Event | null> {
    requireTerminal(event);
    const [item] = (await this.#prepared([event])) as [PreparedEvent];
    return this.#guard(`end run '${event.runId}'`, () => this.#boundaries.endRun(item, releaseKey));
  }

  /** A run's pause and the renewal of the claim it keeps, in one statement (see {@link RunPauses}). */
  async pauseRun(event: NewEvent, keep: string): Promise<Event> {
    requirePause(event);
    const [item] = (await this.#prepared([event])) as [PreparedEvent];
    return this.#guard(`pause run '${event.runId}'`, () => this.#boundaries.pauseRun(item, keep));
  }

  /** `events` checked and prepared, once the store is open and connected. */
  async #prepared(events: readonly NewEvent[]): Promise<PreparedEvent[]> {
    this.#open();
    const prepared = prepareEvents(events);
    await this.#ready();
    return prepared;
  }

  async release(key: string, runId: string): Promise<boolean> {
    return this.#query(`release '${key}'`, () => claims.release(this.#pool, key, runId));
  }

  async claimHolder(key: string): Promise<ClaimHolder | null> {
    return this.#query(`read claim '${key}'`, () => claims.claimHolder(this.#pool, key));
  }

  async recordControl(
    runId: string,
    verb: ControlVerb,
    reason: string | null,
  ): Promise<ControlRequest> {
    return this.#query(`record a ${verb} request for run '${runId}'`, () =>
      claims.recordControl(this.#pool, runId, verb, reason),
    );
  }

  async readControl(runId: string): Promise<ControlRequest[]> {
    return this.#query(`read control requests of run '${runId}'`, () =>
      claims.readControl(this.#pool, runId),
    );
  }

  async saveContinuation(runId: string, state: string): Promise<void> {
    await this.#query(`save the continuation of run '${runId}'`, () =>
      this.#pool.query(SQL.saveContinuation, [runId, state, new Date().toISOString()]),
    );
  }

  async readContinuation(runId: string): Promise<string | null> {
    const { rows } = await this.#query(`read the continuation of run '${runId}'`, () =>
      this.#pool.query(SQL.readContinuation, [runId]),
    );
    return rows[0] ? String(rows[0].state) : null;
  }

  async dropContinuation(runId: string): Promise<boolean> {
    const result = await this.#query(`drop the continuation of run '${runId}'`, () =>
      this.#pool.query(SQL.dropContinuation, [runId]),
    );
    return (result.rowCount ?? 0) > 0;
  }

  /** Queue `event` (a `run.queued`) and its entry in one statement (queue.ts). */
  async enqueue(event: NewEvent, limits: QueueLimits): Promise<Event> {
    this.#open();
    requireQueued(event, limits);
    const [item] = prepareEvents([event]);
    return this.#query(`enqueue run '${event.runId}'`, () =>
      queue.enqueue(this.#pool, item as PreparedEvent, limits),
    );
  }

  async take(request: TakeRequest): Promise<QueueEntry[]> {
    return this.#query('take queued runs', () => queue.take(this.#pool, request));
  }

  async renewTaken(worker: string, runIds: readonly string[]): Promise<string[]> {
    return this.#query('renew taken runs', () => queue.renewTaken(this.#pool, worker, runIds));
  }

  async finishTaken(runId: string, worker: string): Promise<boolean> {
    return this.#query(`finish queued run '${runId}'`, () =>
      queue.finishTaken(this.#pool, runId, worker),
    );
  }

  async giveBack(runId: string, worker: string, availableAt: string): Promise<boolean> {
    return this.#query(`give back queued run '${runId}'`, () =>
      queue.giveBack(this.#pool, runId, worker, availableAt),
    );
  }

  async dropWaiting(runId: string): Promise<boolean> {
    return this.#query(`drop queued run '${runId}'`, () => queue.dropWaiting(this.#pool, runId));
  }

  async queueEntry(runId: string): Promise<QueueEntry | null> {
    return this.#query(`read queued run '${runId}'`, () => queue.queueEntry(this.#pool, runId));
  }

  async listQueue(limit: number): Promise<QueueEntry[]> {
    return this.#query('list the queue', () => queue.listQueue(this.#pool, limit));
  }

  async takeToken(bucket: string, rate: RateLimit): Promise<TokenResult> {
    return this.#query(`take a token of '${bucket}'`, () =>
      queue.takeToken(this.#pool, bucket, rate),
    );
  }

  /** Wake `onEnqueued` on each enqueue or give-back, in any process (LISTEN, notices.ts). */
  async watchQueue(onEnqueued: () => void): Promise<() => void> {
    this.#open();
    await this.#ready();
    return this.#notices.watchQueue(onEnqueued);
  }

  /** The schema's `events` layout, and this code's (shared/migration.ts). */
  async layout(): Promise<StoreLayout> {
    return this.#query('read its schema layout', () =>
      readLayout(this.#pool, 'events', EVENT_STORE_MIGRATIONS),
    );
  }

  /** Resolves when the server answers a query (readiness); rejects with a StoreUnavailableError. */
  async ping(): Promise<void> {
    await this.#query('answer a ping', () => this.#pool.query('SELECT 1'));
  }

  /**
   * Call `onAppend` after each commit that appends to `runId`, by this process or any other
   * sharing the database (LISTEN on one connection of its own, opened on first use; see
   * notices.ts). Rejects with a StoreError when this store was opened with `notify: false`
   * or cannot listen.
   */
  async watchRun(runId: string, onAppend: () => void): Promise<() => void> {
    this.#open();
    if (!this.#notify) {
      throw new StoreError(
        `${this.#describe()} was opened with notify: false; it announces no appends`,
      );
    }
    await this.#ready();
    return this.#notices.watch(runId, onAppend);
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await this.#notices.close();
    let failure: unknown = null;
    try {
      if (this.#connected) await this.#flush();
    } catch (error) {
      failure = error;
    }
    await this.#announcer.close();
    try {
      await this.#pool.end();
    } catch (error) {
      failure ??= error;
    }
    if (failure instanceof StoreError) throw failure;
    if (failure) throw new StoreError(`could not close ${this.#describe()}`, { cause: failure });
  }

  /** Wait for held deltas to be written; throw if some were lost. */
  async #flush(): Promise<void> {
    await this.#writes.flush();
    const lost = this.#writes.takeLost();
    if (lost) throw lost;
  }

  /** A call other than append: connected, held deltas written first (read your writes). */
  async #query<T>(what: string, body: () => Promise<T>): Promise<T> {
    this.#open();
    await this.#ready();
    return this.#guard(what, async () => {
      await this.#flush();
      return body();
    });
  }

  /** Connect and migrate once; a failure is reported, and the next call tries again. */
  #ready(): Promise<void> {
    this.#connected ??= this.#migrate().catch((error: unknown) => {
      this.#connected = null;
      const failure = storeFailure(
        'postgres',
        `could not connect to ${this.#describe()} and bring its schema up to date`,
        error,
      );
      if (failure.code !== 'store') throw failure;
      throw new StoreError(
        `${failure.message}; check that the server is reachable, the database exists ` +
          'and the user may create tables',
        { cause: error },
      );
    });
    return this.#connected;
  }

  async #migrate(): Promise<void> {
    const client = await this.#pool.connect();
    let failure: Error | undefined;
    try {
      await migrate(client, this.schema, 'events', EVENT_STORE_MIGRATIONS);
    } catch (error) {
      failure = error as Error;
      throw error;
    } finally {
      client.release(failure); // a failed migration's connection is not reused
    }
  }

  /** Run driver calls, turning a driver failure into a `StoreError` that names the server. */
  async #guard<T>(what: string, body: () => Promise<T>): Promise<T> {
    try {
      return await body();
    } catch (error) {
      throw storeFailure('postgres', `${this.#describe()} could not ${what}`, error);
    }
  }

  /** Refuse work once closed, and report held deltas that were lost. */
  #open(): void {
    if (this.#closed) {
      throw new StoreError(`${this.#describe()} is closed; open a new one`);
    }
    const lost = this.#writes.takeLost();
    if (lost) throw lost;
  }

  #describe(): string {
    const schema = this.schema === null ? '' : ` (schema '${this.schema}')`;
    return `the Postgres event store at '${this.location}'${schema}`;
  }
}
