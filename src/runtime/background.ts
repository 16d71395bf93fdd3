/**
 * The background work of an open deck, started by `Runtime.startBackground()` (the deck's
 * `open()`) and stopped by `Runtime.close()`. Each task is listed, with its cadence, in
 * docs/architecture.md ("What runs in the background"):
 * - `ResumeWatch` (control/resume-watch.ts, every 1 s): plays resumes recorded by processes
 *   that play no runs;
 * - the stale sweep (stale-sweep.ts, once per lease): closes the runs of gone processes;
 * - with `wakeTimers`: `TimerWaker` (timer-waker.ts), which wakes sleeping threads at their
 *   time through `tickDue` (timers.ts), and `ScheduleRunner` (schedules.ts), which fires the
 *   schedules;
 * - with `retentionDays`: `RetentionSweep` (retention-sweep.ts, every minute), which removes
 *   the runs past their retention;
 * - on a store with a run queue, with `queueConcurrency` over 0: `QueueWorker`
 *   (queue-worker.ts), which plays background runs.
 * The per-run work (heartbeats, the control poll of a playing run) belongs to the run and
 * ends with it (run-lease.ts, control/watch.ts).
 * Tested through the deck: src/deck/lifecycle.test.ts (open and close),
 * src/deck/stale-claims.test.ts, src/deck/wake-timers.test.ts, src/deck/schedules.test.ts.
 */

import { DataBlock } from '../core/blocks.js';
import { log } from '../core/log.js';
import { isRunQueue } from '../core/queue.js';
import type { ConversationSession } from '../core/sessions.js';
import type { ControlParts } from './control/requests.js';
import { ResumeWatch } from './control/resume-watch.js';
import { heartbeatTiming } from './heartbeat.js';
import { QueueWorker } from './queue-worker.js';
import { playQueuedRun } from './queued-runs.js';
import type { EventTap } from './recorder.js';
import type { RetentionDeps } from './retention.js';
import { RetentionSweep } from './retention-sweep.js';
import { type ScheduleParts, ScheduleRunner } from './schedules.js';
import type { RuntimeSettings } from './settings.js';
import { startStaleSweep } from './stale-sweep.js';
import { TimerWaker } from './timer-waker.js';
import { type TimerParts, tickDue } from './timers.js';
import { reopenedPause } from './workflow-run.js';

export interface BackgroundOptions {
  /** Wake sleeping threads at their time and fire the schedules. @default false */
  wakeTimers?: boolean;
}

export interface BackgroundDeps {
  settings: RuntimeSettings;
  control: ControlParts;
  timers: TimerParts;
  schedules: ScheduleParts;
  retention: RetentionDeps;
  /** Taps of the recorder, for the runs the sweep closes. */
  taps: readonly EventTap[];
  /** Stop a run playing here without recording more: another process took it over. */
  abandon: (runId: string, reason: string) => boolean;
  /** The sessions agent turns play on (a background turn played again cleans its own up). */
  sessionFor: (sessionId: string) => ConversationSession;
}

/** A wake-up another process (or tick) took first: the thread's claims refused this one. */
const RACED = /being resumed by another caller|is not due at|another tick woke it/;

export class BackgroundWork {
  readonly #resumeWatch: ResumeWatch;
  readonly #timers: TimerWaker | null;
  readonly #scheduler: ScheduleRunner | null;
  readonly #retention: RetentionSweep | null;
  readonly #deps: BackgroundDeps;
  #stopSweep: (() => Promise<void>) | null = null;
  /** This process's queue worker, when it plays background runs. */
  readonly queue: QueueWorker | null;

  constructor(deps: BackgroundDeps, options: BackgroundOptions) {
    this.#deps = deps;
    this.#resumeWatch = new ResumeWatch(deps.control);
    const wake = options.wakeTimers ?? false;
    this.#timers = wake
      ? new TimerWaker({
          store: deps.timers.store,
          nextWakeup: () => deps.timers.engine.nextWakeup(),
          tick: (now) => this.#tick(now),
        })
      : null;
    this.#scheduler =
      wake && deps.schedules.schedules.size > 0 ? new ScheduleRunner(deps.schedules) : null;
    const { retentionDays } = deps.settings;
    this.#retention =
      retentionDays === null ? null : new RetentionSweep(deps.retention, { retentionDays });
    this.queue = queueWorkerOf(deps);
  }

