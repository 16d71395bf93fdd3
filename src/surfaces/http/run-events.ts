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
 *
 * A notice wakes every tail of the run at once. So that 2,000 of them do not make 2,000 reads
 * and 2,000 serializations of each event, the tails of one run share a read in flight from the
 * same position, if it began after the notice that woke them (it then holds what the notice
 * announced), and each event's frame is written once.
 */
import { isBackendOutage } from '../../core/errors.js';
import { type Event, isTerminal, toWire } from '../../core/events.js';
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
  /**
   * The frames of an event, for a surface of another protocol (`''`: none). @default the
   * canonical event as one frame with `id: <seq>`
   */
  render?: (event: Event) => string;
  /** An event after which the tail ends, besides the terminal one (a run that waits). @default none */
  until?: (event: Event) => boolean;
}

export async function* runEventFrames(
  log: EventLog,
  runId: string,
  options: TailOptions,
): AsyncGenerator<string, void, undefined> {
  const render = options.render ?? frameOf;
  for await (const event of runEventTail(log, runId, options)) {
    const frame = event === null ? KEEPALIVE : render(event);
    if (frame !== '') yield frame;
  }
}

/**
 * The same tail as {@link runEventFrames}, as events: `null` where a keep-alive is due (a
 * surface with frames of its own, A2A's, writes its own keep-alive or nothing).
 */
export async function* runEventTail(
  log: EventLog,
  runId: string,
  options: TailOptions,
): AsyncGenerator<Event | null, void, undefined> {
  const { min, max } = options.pollMs ?? { min: 10, max: 250 };
  const keepAliveMs = options.keepAliveMs ?? 15_000;
  const outageRetryMs = options.outageRetryMs ?? 1_000;
  const until = options.until ?? (() => false);
  const notices = options.follow ? await watch(log, runId) : null;
  let after = options.afterSeq;
  let wait = min;
  let idleSince = Date.now();
  let fresh = false; // the next read must begin now, not join one in flight
  try {
    while (!options.signal.aborted) {
      const since = notices && !fresh ? notices.wokenAt : tick();
      fresh = false;
      const events = await readThroughOutage(log, runId, after, since);
      if (events === null) {
        // The store is down: keep the client, say we are alive, and read again after a pause.
        if (Date.now() - idleSince >= keepAliveMs) {
          yield null;
          idleSince = Date.now();
        }
        await sleep(outageRetryMs, options.signal);
        continue;
      }
      for (const event of events) {
        yield event;
        after = event.seq;
        if (isTerminal(event) || until(event)) return;
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
          if (run.lastSeq > after) {
            fresh = true;
            continue;
          }
          return;
        }
        wait = Math.min(max, wait * 2);
      }
      if (notices) {
        // Nothing to read until a notice: only keep-alives meanwhile.
        while (!(await notices.next(keepAliveMs - (Date.now() - idleSince), options.signal))) {
          if (options.signal.aborted) return;
          yield null;
          idleSince = Date.now();
        }
        continue;
      }
      if (Date.now() - idleSince >= keepAliveMs) {
        yield null;
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
 * A read of the same run and position begun after `since` (a {@link tick}) is shared.
 */
async function readThroughOutage(log: EventLog, runId: string, after: number, since: number) {
  try {
    return await sharedRead(log, runId, after, since);
  } catch (error) {
    if (isBackendOutage(error)) return null;
    throw error;
  }
}

/** A clock of wake-ups and reads: what began after what. */
let clock = 0;
function tick(): number {
  clock += 1;
  return clock;
}

/** Reads in flight, by store, run and position, with the tick each began at. */
const readsInFlight = new WeakMap<
  EventLog,
  Map<string, { began: number; events: Promise<Event[]> }>
>();

function sharedRead(log: EventLog, runId: string, after: number, since: number) {
  let reads = readsInFlight.get(log);
  if (!reads) {
    reads = new Map();
    readsInFlight.set(log, reads);
  }
  const key = `${after} ${runId}`;
  const current = reads.get(key);
  if (current && current.began > since) return current.events;
  const read = { began: tick(), events: log.read(runId, { afterSeq: after }) };
  reads.set(key, read);
  const done = () => {
    if (reads.get(key) === read) reads.delete(key);
  };
  read.events.then(done, done);
  return read.events;
}

/** Each stored event's frame, written once for all the tails that send it. */
const frames = new WeakMap<Event, string>();
function frameOf(event: Event): string {
  let frame = frames.get(event);
  if (frame === undefined) {
    frame = formatFrame({ id: event.seq, data: toWire(event) });
    frames.set(event, frame);
  }
  return frame;
}

interface Notices {
  /** The tick of the latest notice (of the start of watching, before the first). */
  readonly wokenAt: number;
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
  let wokenAt = 0;
  try {
    stop = await log.watchRun(runId, () => {
      wokenAt = tick();
      noticed = true;
      wake?.();
    });
  } catch {
    return null; // it cannot listen now (the store said why in its error): poll instead
  }
  wokenAt = tick(); // a read begun before watching may miss what was appended since
  return {
    get wokenAt() {
      return wokenAt;
    },
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
