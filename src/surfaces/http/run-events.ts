/**
 * A run's canonical events as SSE frames, each with `id: <seq>`, from a position on: the
 * events already in the log, then (following a live run) the new ones as they are stored,
 * until the terminal event. It reads the shared store, so it follows a run whatever
 * process plays it, and a client that reconnects with `Last-Event-ID` misses nothing:
 * the position is a `seq`, and the store's seqs are gap-free.
 *
 * How it learns of new events: a store that announces appends (`AppendNotifier`: memory and
 * SQLite in process, SQLite's other connections by its change counter, Postgres through
 * LISTEN/NOTIFY) wakes it as each commit lands, and it then reads after its last seq; between
 * notices it reads nothing (a store that may have lost notices wakes every watcher), so a
 * tail of a run that waits for an answer costs no CPU and no query, only a keep-alive frame
 * now and then. A store without notices (one of your own, or one that cannot listen now) is
 * polled, 10 ms at first, backing off to 250 ms. While the store is down
 * (`StoreUnavailableError`) the tail keeps its client and reads again each second until the
 * store is back.
 */
import { isBackendOutage } from '../../core/errors.js';
import { isTerminal, toWire } from '../../core/events.js';
import { TERMINAL_STATUSES } from '../../core/status.js';
import { isAppendNotifier } from '../../core/store.js';
import type { EventLog } from './served-deck.js';
import { formatFrame, KEEPALIVE } from './sse.js';

export interface TailOptions {
  /** Only events after this seq; -1 (or omitted) for all. */
  afterSeq: number;
  /** Keep reading until the terminal event (false: what the log holds now, then end). */
  follow: boolean;
  signal: AbortSignal;
  /** First and longest wait between reads of a live run. @default 10 ms, 250 ms */
  pollMs?: { min: number; max: number };
  /** Idle time after which a comment frame is sent. @default 15 s */
  keepAliveMs?: number;
  /** While the store is down: the wait before reading again. @default 1000 ms */
  outageRetryMs?: number;
}

export async function* runEventFrames(
  log: EventLog,
  runId: string,
  options: TailOptions,
): AsyncGenerator<string, void, undefined> {
  const { min, max } = options.pollMs ?? { min: 10, max: 250 };
  const keepAliveMs = options.keepAliveMs ?? 15_000;
  const outageRetryMs = options.outageRetryMs ?? 1_000;
  const notices = options.follow ? await watch(log, runId) : null;
  let after = options.afterSeq;
  let wait = min;
  let idleSince = Date.now();
  try {
    while (!options.signal.aborted) {
      const events = await readThroughOutage(log, runId, after);
      if (events === null) {
        // The store is down: keep the client, say we are alive, and read again after a pause.
        if (Date.now() - idleSince >= keepAliveMs) {
          yield KEEPALIVE;
          idleSince = Date.now();
        }
        await sleep(outageRetryMs, options.signal);
        continue;
      }
      for (const event of events) {
        yield formatFrame({ id: event.seq, data: toWire(event) });
        after = event.seq;
        if (isTerminal(event)) return;
      }
      if (!options.follow) return;
      if (events.length > 0) {
        wait = min;
        idleSince = Date.now();
      } else {
        // Nothing new: a client already past the terminal event (a reconnect with its seq) ends here.
        const run = await log.getRun(runId).catch((error: unknown) => {
          if (isBackendOutage(error)) return undefined;
          throw error;
        });
        if (run === undefined) continue; // the store went down between two reads
        if (!run) return;
        if (TERMINAL_STATUSES.includes(run.status)) {
          // Ended between the read and now: read its last events (the terminal one ends the loop).
          if (run.lastSeq > after) continue;
          return;
        }
        wait = Math.min(max, wait * 2);
      }
      if (notices) {
        // Nothing to read until a notice: only keep-alives meanwhile.
        while (!(await notices.next(keepAliveMs - (Date.now() - idleSince), options.signal))) {
          if (options.signal.aborted) return;
          yield KEEPALIVE;
          idleSince = Date.now();
        }
        continue;
      }
      if (Date.now() - idleSince >= keepAliveMs) {
        yield KEEPALIVE;
        idleSince = Date.now();
      }
      await sleep(wait, options.signal);
    }
  } finally {
    notices?.stop();
  }
}

/**
 * The events after `after`, or `null` while the store is down (a Postgres restart): a tail
 * outlives an outage and catches up by reading once the store is back, so it misses nothing.
 */
async function readThroughOutage(log: EventLog, runId: string, after: number) {
  try {
    return await log.read(runId, { afterSeq: after });
  } catch (error) {
    if (isBackendOutage(error)) return null;
    throw error;
  }
}

interface Notices {
  /**
   * Resolves `true` at the next notice (at once if one came since the last call), `false`
   * after `ms` or on abort without one.
   */
  next(ms: number, signal: AbortSignal): Promise<boolean>;
  stop(): void;
}

/** Watch `runId` when the store announces appends; `null` (poll) when it cannot. */
async function watch(log: EventLog, runId: string): Promise<Notices | null> {
  if (!isAppendNotifier(log)) return null;
  let noticed = false;
  let wake: (() => void) | null = null;
  let stop: () => void;
  try {
    stop = await log.watchRun(runId, () => {
      noticed = true;
      wake?.();
    });
  } catch {
    return null; // it cannot listen now (the store said why in its error): poll instead
  }
  return {
    async next(ms, signal) {
      if (!noticed && !signal.aborted) {
        const quit = new AbortController();
        const stopWaiting = () => quit.abort();
        wake = stopWaiting;
        signal.addEventListener('abort', stopWaiting, { once: true });
        await sleep(Math.max(0, ms), quit.signal);
        signal.removeEventListener('abort', stopWaiting);
        wake = null;
      }
      const seen = noticed;
      noticed = false;
      return seen;
    },
    stop,
  };
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', done, { once: true });
    function done() {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    }
  });
}
