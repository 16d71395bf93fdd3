/**
 * Workflow timers, as the checkpointers see them. `sleepUntil(when)` pauses a durable thread
 * by raising a LangGraph interrupt whose value is a {@link SleepRequest}; the checkpointer
 * stores that interrupt with the thread's pending writes like any other. A checkpointer that
 * can answer "which threads are due?" with an index (our SQLite saver) implements
 * {@link WakeupIndex}; for the others the engine scans their threads.
 */

/**
 * Sleeping until a time is recorded as `run.paused` with this reason prefix and the wake
 * time after it. The event schema has no `wakeAt` field yet (a change for its next version);
 * until then the prefix is written and read only through these two functions.
 */
const SLEEPING_REASON = 'sleeping until ';

/** The `run.paused` reason of a run sleeping until `wakeAt` (ISO 8601 UTC). */
export function sleepingReason(wakeAt: string): string {
  return `${SLEEPING_REASON}${wakeAt}`;
}

/** The wake time a `run.paused` reason carries, or `null` when the run paused for a request. */
export function wakeAtOfReason(reason: string | null | undefined): string | null {
  return reason?.startsWith(SLEEPING_REASON) ? reason.slice(SLEEPING_REASON.length) : null;
}

/** The key of the interrupt value that marks a timer (not a question for a person). */
export const SLEEP_UNTIL_KEY = 'agentdeck:sleepUntil';

/** The interrupt value `sleepUntil()` raises. */
export interface SleepRequest {
  /** When the thread may resume: an ISO 8601 UTC timestamp (`toISOString()` form). */
  [SLEEP_UNTIL_KEY]: string;
}

/**
 * What a caller is shown for a thread sleeping on a timer (the interrupt object's `payload`
 * over HTTP, `InterruptResult.payload` in code): release 3.0's form. The interrupt value in
 * the checkpoint ({@link SleepRequest}) stays internal.
 */
export interface TimerPayload {
  type: 'agentdeck.timer';
  /** When the thread wakes: ISO 8601 UTC. */
  wake_at: string;
}

export function timerPayload(wakeAt: string): TimerPayload {
  return { type: 'agentdeck.timer', wake_at: wakeAt };
}

/** The wake-up time an interrupt value asks for, or `null` when it is not a timer. */
export function wakeTimeOf(interruptValue: unknown): string | null {
  if (typeof interruptValue !== 'object' || interruptValue === null) return null;
  const when = (interruptValue as Record<string, unknown>)[SLEEP_UNTIL_KEY];
  return typeof when === 'string' ? when : null;
}

/** A paused thread whose wake-up time has come. */
export interface DueWakeup {
  /** The thread id as the checkpointer stores it. */
  threadId: string;
  /** When it asked to wake (ISO 8601 UTC). */
  wakeAt: string;
}

export interface DueWakeupsOptions {
  /** Only threads whose stored id starts with this prefix. */
  threadIdPrefix?: string;
}

/** A checkpointer that indexes timers, so finding due threads does not read every thread. */
export interface WakeupIndex {
  /** Threads whose latest checkpoint waits on a timer due at or before `now`, earliest first. */
  dueWakeups(now: Date, options?: DueWakeupsOptions): Promise<DueWakeup[]>;
  /** The earliest wake-up time of any thread waiting on a timer (ISO 8601 UTC), or `null`. */
  nextWakeup(options?: DueWakeupsOptions): Promise<string | null>;
}

export function isWakeupIndex(value: unknown): value is WakeupIndex {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as Partial<WakeupIndex>).dueWakeups === 'function' &&
    typeof (value as Partial<WakeupIndex>).nextWakeup === 'function'
  );
}
