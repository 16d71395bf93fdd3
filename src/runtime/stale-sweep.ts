/**
 * Closes the runs of a process that is gone without waiting for their session's next turn.
 * A live run renews its claim with a lease (runtime/heartbeat.ts); when its process dies,
 * the next turn on its session (or thread), in any process, takes the stale claim over and
 * closes the run with `run.failed`. Until then the log would say `running`, and a client
 * following the run would wait. So every open deck also looks, once per lease, at the runs
 * the log says are running: one whose claim is stale is taken over the same way (by a
 * sweeper that frees the claim at once) and closed. Several processes may sweep at once:
 * the claim lets one of them close a run, and the recorder never writes a second terminal
 * event. A run that holds no claim (an agent turn without a session) cannot be told from a
 * live one, and is left alone. A workflow run ends as its thread's checkpoint says instead,
 * when it says: one whose thread still waits at a question (its process died while it played
 * an answer, before the graph moved on) waits for it again (`run.interrupted`, claim kept),
 * so the answer cut off can be sent again; one whose graph ended is `run.completed`. Either
 * way the dead process's resume lock is freed, so that answer's retry is not refused.
 * Tested through the deck: src/deck/stale-claims.test.ts; across processes in
 * test/scale-out.int.test.ts.
 */
import { randomUUID } from 'node:crypto';
import { isBackendOutage } from '../core/errors.js';
import type { EventDraft } from '../core/events.js';
import { isRunQueue } from '../core/queue.js';
import { type EventStore, isStale, type RunSummary } from '../core/store.js';
import { closeTakenOver, sessionClaimKey } from './claims.js';
import { resumeLockKey } from './control/rest-cancel.js';
import { heartbeatTiming, LEASE_HEARTBEATS } from './heartbeat.js';
import { identityOf } from './paused-run.js';
import { type EventTap, RunRecorder } from './recorder.js';
import { RepeatedFailures } from './repeated-failures.js';
import type { RuntimeSettings } from './settings.js';
import { threadClaimKey } from './workflow-run.js';

/** Most running runs one sweep looks at (the newest first). */
export const SWEEP_LIMIT = 500;

export interface SweepDeps {
  store: EventStore;
  settings: RuntimeSettings;
  /** The deck's workflow names: their runs hold a thread claim, an agent's its session's. */
  workflows: ReadonlySet<string>;
  taps: readonly EventTap[];
  /**
   * How a workflow run's thread says the run stands, read from its checkpoint: the question it
   * still waits at (`run.interrupted`), its end (`run.completed`), or nothing to say.
   */
  endOfThread?: (run: RunSummary) => Promise<EventDraft | undefined>;
}

/** Sweep once per lease until the returned function is called (it awaits a sweep in flight). */
export function startStaleSweep(deps: SweepDeps): () => Promise<void> {
  const { everyMs, leaseMs } = heartbeatTiming(
    deps.settings.staleRunAfterSeconds,
    deps.settings.heartbeatSeconds,
  );
  let inFlight: Promise<unknown> | null = null;
  const failures = new RepeatedFailures('closing the runs of gone processes');
  const periodMs = leaseMs ?? everyMs * LEASE_HEARTBEATS;
  // After an outage every claim looks stale (nobody could renew): live processes get one
  // period from the store's return to renew theirs before a sweep may close their runs.
  let outage = false;
  let closeAfter = 0;
  const timer = setInterval(() => {
    if (inFlight || Date.now() < closeAfter) return;
    const sweep = outage
      ? deps.store.listRuns({ limit: 1 }).then(() => {
          outage = false;
          closeAfter = Date.now() + periodMs;
        })
      : sweepStaleRuns(deps);
    inFlight = sweep
      .then(
        () => failures.succeeded(),
        (error: unknown) => {
          outage ||= isBackendOutage(error);
          failures.failed(error);
        },
      )
      .finally(() => {
        inFlight = null;
      });
  }, periodMs);
  timer.unref();
  return async () => {
    clearInterval(timer);
    await inFlight;
  };
}

/** Close every running run whose claim is stale; returns their ids. */
export async function sweepStaleRuns(deps: SweepDeps): Promise<string[]> {
  const { store, settings } = deps;
  const staleAfterMs = settings.staleRunAfterSeconds * 1000;
  const closed: string[] = [];
  for (const run of await store.listRuns({ status: 'running', limit: SWEEP_LIMIT })) {
    const key = claimKeyOf(run, deps.workflows);
    if (!key) continue;
    const holder = await store.claimHolder(key);
    if (!holder || holder.runId !== run.runId || !isStale(holder, staleAfterMs, Date.now())) {
      continue;
    }
    // A background run belongs to the queue: a worker takes it again (queued-runs.ts).
    if (isRunQueue(store) && (await store.queueEntry(run.runId))) continue;
    const sweeper = `stale-sweep-${randomUUID()}`;
    // Takes the stale claim over, as a new turn would (runtime/claims.ts).
    const taken = await store.claim({ key, runId: sweeper, staleAfterMs });
    if (!taken.acquired || taken.tookOverFrom?.runId !== run.runId) {
      if (taken.acquired) await store.release(key, sweeper);
      continue; // renewed, or taken, meanwhile
    }
    let reopened = false;
    try {
      const end = await deps.endOfThread?.(run);
      if (end) {
        await new RunRecorder(store, identityOf(run), deps.taps).record(end);
        reopened = end.kind === 'run.interrupted';
        const lock = await store.claimHolder(resumeLockKey(run.runId));
        if (lock) await store.release(resumeLockKey(run.runId), lock.runId);
        continue;
      }
      // Closed while the sweeper holds the claim: a stalled process that renews now finds it
      // taken and stops (heartbeat.ts), and never goes on past the sweep's run.failed.
      await closeTakenOver(
        store,
        taken.tookOverFrom,
        key,
        staleAfterMs,
        'a stale sweep',
        deps.taps,
      );
    } finally {
      await store.release(key, sweeper);
      // Held again by the waiting run, as a run that pauses keeps it (run-lease.ts).
      if (reopened) await store.claim({ key, runId: run.runId, staleAfterMs });
    }
    closed.push(run.runId);
  }
  return closed;
}

function claimKeyOf(run: RunSummary, workflows: ReadonlySet<string>): string | null {
  if (workflows.has(run.origin)) return threadClaimKey(run.origin, run.sessionId ?? run.runId);
  return run.sessionId === null ? null : sessionClaimKey(run.sessionId);
}
