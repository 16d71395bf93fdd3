/**
 * Playing a run for a tool call, within the wait the endpoint allows (`waitSeconds`). The run
 * is read to its end by a pump that does not depend on the call: when the wait is over the call
 * answers `{status: "running"}`, and when the client goes away it simply stops being told;
 * either way the pump keeps reading, so the run plays on to its end, recorded as every run is
 * (stopping a run's reader would cancel it). A client that sent a progress token is told of
 * each event worth telling (codec.ts), numbered by the event's `seq`, which only grows.
 */
import type { Event, EventOf } from '../../core/events.js';
import { isAppendNotifier } from '../../core/store.js';
import type { ErrorLog } from '../http/errors.js';
import { type EndEvent, isEnd } from '../http/run-results.js';
import type { EventLog } from '../http/served-deck.js';
import { progressMessage } from './codec.js';

/** Tell the client `message` as progress `progress`; rejects when the client is gone. */
export type ProgressSink = (progress: number, message: string) => Promise<void>;

export interface CallLimits {
  /** The longest the call waits for the run, in ms. */
  waitMs: number;
  /** Where progress goes; `null`: the client did not ask for it. */
  progress: ProgressSink | null;
  log: ErrorLog;
}

/** The call's wait ended before the run did. */
export const STILL_RUNNING = Symbol('still running');

export interface Followed {
  /** The run's id, from its first event (`null`: it yielded none). */
  runId: string | null;
  /** The event that ended its segment (`null`: none), or {@link STILL_RUNNING}. */
  outcome: EndEvent | null | typeof STILL_RUNNING;
}

/**
 * Start reading `events` (a run the deck just began) and wait for its end at most
 * `limits.waitMs`. What the first event raises (a busy session, a bad input, a backend that
 * is down) is the caller's to report: nothing was recorded.
 */
export async function followRun(
  events: AsyncGenerator<Event, void, undefined>,
  limits: CallLimits,
): Promise<Followed> {
  const first = await events.next();
  if (first.done) return { runId: null, outcome: null };
  const runId = first.value.runId;
  let telling = limits.progress !== null;
  const tell = (event: Event) => {
    const message = telling ? progressMessage(event) : null;
    if (message === null || !limits.progress) return;
    limits.progress(event.seq + 1, message).catch(() => {
      telling = false; // the client is gone; the run is not its to stop
    });
  };
  const pump = (async () => {
    let end: EndEvent | null = null;
    for (let step: IteratorResult<Event, void> = first; !step.done; step = await events.next()) {
      tell(step.value);
      if (isEnd(step.value)) end = step.value;
    }
    return end;
  })();
  const outcome = await within(pump, limits.waitMs);
  telling = false;
  if (outcome === STILL_RUNNING) {
    pump.catch((error: unknown) =>
      limits.log(
        `[agentdeck] run '${runId}', started by an MCP tool call that answered before it ended, failed: ${String(error)}`,
      ),
    );
  }
  return { runId, outcome };
}

/** `work`'s value, or {@link STILL_RUNNING} once `ms` have passed; `work` goes on either way. */
export async function within<T>(work: Promise<T>, ms: number): Promise<T | typeof STILL_RUNNING> {
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<typeof STILL_RUNNING>((done) => {
    timer = setTimeout(() => done(STILL_RUNNING), ms);
  });
  try {
    return await Promise.race([work, expired]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Tell `progress` of the events a run records after `afterSeq`, read from the log (an answer
 * plays the rest of a run inside `deck.answer`, which yields no events): woken by the store's
 * append notices where it has them, else every 250 ms. The returned `finish` tells what was
 * recorded since the last read, then stops (call it before answering, so the client hears
 * the end before the result). A read that fails (the store down) ends the telling, never the
 * call; a client that is gone is simply not told.
 */
export function tellFromLog(
  log: EventLog,
  runId: string,
  afterSeq: number,
  progress: ProgressSink,
): { finish(): Promise<void> } {
  let after = afterSeq;
  let stopped = false;
  let woken = false;
  let wake = () => {};
  const nudge = () => {
    woken = true;
    wake();
  };
  const unwatch = isAppendNotifier(log)
    ? log.watchRun(runId, nudge).catch(() => null)
    : Promise.resolve(null);
  const tell = async () => {
    for (const event of await log.read(runId, { afterSeq: after })) {
      after = event.seq;
      const message = progressMessage(event);
      if (message !== null) await progress(event.seq + 1, message).catch(() => {});
    }
  };
  const loop = (async () => {
    const watching = (await unwatch) !== null;
    while (!stopped) {
      woken = false;
      await tell();
      if (stopped || woken) continue;
      await new Promise<void>((done) => {
        wake = done;
        if (woken)
          done(); // a notice came while it read
        else if (!watching) setTimeout(done, 250);
      });
    }
  })().catch(() => {});
  return {
    async finish() {
      stopped = true;
      wake();
      await loop;
      void unwatch.then((stop) => stop?.());
      await tell().catch(() => {});
    },
  };
}

/** A run that failed because a backend was down: its `run.failed`, for the 503. */
export class OutageFailedRun extends Error {
  constructor(readonly failed: EventOf<'run.failed'>) {
    super(failed.payload.message);
  }
}
