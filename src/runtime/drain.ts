/**
 * Draining a process before it exits (#42, `serve()` on SIGTERM): the runs this process plays
 * get until a deadline to end by themselves; each one still live then is asked to pause at
 * its next safe point (a pause request, control/requests.ts: an agent turn between streamed
 * items or before a tool or model call, a workflow at its next node boundary), and each that
 * paused gets a resume request, which any other open deck's `ResumeWatch` plays (after its
 * 1.5 s grace: long enough for this deck to close first). A lone process continues them at
 * its next start the same way. A run that does not reach a safe point within the pause grace
 * is left to the deck's close (`run.cancelled`). Runs at rest (waiting for an answer,
 * sleeping) are not live and need nothing. Tested in src/deck/drain.test.ts and across
 * processes in test/drain-processes.int.test.ts.
 */
import { errorMessage } from '../core/errors.js';
import { log } from '../core/log.js';
import type { EventStore } from '../core/store.js';

/** How long a run asked to pause gets to reach its safe point, at most. */
export const DRAIN_PAUSE_GRACE_MS = 5_000;
/** How often the drain looks at the runs still live. */
const DRAIN_POLL_MS = 50;

export interface DrainTarget {
  /** The runs this process plays now. */
  liveRunIds(): string[];
  requestControl(runId: string, verb: 'pause' | 'resume', reason: string | null): Promise<unknown>;
}

export interface DrainReport {
  /** Runs that ended (or stopped) by themselves before the deadline. */
  ended: string[];
  /** Runs paused at a safe point and asked to resume elsewhere. */
  handedOver: string[];
  /** Runs still live after the pause grace (the deck's close cancels them). */
  left: string[];
}

export const DRAIN_REASON = 'its process is draining before it exits; it goes on in another';

/** Let the live runs end until `deadlineMs` (an epoch time), then hand what remains over. */
export async function drainLiveRuns(
  target: DrainTarget,
  store: Pick<EventStore, 'getRun'>,
  deadlineMs: number,
  pauseGraceMs = DRAIN_PAUSE_GRACE_MS,
): Promise<DrainReport> {
  const seen = new Set(target.liveRunIds());
  await until(() => target.liveRunIds().length === 0, deadlineMs, seen, target);
  const remaining = target.liveRunIds();
  for (const runId of remaining) {
    await target.requestControl(runId, 'pause', DRAIN_REASON).catch((error: unknown) => {
      log.error(`[agentdeck] draining: could not pause run '${runId}': ${errorMessage(error)}`);
    });
  }
  const pausing = new Set(remaining);
  await until(
    () => !target.liveRunIds().some((id) => pausing.has(id)),
    Date.now() + pauseGraceMs,
    seen,
    target,
  );
  const handedOver: string[] = [];
  const left = target.liveRunIds().filter((id) => pausing.has(id));
  for (const runId of remaining) {
    if (left.includes(runId)) continue;
    try {
      if ((await store.getRun(runId))?.status !== 'paused') continue;
      await target.requestControl(runId, 'resume', DRAIN_REASON);
      handedOver.push(runId);
    } catch (error) {
      log.error(`[agentdeck] draining: could not hand run '${runId}' over: ${errorMessage(error)}`);
    }
  }
  const ended = [...seen].filter((id) => !handedOver.includes(id) && !left.includes(id));
  return { ended, handedOver, left };
}

async function until(
  done: () => boolean,
  deadlineMs: number,
  seen: Set<string>,
  target: DrainTarget,
): Promise<void> {
  for (;;) {
    for (const id of target.liveRunIds()) seen.add(id);
    if (done() || Date.now() >= deadlineMs) return;
    await new Promise((resolve) =>
      setTimeout(resolve, Math.min(DRAIN_POLL_MS, deadlineMs - Date.now())),
    );
  }
}
