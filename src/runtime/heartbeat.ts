/**
 * Keeps a claim fresh while its run is alive, so that only a run whose process is gone
 * ever looks stale. Each renewal carries a lease (a few heartbeats long): a claim whose
 * holder stops renewing is stale once the lease runs out, long before the stale-run timeout
 * (which still applies to a paused run's kept claim, renewed by nobody). If the claim was
 * taken over anyway (the process stalled past its lease), the run is told through `onLost`
 * and stops.
 *
 * Tested in run-lease.test.ts (renewals, the lease, a lost claim) and claims.test.ts, end to end
 * in src/deck/stale-claims.test.ts.
 */
import { errorMessage } from '../core/errors.js';
import { log } from '../core/log.js';
import { TERMINAL_STATUSES } from '../core/status.js';
import type { Claims, RunIndex } from '../core/store.js';

/** Stops renewing; resolves once no renewal is in flight (so a release cannot be undone by one). */
export type StopHeartbeat = () => Promise<void>;

/** How often a live run renews its claim, and the lease each renewal promises. */
export interface HeartbeatTiming {
  everyMs: number;
  /** Absent: no lease promised (only the stale-run timeout applies). */
  leaseMs?: number;
}

/** Heartbeats a live claim may miss before it is stale: its lease is this many intervals. */
export const LEASE_HEARTBEATS = 3;

/**
 * The heartbeat of a live run: every `heartbeatSeconds` (never less often than a third of
 * the stale-run timeout), with a lease of {@link LEASE_HEARTBEATS} intervals. Without
 * `heartbeatSeconds`, a third of the timeout and no lease.
 */
export function heartbeatTiming(
  staleAfterSeconds: number,
  heartbeatSeconds?: number,
): HeartbeatTiming {
  const third = Math.floor((staleAfterSeconds * 1000) / 3);
  if (heartbeatSeconds === undefined) return { everyMs: Math.max(10, third) };
  const everyMs = Math.max(10, Math.min(Math.round(heartbeatSeconds * 1000), third));
  return { everyMs, leaseMs: everyMs * LEASE_HEARTBEATS };
}

export interface HeartbeatRequest {
  /** The claim the run holds. */
  key: string;
  runId: string;
  /** The claim's timeout, renewed with the claim. */
  staleAfterMs: number;
  timing: HeartbeatTiming;
  /** Called with why the run must stop: its claim is another's, or its run was closed. */
  onLost: (reason: string) => void;
  /** Called after each renewal the store took, with when it was sent (ms since the epoch). */
  onRenewed?: (sentAt: number) => void;
}

export function startHeartbeat(
  store: Claims & RunIndex,
  { key, runId, staleAfterMs, timing, onLost, onRenewed }: HeartbeatRequest,
): StopHeartbeat {
  let inFlight: Promise<void> | null = null;
  const lease = timing.leaseMs === undefined ? {} : { leaseMs: timing.leaseMs };
  const timer = setInterval(() => {
    if (inFlight) return;
    const sentAt = Date.now();
    inFlight = store
      .claim({ key, runId, staleAfterMs, ...lease })
      .then(async (result) => {
        if (!result.acquired) {
          onLost(`its claim was taken over by run '${result.holder.runId}'`);
          return;
        }
        onRenewed?.(sentAt);
        // A stalled process may find its claim released by a sweep that closed its run as
        // failed (the renewal then simply succeeds): the run stops instead of going on.
        const summary = await store.getRun(runId);
        if (summary && TERMINAL_STATUSES.includes(summary.status)) {
          await store.release(key, runId);
          onLost(`it was closed as ${summary.status} by another process while this one stalled`);
        }
      })
      .then(
        () => {},
        (error) => log.error(`[agentdeck] renewing ${key} failed: ${errorMessage(error)}`),
      )
      .finally(() => {
        inFlight = null;
      });
  }, timing.everyMs);
  timer.unref();
  return async () => {
    clearInterval(timer);
    await inFlight;
  };
}
