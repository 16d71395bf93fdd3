/**
 * The event store port: the one durable spine every surface reads. It holds three things
 * so that any process sharing it can reach any run: the events of each run (with a small
 * run index for listing), session/thread claims (one turn at a time), control requests
 * (pause, cancel, resume) and the saved state of paused agent runs (their continuations). Backends live in `src/stores/<backend>/`; the memory backend is
 * the reference, and `describeEventStoreContract` (src/testing) is the suite each passes.
 */
import type { ControlVerb } from './event-kinds.js';
import type { Event, NewEvent } from './events.js';
import type { RunStatus } from './status.js';

/** One row of the run index, maintained from each run's lifecycle events. */
export interface RunSummary {
  runId: string;
  origin: string;
  sessionId: string | null;
  namespace: string | null;
  status: RunStatus;
  /** `ts` of the run's first event. */
  startedAt: string;
  /** `ts` of the run's latest event. */
  updatedAt: string;
  /** `seq` of the run's latest event. */
  lastSeq: number;
}

export interface ListRunsFilter {
  status?: RunStatus;
  origin?: string;
  sessionId?: string;
  /** Newest first; at most this many. @default 50 */
  limit?: number;
  /** Only runs that started strictly before this ISO timestamp (pagination cursor). */
  startedBefore?: string;
  /**
   * Only the runs listed after this one (a keyset cursor: the `startedAt` and `runId` of the
   * last run of the previous page): those that started strictly before `startedAt`, and those
   * that started in that same millisecond but were recorded before run `runId`. Exact across
   * runs sharing a start time. Should run `runId` have left the index meanwhile (pruned), the
   * rest of its millisecond is skipped, never listed twice.
   */
  after?: RunCursor;
}

/** Where a page of `listRuns` ended: its last run's start and id (see `ListRunsFilter.after`). */
export interface RunCursor {
  startedAt: string;
  runId: string;
}

/** Runs listed when a filter gives no `limit`. */
export const DEFAULT_LIST_LIMIT = 50;

export interface ReadOptions {
  /** Only events with `seq` greater than this. */
  afterSeq?: number;
  /** At most this many events (the first ones after `afterSeq`): a reader that pages. @default all */
  limit?: number;
}

export interface ClaimHolder {
  runId: string;
  /** ISO timestamp when the claim was taken (or last renewed). */
  claimedAt: string;
  /** The holder's promise to renew within this many ms (a live run's heartbeat); absent when it made none. */
  leaseMs?: number;
}

/**
 * Whether a claim taken (or renewed) at `holder.claimedAt` is stale at `now`: older than
 * `staleAfterMs`, or than the holder's own lease (a live run that stopped renewing).
 */
export function isStale(holder: ClaimHolder, staleAfterMs: number, now: number): boolean {
  const takenAt = Date.parse(holder.claimedAt);
  const limit =
    holder.leaseMs === undefined ? staleAfterMs : Math.min(staleAfterMs, holder.leaseMs);
  return Number.isNaN(takenAt) || now - takenAt > limit;
}

export type ClaimResult =
  | { acquired: true; tookOverFrom: ClaimHolder | null }
  | { acquired: false; holder: ClaimHolder };

export interface ClaimRequest {
  /** What is claimed, e.g. `session:<id>` or `thread:<workflow>:<id>`. */
  key: string;
  runId: string;
  /** A claim older than this is stale and is taken over (reported in `tookOverFrom`). */
  staleAfterMs: number;
  /**
   * The claimer promises to renew the claim at least this often (a live run's heartbeat):
   * once not renewed for `leaseMs` it is stale, whatever `staleAfterMs` a later claimer
   * allows, because its process is taken to be gone. Omitted: no promise, only `staleAfterMs`
   * applies (a paused run that keeps its claim). Stored with the claim; a renewal replaces it.
   */
  leaseMs?: number;
}

export interface ControlRequest {
  requestId: string;
  runId: string;
  verb: ControlVerb;
  reason: string | null;
  /** ISO timestamp. */
  requestedAt: string;
}

