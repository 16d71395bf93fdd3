/**
 * The in-process event store: the reference backend of the `EventStore` port. It keeps the
 * same stored form as the durable backends (wire JSON, re-parsed on read), so a test that
 * passes here exercises the same round trip; it is lost when the process exits. Every
 * method runs to completion without awaiting, which makes each call atomic.
 */

import { ConflictError, StoreError } from '../../core/errors.js';
import type { EvalStorage } from '../../core/evals.js';
import type { ControlVerb } from '../../core/event-kinds.js';
import type { Event, NewEvent } from '../../core/events.js';
import type {
  QueueEntry,
  QueueLimits,
  RateLimit,
  RunQueue,
  TakeRequest,
  TokenResult,
} from '../../core/queue.js';
import { nextStatus, TERMINAL_STATUSES } from '../../core/status.js';
import {
  type AppendNotifier,
  type ClaimHolder,
  type ClaimRequest,
  type ClaimResult,
  type ControlRequest,
  DEFAULT_LIST_LIMIT,
  type EventStore,
  isStale,
  type ListRunsFilter,
  type NamespaceListing,
  type PrunedRun,
  type PruneRequest,
  type ReadOptions,
  type RunBoundaries,
  type RunIdSearch,
  type RunPauses,
  type RunPruning,
  type RunSummary,
  runIdReservationKey,
} from '../../core/store.js';
import { resolvePruneRequest } from '../shared/prune.js';
import { requireQueued } from '../shared/queue.js';
import { RunWatchers } from '../shared/run-watchers.js';
import {
  eventFromStored,
  nextTimestamp,
  type PreparedEvent,
  prepareEvents,
  requirePause,
  requireTerminal,
  type StoredEvent,
  stampPrepared,
  toStored,
} from '../shared/stored-event.js';
import { MemoryEvals } from './evals.js';
import { MemoryQueue } from './queue.js';

interface RunRecord {
  summary: RunSummary;
  /** Creation order, to list runs that started in the same millisecond newest first. */
  order: number;
  rows: StoredEvent[];
}

/**
 * An `EventStore` held in memory: for tests, examples and `SERVICE_EVENTS=memory://`.
 *
 * @example
 * ```ts
 * const store = new MemoryEventStore();
 * const [stored] = await store.append([{ kind: 'text.delta', runId: 'r1', sessionId: null,
 *   namespace: null, origin: 'helper', payload: { messageId: 'm1', text: 'Hi' } }]);
 * stored.seq; // 0
 * ```
 */
