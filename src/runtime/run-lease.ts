/**
 * What a live run holds while its code runs, shared by agent turns and workflow runs: the
 * claim on its session or thread (renewed by a heartbeat), the abort controller that stops
 * the engine, and its entry among the live turns that closing the deck cancels. A run
 * either releases its claim when it ends, or keeps it (a workflow paused on `interrupt()`
 * or `sleepUntil()` holds its thread until it is answered or woken).
 */
import { errorMessage, isBackendOutage } from '../core/errors.js';
import type { Event, EventDraft, NewEvent } from '../core/events.js';
import { log } from '../core/log.js';
import { TERMINAL_STATUSES } from '../core/status.js';
import { type ControlRequest, type EventStore, hasRunBoundaries } from '../core/store.js';
import { acquireClaim } from './claims.js';
import { type ControlWatch, RunControl, type WatchedRun } from './control/watch.js';
import {
  type HeartbeatTiming,
  heartbeatTiming,
  type StopHeartbeat,
  startHeartbeat,
} from './heartbeat.js';
import type { LiveTurn, LiveTurns } from './live-turns.js';
import type { PendingEndings } from './pending-endings.js';
import { type EventTap, RunEndedError, type RunIdentity, RunRecorder } from './recorder.js';

export interface LeaseDeps {
  store: EventStore;
  staleRunAfterSeconds: number;
  /** How often a live run renews its claim (with a lease of a few of these); see settings.ts. */
  heartbeatSeconds?: number;
  taps: readonly EventTap[];
  liveTurns: LiveTurns;
  /** Where the run's pause and cancel requests are watched for. */
  controlWatch: ControlWatch;
  /** Where a terminal event the store could not take waits (pending-endings.ts). */
  endings?: PendingEndings;
}

/** Why a run stopped on a cancel request, when it has no reason of its own. */
export const CANCEL_REQUESTED = 'a cancel was requested';

export class RunLease {
  readonly controller = new AbortController();
  readonly recorder: RunRecorder;
  /**
   * The `start` event given to {@link RunLease.acquire} when it was stored with the claim (not
   * yet tapped: record it with `recorder.adopt`); `null` when the caller must record it.
   */
  started: Event | null = null;
  #cancelReason: string | null = null;
  #stopHeartbeat: StopHeartbeat = async () => {};
  #timing: HeartbeatTiming | null = null;
  #settled = false;
  /** When the claim was last taken or renewed (the request's send time, ms since the epoch). */
  #renewedAt = Date.now();
  #markFinished: () => void = () => {};
  readonly #live: LiveTurn;
  readonly #watched: WatchedRun;