/** The append-only log of each run's events. */
export interface EventLog {
  /**
   * Append events atomically, in order. The store assigns `v`, `seq` (per run, from 0,
   * gap-free, even with several writers) and `ts`, and returns the stored events. A batch
   * with a malformed event rejects with InvalidInputError and writes nothing. Every method
   * rejects once the store is closed.
   */
  append(events: readonly NewEvent[]): Promise<Event[]>;
  /** A run's events in `seq` order; `[]` for an unknown run. */
  read(runId: string, options?: ReadOptions): Promise<Event[]>;
}

/** One row per run, folded from its events: what `listRuns` and `getRun` read. */
export interface RunIndex {
  /** Runs from the index, newest first. */
  listRuns(filter?: ListRunsFilter): Promise<RunSummary[]>;
  /** One run's index row, or `null`. */
  getRun(runId: string): Promise<RunSummary | null>;
}

/** Named claims with a holder and a lease: sessions, threads, resume locks, timer and schedule registers (docs/internals/claims-and-leases.md). */
export interface Claims {
  /**
   * Take a claim, or report its holder. A stale claim is taken over. Claiming a key the
   * same run already holds renews `claimedAt` (so a long-lived run is not taken as stale).
   */
  claim(request: ClaimRequest): Promise<ClaimResult>;
  /** Free a claim if (and only if) `runId` holds it; returns whether it did. */
  release(key: string, runId: string): Promise<boolean>;
  /** The current holder of a claim, or `null`. */
  claimHolder(key: string): Promise<ClaimHolder | null>;
}

/** Pause, cancel and resume requests, found by any process sharing the store. */
export interface ControlRequests {
  /** Record a control request for a run; returns it with its id and time. */
  recordControl(runId: string, verb: ControlVerb, reason: string | null): Promise<ControlRequest>;
  /** A run's control requests, oldest first. */
  readControl(runId: string): Promise<ControlRequest[]>;
}

/** The engine's saved state of a paused agent turn. */
export interface Continuations {
  /**
   * Keep the engine's saved state of a paused run (replacing an earlier one), so that any
   * process sharing the store can continue it. Opaque to the store; never holds a context.
   */
  saveContinuation(runId: string, state: string): Promise<void>;
  /** A paused run's saved state, or `null`. */
  readContinuation(runId: string): Promise<string | null>;
  /** Forget a run's saved state (it continued, or ended); whether there was one. */
  dropContinuation(runId: string): Promise<boolean>;
}

/**
 * The event store port: every role in one backend. A function that needs one role takes that
 * interface (`Claims`, `RunIndex`...), so what it touches is in its signature.
 */
export interface EventStore extends EventLog, RunIndex, Claims, ControlRequests, Continuations {
  /** Release resources (file handles, connections). Idempotent. */
  close(): Promise<void>;
}

/**
 * An ability of an event store: telling a reader, at once, that a run has new events,
 * whoever appended them (this process or, for a shared store, any other), so a live tail
 * need not poll and a tail of a waiting run costs nothing while nothing happens. A notice is
 * a wake-up, never the events: the reader then reads the store after the last seq it has.
 * A store that may have missed notices (a dropped connection) wakes every watcher instead,
 * so a reader never needs to read on a timer. Found with {@link isAppendNotifier}; the
 * memory store (in process), the SQLite store (in process, and other connections' commits
 * seen by the file's change counter) and the Postgres store (LISTEN/NOTIFY) have it.
 */
export interface AppendNotifier {
  /**
   * Call `onAppend` after each commit that appends to `runId`, in any process. Resolves once
   * listening (nothing committed later is missed) with a function that stops watching;
   * rejects with a StoreError when it cannot listen (the caller falls back to polling).
   */
  watchRun(runId: string, onAppend: () => void): Promise<() => void>;
}

/** Whether `store` can tell a reader of new events (see {@link AppendNotifier}). */
export function isAppendNotifier(store: object): store is AppendNotifier {
  return typeof (store as Partial<AppendNotifier>).watchRun === 'function';
}