  /** A recorder tap: a run of this process going to sleep arms its wake-up at once. */
  readonly tap: EventTap = (event) => this.#timers?.tap(event);

  start(): void {
    this.#resumeWatch.start();
    this.#stopSweep = startStaleSweep({
      store: this.#deps.control.store,
      settings: this.#deps.settings,
      workflows: new Set(this.#deps.control.workflows.keys()),
      taps: this.#deps.taps,
      // What the thread's checkpoint says a gone process's workflow run came to.
      endOfThread: async (run) => {
        const { engine, workflows } = this.#deps.timers;
        const workflow = workflows.get(run.origin);
        if (!workflow) return undefined;
        const threadId = run.sessionId ?? run.runId;
        const open = await engine.openPauses(workflow, threadId);
        const waiting = reopenedPause(open, { answer: null }, threadId);
        if (waiting) return waiting;
        const state = await engine.endedState?.(workflow, threadId, run.startedAt);
        return state
          ? { kind: 'run.completed', payload: { output: [new DataBlock(state)], usage: null } }
          : undefined;
      },
    });
    this.#timers?.start();
    this.#scheduler?.start();
    this.#retention?.start();
    this.queue?.start().catch((error: unknown) => log.error(`[agentdeck] ${error}`));
  }

  /**
   * Take no new work (a draining process): the resume watch, the timers, the schedules and
   * the queue worker start nothing more; the runs in flight go on (the queue's holds renewed).
   */
  async stopTaking(): Promise<void> {
    this.#resumeWatch.halt();
    await Promise.all([this.#timers?.stop(), this.#scheduler?.stop(), this.queue?.stopTaking()]);
  }

  /** Start nothing new: timers, schedules and the sweep stop; the resume watch plays no more. */
  async halt(): Promise<void> {
    this.#resumeWatch.halt();
    await Promise.all([
      this.#timers?.stop(),
      this.#scheduler?.stop(),
      this.#stopSweep?.(),
      this.#retention?.stop(),
      this.queue?.halt(),
    ]);
  }

  /** After `halt()`: wait for the continuations the resume watch started. */
  async stop(): Promise<void> {
    await Promise.all([this.#resumeWatch.stop(), this.queue?.stop()]);
  }

  async #tick(now: Date): Promise<{ woken: number; failed: number }> {
    const outcomes = await tickDue(this.#deps.timers, now);
    const failed = outcomes.filter((outcome) => outcome.error !== null);
    for (const { workflow, threadId, error } of failed) {
      // Another process (or tick) got there first: nothing is wrong, nothing to say.
      if (RACED.test(error ?? '')) continue;
      log.error(`[agentdeck] could not wake ${workflow} thread '${threadId}': ${error}`);
    }
    return { woken: outcomes.length - failed.length, failed: failed.length };
  }
}

/** The queue worker of a deck whose store has a run queue, unless turned off (concurrency 0). */
function queueWorkerOf(deps: BackgroundDeps): QueueWorker | null {
  const { store, runtime, agents, workflows } = deps.control;
  const { queueConcurrency, queuePollMs, staleRunAfterSeconds, heartbeatSeconds } = deps.settings;
  if (!isRunQueue(store) || queueConcurrency === 0) return null;
  const timing = heartbeatTiming(staleRunAfterSeconds, heartbeatSeconds);
  const parts = {
    ...{ store, runtime, agents, workflows, engine: deps.timers.engine },
    sessionFor: deps.sessionFor,
  };
  return new QueueWorker({
    store,
    origins: [...agents.keys(), ...workflows.keys()],
    concurrency: queueConcurrency,
    leaseMs: timing.leaseMs ?? staleRunAfterSeconds * 1000,
    pollMs: queuePollMs,
    play: (entry) => playQueuedRun(parts, entry),
    abandon: deps.abandon,
  });
}