  readonly #deps: LeaseDeps;
  readonly #claimKey: string | null;
  private constructor(
    deps: LeaseDeps,
    identity: RunIdentity,
    claimKey: string | null,
    handled: readonly string[],
  ) {
    this.#deps = deps;
    this.#claimKey = claimKey;
    this.recorder = new RunRecorder(deps.store, identity, deps.taps, deps.endings ?? null);
    this.#watched = {
      runId: identity.runId,
      control: new RunControl(
        (request) => this.cancel(request.reason ?? CANCEL_REQUESTED),
        handled,
        (request) => this.#recordRequested(request),
      ),
    };
    const finished = new Promise<void>((resolve) => {
      this.#markFinished = resolve;
    });
    this.#live = {
      controller: this.controller,
      recorder: this.recorder,
      finished,
      cancel: (reason) => this.cancel(reason),
      release: () => this.release(),
    };
  }

  /**
   * Take the claim (when there is a key) before anything is recorded, so a refused run
   * leaves no trace; then start renewing it and register the run as live.
   */
  static async acquire(
    deps: LeaseDeps,
    identity: RunIdentity,
    claimKey: string | null,
    /** Control requests already addressed (a continued run's pause and resume). */
    handled: readonly string[] = [],
    /** The run's first event, written with the claim when the store can (see `started`). */
    start?: EventDraft,
    /**
     * Read the run's control requests at once rather than at the next poll: a continued run
     * may have been cancelled while at rest (or while stopping, found still running).
     */
    lookAtOnce = handled.length > 0,
  ): Promise<RunLease> {
    const timing = heartbeatTiming(deps.staleRunAfterSeconds, deps.heartbeatSeconds);
    const claimedAt = Date.now();
    let started: Event | null = null;
    if (claimKey) {
      started = await acquireClaim(deps.store, {
        key: claimKey,
        runId: identity.runId,
        staleAfterMs: deps.staleRunAfterSeconds * 1000,
        taps: deps.taps,
        ...(timing.leaseMs !== undefined ? { leaseMs: timing.leaseMs } : {}),
        ...(start ? { first: { ...identity, ...start } as NewEvent } : {}),
      });
    }
    const lease = new RunLease(deps, identity, claimKey, handled);
    lease.started = started;
    lease.#renewedAt = claimedAt;
    if (claimKey) {
      lease.#timing = timing;
      lease.#stopHeartbeat = startHeartbeat(deps.store, {
        key: claimKey,
        runId: identity.runId,
        staleAfterMs: deps.staleRunAfterSeconds * 1000,
        timing,
        onLost: (reason) => lease.cancel(reason),
        onRenewed: (sentAt) => {
          lease.#renewedAt = Math.max(lease.#renewedAt, sentAt);
        },
      });
    }
    deps.liveTurns.add(lease.#live);
    deps.controlWatch.watch(lease.#watched);
    if (lookAtOnce) await deps.controlWatch.check(identity.runId);
    return lease;
  }

  /** `control.requested` in the run's log, written by the process playing it. */
  async #recordRequested(request: ControlRequest): Promise<void> {
    await this.recorder
      .record({
        kind: 'control.requested',
        payload: { verb: request.verb, reason: request.reason, requestId: request.requestId },
      })
      .catch(logFailure(`record control.requested for run '${this.recorder.identity.runId}'`));
  }

  /** The pause request to stop for at the next safe point, or `null`. */
  get pauseRequest(): ControlRequest | null {
    return this.#watched.control.pauseRequest;
  }

  /** The cancel request that stopped the run (record it as observed), or `null`. */
  get cancelRequest(): ControlRequest | null {
    return this.#watched.control.cancelRequest;
  }

  get signal(): AbortSignal {
    return this.controller.signal;
  }

  /** Why the run was asked to stop, or `null` when nobody asked. */
  get cancelReason(): string | null {
    return this.#cancelReason;
  }

  /** Ask the run to stop; the first reason wins. */
  cancel(reason: string): void {
    this.#cancelReason ??= reason;
    this.controller.abort(new Error(reason));
  }

  /** Stop renewing and free the claim. Idempotent. */
  async release(): Promise<void> {
    if (this.#settled) return;
    this.#settled = true;
    await this.#stopHeartbeat();
    await this.#free();
  }

  /**
   * Record the run's terminal event once its code is done, freeing the claim in the same
   * write when the store can (`RunBoundaries`); otherwise the claim is freed by `release`.
   */
  async end(draft: EventDraft): Promise<Event> {
    const key = this.#claimKey;
    if (!key || this.#settled || !hasRunBoundaries(this.#deps.store)) {
      return this.recorder.record(draft);
    }
    this.#settled = true;
    await this.#stopHeartbeat();
    try {
      return await this.recorder.record(draft, key);
    } catch (error) {
      await this.#free(); // the write failed (or did not happen): free the claim on its own
      throw error;
    }
  }

  async #free(): Promise<void> {
    if (!this.#claimKey) return;
    await this.#deps.store
      .release(this.#claimKey, this.recorder.identity.runId)
      .catch(logFailure(`release ${this.#claimKey}`));
  }

  /**
   * Before a run records that it waits (a question, a timer, a pause): when its lease ran out
   * since the claim's last renewal (the process stalled, or its renewals waited on a busy
   * pool), a stale sweep in another process may have closed the run meanwhile, and the pause
   * would be written after its end and the caller told it waits for an answer nobody can
   * give. Then the run's status is read, and a run that ended stops here (RunEndedError). A
   * run renewed within its lease costs nothing: nobody could have taken its claim.
   */
  async confirmNotClosed(): Promise<void> {
    const leaseMs = this.#timing?.leaseMs;
    if (leaseMs === undefined || Date.now() - this.#renewedAt <= leaseMs) return;
    const { runId } = this.recorder.identity;
    const summary = await this.#deps.store.getRun(runId);
    if (summary && TERMINAL_STATUSES.includes(summary.status)) {
      throw this.recorder.endedElsewhere(
        `run '${runId}' was closed as ${summary.status} by another process while this one ` +
          `stalled past its claim's lease (${leaseMs / 1000} s); it does not wait`,
      );
    }
  }

  /**
   * Record the run's pause (`draft`) and keep the claim ({@link RunLease.keep}): in one write
   * when the store can (`RunPauses`), the event first otherwise. Renewing stops before the
   * write, so no renewal with a lease can land after the claim is kept without one; should the
   * write fail, the run is not settled and its ending frees the claim.
   */
  async pause(draft: EventDraft): Promise<Event> {
    const key = this.#claimKey;
    if (!key || this.#settled || this.#timing?.leaseMs === undefined) {
      const event = await this.recorder.record(draft);
      await this.keep();
      return event;
    }
    this.#settled = true;
    await this.#stopHeartbeat();
    try {
      const { event, kept } = await this.recorder.recordPause(draft, key);
      if (!kept) await this.#keepClaim(key);
      return event;
    } catch (error) {
      this.#settled = false;
      throw error;
    }
  }

  /**
   * Stop renewing but keep the claim: the run is paused and still owns its thread. The claim
   * is renewed once without a lease, so it follows the stale-run timeout from now on.
   */
  async keep(): Promise<void> {
    if (this.#settled) return;
    this.#settled = true;
    await this.#stopHeartbeat();
    if (this.#claimKey && this.#timing?.leaseMs !== undefined)
      await this.#keepClaim(this.#claimKey);
  }

  async #keepClaim(key: string): Promise<void> {
    const runId = this.recorder.identity.runId;
    const staleAfterMs = this.#deps.staleRunAfterSeconds * 1000;
    await this.#deps.store.claim({ key, runId, staleAfterMs }).catch((error: unknown) => {
      logFailure(`keep ${key} for the paused run`)(error);
      // Kept as soon as the store is back, before a stale sweep takes the lapsed lease for
      // a gone process and closes the paused run.
      if (isBackendOutage(error)) keepWhenBack(this.#deps.store, key, runId, staleAfterMs);
    });
  }

  /** The run's own code is done: it is no longer live. Call last, after release or keep. */
  finish(): void {
    this.#deps.controlWatch.unwatch(this.#watched);
    this.#deps.liveTurns.delete(this.#live);
    this.#markFinished();
  }
}

/** How often a paused run's claim the store refused is tried again, in ms. */
const KEEP_RETRY_MS = 100;

/** Renew a paused run's claim (no lease) once the store takes it, while the run is not over. */
function keepWhenBack(store: EventStore, key: string, runId: string, staleAfterMs: number): void {
  const until = Date.now() + staleAfterMs;
  const attempt = async () => {
    const summary = await store.getRun(runId);
    if (!summary || TERMINAL_STATUSES.includes(summary.status)) return;
    await store.claim({ key, runId, staleAfterMs });
  };
  const retry = () => {
    attempt().catch((error: unknown) => {
      if (isBackendOutage(error) && Date.now() < until) setTimeout(retry, KEEP_RETRY_MS).unref();
    });
  };
  setTimeout(retry, KEEP_RETRY_MS).unref();
}

export function logFailure(what: string) {
  return (error: unknown) => {
    if (error instanceof RunEndedError) return;
    log.error(`[agentdeck] could not ${what}: ${errorMessage(error)}`);
  };
}