/**
 * An ability of an event store: a run's first and last writes each in one transaction with
 * the claim it runs under. A turn on a session otherwise pays a commit to take the session's
 * claim, another for `run.started`, a read before its terminal event (another writer may have
 * ended the run), a commit for that event and one more to free the claim; on a small machine
 * those commits are a large part of what recording a short turn costs. Found with
 * {@link hasRunBoundaries}; the memory, SQLite and Postgres stores have it (Postgres ends a
 * run in one statement), and the runtime does the same steps one by one on a store without it.
 */
export interface RunBoundaries {
  /**
   * Take a claim as {@link EventStore.claim} does and, in the same transaction, append
   * `events` (a run's first events), but only when the claim was free or already
   * `request.runId`'s: a refused claim, or one taken over from a stale holder, appends nothing
   * (`events: null`), so the caller can close the stale run before its own run starts.
   */
  claimAndAppend(
    request: ClaimRequest,
    events: readonly NewEvent[],
  ): Promise<{ claim: ClaimResult; events: Event[] | null }>;
  /**
   * Append a run's terminal event (`run.completed`, `run.failed`, `run.cancelled`) unless the
   * run has already ended, and, given `release`, free that claim if the run holds it, in one
   * transaction. Resolves with the stored event, or `null` when the run had already ended
   * (nothing is appended; the claim is freed all the same).
   */
  endRun(event: NewEvent, release: string | null): Promise<Event | null>;
}

/** Whether `store` writes a run's boundaries with its claim (see {@link RunBoundaries}). */
export function hasRunBoundaries(store: object): store is RunBoundaries {
  const candidate = store as Partial<RunBoundaries>;
  return typeof candidate.claimAndAppend === 'function' && typeof candidate.endRun === 'function';
}

/**
 * An ability of an event store: a run's pause (`run.interrupted` or `run.paused`, its segment's
 * end) and the renewal of the claim it keeps in one transaction. The runtime otherwise writes
 * the event, then renews the claim without a lease (a paused run keeps its thread); on a
 * server that is a second round trip after every pause, on SQLite a second commit. Found with
 * {@link canPauseRuns}; the memory, SQLite and Postgres stores have it, and the runtime does the
 * two steps one by one on a store without it.
 */
export interface RunPauses {
  /**
   * Append `event` (a pause) and, in the same transaction, renew the claim `keep` without a
   * lease if `event.runId` holds it (a claim it does not hold is left alone). Resolves with
   * the stored event.
   */
  pauseRun(event: NewEvent, keep: string): Promise<Event>;
}

/** Whether `store` writes a run's pause with the claim it keeps (see {@link RunPauses}). */
export function canPauseRuns(store: object): store is RunPauses {
  return typeof (store as Partial<RunPauses>).pauseRun === 'function';
}

/**
 * An ability of an event store: a claim and the read of a run's index row in one round trip,
 * the row read once the claim is decided. A resume takes its lock and checks the run's status
 * under it: on a server, two round trips in a row before every answer. Found with
 * {@link canClaimAndRead}; the Postgres store has it, and the runtime claims, then reads, on a
 * store without it.
 */
export interface ClaimAndRead {
  /** Claim as {@link EventStore.claim} does, then read `runId` as {@link EventStore.getRun} would. */
  claimAndGetRun(
    request: ClaimRequest,
    runId: string,
  ): Promise<{ claim: ClaimResult; run: RunSummary | null }>;
}

/** Whether `store` claims and reads a run in one call (see {@link ClaimAndRead}). */
export function canClaimAndRead(store: object): store is ClaimAndRead {
  return typeof (store as Partial<ClaimAndRead>).claimAndGetRun === 'function';
}

/** Which ended runs `pruneRuns` removes. */
export interface PruneRequest {
  /** Only runs whose last event (their end) is strictly before this ISO 8601 UTC time. */
  endedBefore: string;
  /** Only runs that ended with these statuses. @default all three: completed, failed, cancelled */
  statuses?: readonly ('completed' | 'failed' | 'cancelled')[];
  /** Only runs of this agent or workflow. */
  origin?: string;
  /** At most this many runs, the longest-ended first (a batch; call again for more). */
  limit: number;
  /** Remove nothing; return what would be removed. @default false */
  dryRun?: boolean;
}

/** A run `pruneRuns` removed (or, in a dry run, would remove): its index row as it was. */
export type PrunedRun = RunSummary;