export class MemoryEventStore
  implements
    EventStore,
    RunBoundaries,
    RunPauses,
    RunPruning,
    RunIdSearch,
    AppendNotifier,
    NamespaceListing,
    RunQueue,
    EvalStorage
{
  /** Datasets and experiments (core/evals.ts). */
  readonly evals: MemoryEvals = new MemoryEvals(() => this.#open());
  readonly #runs = new Map<string, RunRecord>();
  readonly #queue = new MemoryQueue();
  readonly #watchers = new RunWatchers();
  readonly #claims = new Map<string, ClaimHolder>();
  readonly #control = new Map<string, ControlRequest[]>();
  readonly #continuations = new Map<string, string>();
  #created = 0;
  #closed = false;

  async append(events: readonly NewEvent[]): Promise<Event[]> {
    this.#open();
    return this.#append(prepareEvents(events));
  }

  #append(prepared: PreparedEvent[]): Event[] {
    const stored = this.#appendRows(prepared);
    this.#watchers.wakeFor(stored);
    return stored;
  }

  #appendRows(prepared: PreparedEvent[]): Event[] {
    return prepared.map((item) => {
      const runId = item.event.runId;
      let record = this.#runs.get(runId);
      const last = record?.rows.at(-1);
      const seq = last ? last.seq + 1 : 0;
      const ts = nextTimestamp(last?.ts);
      const stored = stampPrepared(item, seq, ts);
      if (!record) {
        record = {
          order: this.#created++,
          rows: [],
          summary: {
            runId,
            origin: item.event.origin,
            sessionId: item.event.sessionId,
            namespace: item.event.namespace,
            status: nextStatus(null, stored),
            startedAt: ts,
            updatedAt: ts,
            lastSeq: seq,
          },
        };
        this.#runs.set(runId, record);
      } else if (item.lifecycle) {
        record.summary.status = nextStatus(record.summary.status, stored);
      }
      record.rows.push(toStored(item, seq, ts));
      record.summary.updatedAt = ts;
      record.summary.lastSeq = seq;
      return stored;
    });
  }

  async claimAndAppend(
    request: ClaimRequest,
    events: readonly NewEvent[],
  ): Promise<{ claim: ClaimResult; events: Event[] | null }> {
    this.#open();
    const prepared = prepareEvents(events); // a malformed batch is refused before the claim
    const claim = this.#claim(request);
    if (!claim.acquired || claim.tookOverFrom) return { claim, events: null };
    return { claim, events: this.#append(prepared) };
  }

  async enqueue(event: NewEvent, limits: QueueLimits): Promise<Event> {
    this.#open();
    requireQueued(event, limits);
    const prepared = prepareEvents([event]);
    if (this.#runs.has(event.runId)) {
      throw new ConflictError(`run '${event.runId}' already exists; a queued run needs a new id`);
    }
    const [stored] = this.#append(prepared);
    if (stored?.kind !== 'run.queued') throw new StoreError('the queued run was not stored');
    this.#queue.add(stored, limits);
    return stored;
  }

  async take(request: TakeRequest): Promise<QueueEntry[]> {
    this.#open();
    return this.#queue.take(request);
  }

  async renewTaken(worker: string, runIds: readonly string[]): Promise<string[]> {
    this.#open();
    return this.#queue.renew(worker, runIds);
  }

  async finishTaken(runId: string, worker: string): Promise<boolean> {
    this.#open();
    return this.#queue.finish(runId, worker);
  }

  async giveBack(runId: string, worker: string, availableAt: string): Promise<boolean> {
    this.#open();
    return this.#queue.giveBack(runId, worker, availableAt);
  }

  async dropWaiting(runId: string): Promise<boolean> {
    this.#open();
    return this.#queue.dropWaiting(runId);
  }

  async queueEntry(runId: string): Promise<QueueEntry | null> {
    this.#open();
    return this.#queue.entry(runId);
  }

  async listQueue(limit: number): Promise<QueueEntry[]> {
    this.#open();
    return this.#queue.list(limit);
  }

  async takeToken(bucket: string, rate: RateLimit): Promise<TokenResult> {
    this.#open();
    return this.#queue.takeToken(bucket, rate);
  }

  async watchQueue(onEnqueued: () => void): Promise<() => void> {
    this.#open();
    return this.#queue.watch(onEnqueued);
  }

  async endRun(event: NewEvent, release: string | null): Promise<Event | null> {
    this.#open();
    requireTerminal(event);
    const prepared = prepareEvents([event]);
    const status = this.#runs.get(event.runId)?.summary.status;
    const ended = status !== undefined && TERMINAL_STATUSES.includes(status);
    const [stored] = ended ? [] : this.#append(prepared);
    if (release !== null) this.#release(release, event.runId);
    return stored ?? null;
  }

  async pauseRun(event: NewEvent, keep: string): Promise<Event> {
    this.#open();
    requirePause(event);
    const [stored] = this.#append(prepareEvents([event])) as [Event];
    const holder = this.#claims.get(keep);
    if (holder?.runId === event.runId) {
      this.#claims.set(keep, { runId: event.runId, claimedAt: new Date().toISOString() });
    }
    return stored;
  }

  async read(runId: string, options: ReadOptions = {}): Promise<Event[]> {
    this.#open();
    const rows = this.#runs.get(runId)?.rows ?? [];
    const afterSeq = options.afterSeq ?? -1;
    // seq equals the row's index, so the tail after `afterSeq` is one slice.
    const from = Math.max(0, Math.floor(afterSeq) + 1);
    const to = options.limit === undefined ? rows.length : from + Math.max(0, options.limit);
    return rows.slice(from, to).map(eventFromStored);
  }

  async listRuns(filter: ListRunsFilter = {}): Promise<RunSummary[]> {
    return this.#list(filter, undefined);
  }

  /** One namespace's runs (see {@link NamespaceListing}). */
  async listRunsIn(namespace: string, filter: ListRunsFilter = {}): Promise<RunSummary[]> {
    return this.#list(filter, namespace);
  }

  #list(filter: ListRunsFilter, namespace: string | undefined): RunSummary[] {
    this.#open();
    const limit = filter.limit ?? DEFAULT_LIST_LIMIT;
    const { status, origin, sessionId, startedBefore, after } = filter;
    const cursorOrder = after ? (this.#runs.get(after.runId)?.order ?? -1) : 0;
    return [...this.#runs.values()]
      .filter(
        ({ summary: run, order }) =>
          (namespace === undefined || run.namespace === namespace) &&
          (status === undefined || run.status === status) &&
          (origin === undefined || run.origin === origin) &&
          (sessionId === undefined || run.sessionId === sessionId) &&
          (startedBefore === undefined || run.startedAt < startedBefore) &&
          (after === undefined ||
            run.startedAt < after.startedAt ||
            (run.startedAt === after.startedAt && order < cursorOrder)),
      )
      .sort((a, b) => compareDesc(a.summary.startedAt, b.summary.startedAt) || b.order - a.order)
      .slice(0, Math.max(0, Math.floor(limit)))
      .map(({ summary }) => ({ ...summary }));
  }

  async getRun(runId: string): Promise<RunSummary | null> {
    this.#open();
    const record = this.#runs.get(runId);
    return record ? { ...record.summary } : null;
  }

  /** Runs by the start of their id (see {@link RunIdSearch}). */
  async runIdsStartingWith(prefix: string, limit: number): Promise<string[]> {
    this.#open();
    return [...this.#runs.keys()]
      .filter((runId) => runId.startsWith(prefix))
      .sort(compareAsc)
      .slice(0, Math.max(0, Math.floor(limit)));
  }

  /**
   * Remove ended runs (see {@link RunPruning}): every call runs to completion without
   * awaiting, so it is one atomic step, and two calls never select the same run.
   */
  async pruneRuns(request: PruneRequest): Promise<PrunedRun[]> {
    this.#open();
    const { endedBefore, statuses, origin, limit, dryRun } = resolvePruneRequest(request);
    const chosen = [...this.#runs.values()]
      .map(({ summary }) => summary)
      .filter(
        (run) =>
          (statuses as readonly string[]).includes(run.status) &&
          run.updatedAt < endedBefore &&
          (origin === null || run.origin === origin),
      )
      .sort((a, b) => compareAsc(a.updatedAt, b.updatedAt) || compareAsc(a.runId, b.runId))
      .slice(0, limit);
    if (!dryRun) {
      for (const { runId } of chosen) {
        this.#runs.delete(runId);
        this.#queue.forget(runId);
        this.#control.delete(runId);
        this.#continuations.delete(runId);
        this.#claims.delete(runIdReservationKey(runId));
      }
    }
    return chosen.map((summary) => ({ ...summary }));
  }

  async claim(request: ClaimRequest): Promise<ClaimResult> {
    this.#open();
    return this.#claim(request);
  }

  #claim(request: ClaimRequest): ClaimResult {
    const now = Date.now();
    const holder = this.#claims.get(request.key);
    const mine: ClaimHolder = { runId: request.runId, claimedAt: new Date(now).toISOString() };
    if (request.leaseMs !== undefined) mine.leaseMs = request.leaseMs;
    if (!holder || holder.runId === request.runId) {
      // Re-claiming renews: a run that claims again is alive, so its stale clock restarts.
      this.#claims.set(request.key, mine);
      return { acquired: true, tookOverFrom: null };
    }
    if (isStale(holder, request.staleAfterMs, now)) {
      this.#claims.set(request.key, mine);
      return { acquired: true, tookOverFrom: { ...holder } };
    }
    return { acquired: false, holder: { ...holder } };
  }

  async release(key: string, runId: string): Promise<boolean> {
    this.#open();
    return this.#release(key, runId);
  }

  #release(key: string, runId: string): boolean {
    if (this.#claims.get(key)?.runId !== runId) return false;
    return this.#claims.delete(key);
  }

  async claimHolder(key: string): Promise<ClaimHolder | null> {
    this.#open();
    const holder = this.#claims.get(key);
    return holder ? { ...holder } : null;
  }

  async recordControl(
    runId: string,
    verb: ControlVerb,
    reason: string | null,
  ): Promise<ControlRequest> {
    this.#open();
    const request: ControlRequest = {
      requestId: crypto.randomUUID(),
      runId,
      verb,
      reason,
      requestedAt: new Date().toISOString(),
    };
    const list = this.#control.get(runId) ?? [];
    list.push(request);
    this.#control.set(runId, list);
    return { ...request };
  }

  async readControl(runId: string): Promise<ControlRequest[]> {
    this.#open();
    return (this.#control.get(runId) ?? []).map((request) => ({ ...request }));
  }

  async saveContinuation(runId: string, state: string): Promise<void> {
    this.#open();
    this.#continuations.set(runId, state);
  }

  async readContinuation(runId: string): Promise<string | null> {
    this.#open();
    return this.#continuations.get(runId) ?? null;
  }

  async dropContinuation(runId: string): Promise<boolean> {
    this.#open();
    return this.#continuations.delete(runId);
  }

  /** Call `onAppend` after each append to `runId` (this store lives in one process). */
  async watchRun(runId: string, onAppend: () => void): Promise<() => void> {
    this.#open();
    return this.#watchers.watch(runId, onAppend);
  }

  async close(): Promise<void> {
    this.#closed = true;
    this.#watchers.clear();
  }

  #open(): void {
    if (this.#closed) throw new StoreError('the memory event store is closed; open a new one');
  }
}

function compareDesc(a: string, b: string): number {
  return a < b ? 1 : a > b ? -1 : 0;
}

function compareAsc(a: string, b: string): number {
  return -compareDesc(a, b);
}