/**
 * An ability of an event store: retention. Removes runs that ended, with everything the
 * store keeps for them (events, index row, control requests, continuation, the reservation
 * of a caller-chosen run id), in one transaction per batch. A run that has not ended
 * (running, paused, waiting for an answer) is never removed, however old. Several processes
 * may prune at once: each run is removed by one of them and reported by that one only.
 * Found with {@link canPruneRuns}; the memory, SQLite and Postgres stores have it.
 */
export interface RunPruning {
  pruneRuns(request: PruneRequest): Promise<PrunedRun[]>;
}

/** Whether `store` can remove ended runs (see {@link RunPruning}). */
export function canPruneRuns(store: object): store is RunPruning {
  return typeof (store as Partial<RunPruning>).pruneRuns === 'function';
}

/**
 * An ability of an event store: finding runs by the start of their id, for a person who types
 * a few characters of one (`agentdeck runs show 0193f2`). Found with {@link canSearchRunIds};
 * the memory, SQLite and Postgres stores have it.
 */
export interface RunIdSearch {
  /** The ids of at most `limit` runs whose id starts with `prefix` (case-sensitive), in id order. */
  runIdsStartingWith(prefix: string, limit: number): Promise<string[]>;
}

/** Whether `store` can find runs by the start of their id (see {@link RunIdSearch}). */
export function canSearchRunIds(store: object): store is RunIdSearch {
  return typeof (store as Partial<RunIdSearch>).runIdsStartingWith === 'function';
}

/**
 * An ability of an event store: listing one namespace's runs (a tenant's, docs/tenants.md) from
 * an index on the namespace, newest first, with every other filter of `listRuns`. A service
 * with tenants lists, pages and reads the inbox through it, never by filtering a full listing.
 * Found with {@link canListByNamespace}; the memory, SQLite and Postgres stores have it, and a
 * deck refuses to scope requests by tenant over a store without it.
 */
export interface NamespaceListing {
  /** `listRuns(filter)`, only the runs whose `namespace` is `namespace`. */
  listRunsIn(namespace: string, filter?: ListRunsFilter): Promise<RunSummary[]>;
}

/** Whether `store` can list one namespace's runs (see {@link NamespaceListing}). */
export function canListByNamespace(store: object): store is NamespaceListing {
  return typeof (store as Partial<NamespaceListing>).listRunsIn === 'function';
}

/**
 * The claim key that reserves a caller-chosen run id (`runtime/run-id-reservation.ts`), which
 * `pruneRuns` frees with the run it reserved.
 */
export function runIdReservationKey(runId: string): string {
  return `run-id:${runId}`;
}

/**
 * A backend (event store, session backend, checkpointer) that can say whether it answers
 * now, for the readiness probe (`GET /health/ready`). Found with {@link isPingable}.
 */
export interface Pingable {
  /**
   * Resolves when the backend answers (and, for a file, has room for writes); rejects with a
   * `StoreUnavailableError` or `StorageFullError` that names it and says what failed.
   */
  ping(): Promise<void>;
}

/** Whether `backend` answers a readiness ping (see {@link Pingable}). */
export function isPingable(backend: object): backend is Pingable {
  return typeof (backend as Partial<Pingable>).ping === 'function';
}

/**
 * A store's schema layout (CONTRIBUTING.md, "Migrations and rolling upgrades"): reported by
 * `GET /health/ready` and `agentdeck status`.
 */
export interface StoreLayout {
  /** The layout in the store: its last applied migration (0 when never migrated). */
  version: number;
  /** The last migration this process's code knows. */
  code_version: number;
  /** The oldest layout whose code can use the store (its newest contracting migration). */
  oldest_usable: number;
  /** The release that first has `oldest_usable`: the oldest that can use the store. */
  oldest_usable_release: string;
}

/** A SQL store that reports its schema layout. Found with {@link hasLayout}. */
export interface LayoutReporting {
  layout(): Promise<StoreLayout>;
}

/** Whether `backend` reports its schema layout (the SQL event stores do). */
export function hasLayout(backend: object): backend is LayoutReporting {
  return typeof (backend as Partial<LayoutReporting>).layout === 'function';
}
