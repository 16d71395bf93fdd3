/**
 * How a live run learns of the pause and cancel requests recorded for it. Requests live in
 * the store (SPEC.md: they may come from any process sharing it), so each process polls the
 * requests of the runs it plays, every `SERVICE_RUNTIME_CONTROL_POLL_MS`; a request made in
 * this process is looked at at once. A cancel is acted on when seen (the run's signal
 * aborts); a pause is only noted, and the run stops at its next safe point.
 *
 * Tested in src/runtime/runtime.test.ts and src/runtime/workflow-run.test.ts (a request made in
 * this process), end to end in src/deck/run-control-agents.test.ts, across processes in
 * test/run-control-processes.test.ts.
 */
import { errorMessage } from '../../core/errors.js';
import { log } from '../../core/log.js';
import type { ControlRequest, ControlRequests } from '../../core/store.js';

export class RunControl {
  readonly #before: ReadonlySet<string>;
  readonly #seen = new Set<string>();
  /** This segment's requests, oldest first, each once it is recorded in the log. */
  readonly #known: ControlRequest[] = [];
  #pause: ControlRequest | null = null;
  #cancel: ControlRequest | null = null;
  #applying: Promise<void> = Promise.resolve();

  /**
   * @param onCancel called once, with the first cancel request seen.
   * @param handled requests addressed before this segment of the run started (the pause it
   *   continues from, the resume that continued it): they are not acted on again.
   * @param onRequest records a request the run sees for the first time (`control.requested`
   *   in its log: the process playing a run is the one that writes its log). A request is
   *   acted on only once that is done, so the log shows a request before what it caused.
   */
  readonly #onCancel: (request: ControlRequest) => void;
  readonly #onRequest: (request: ControlRequest) => Promise<void>;

  constructor(
    onCancel: (request: ControlRequest) => void,
    handled: Iterable<string> = [],
    onRequest: (request: ControlRequest) => Promise<void> = async () => {},
  ) {
    this.#before = new Set(handled);
    this.#onCancel = onCancel;
    this.#onRequest = onRequest;
  }

  /**
   * Take in the run's requests (oldest first). A cancel wins over everything; a pause
   * stands unless a resume was recorded after it (a pause not yet observed is withdrawn by
   * the resume that follows it). Calls are taken one at a time, in order.
   */
  apply(requests: readonly ControlRequest[]): Promise<void> {
    this.#applying = this.#applying.then(() => this.#apply(requests));
    return this.#applying;
  }

  async #apply(requests: readonly ControlRequest[]): Promise<void> {
    for (const request of requests) {
      if (this.#before.has(request.requestId) || this.#seen.has(request.requestId)) continue;
      this.#seen.add(request.requestId);
      await this.#onRequest(request);
      this.#known.push(request);
      this.#decide();
    }
  }

  #decide(): void {
    let pause: ControlRequest | null = null;
    for (const request of this.#known) {
      if (request.verb === 'cancel') {
        if (!this.#cancel) {
          this.#cancel = request;
          this.#onCancel(request);
        }
        return;
      }
      pause = request.verb === 'pause' ? request : null;
    }
    this.#pause = pause;
  }

  /** The pause request the run should stop for at its next safe point, or `null`. */
  get pauseRequest(): ControlRequest | null {
    return this.#cancel ? null : this.#pause;
  }

  /** The cancel request that stopped the run, or `null`. */
  get cancelRequest(): ControlRequest | null {
    return this.#cancel;
  }
}

/**
 * The requests handled before a segment that continues `resumeRequestId` (it included): the
 * pauses and resumes up to it. A cancel is never handled by a resume: one recorded before it
 * that did not end the run (it lost the race for the run's lock) stops the continuation.
 */
export function handledUpTo(
  requests: readonly ControlRequest[],
  resumeRequestId: string | null,
): string[] {
  const end = resumeRequestId
    ? requests.findIndex((r) => r.requestId === resumeRequestId)
    : requests.length - 1;
  return requests
    .slice(0, (end < 0 ? requests.length - 1 : end) + 1)
    .filter((r) => r.verb !== 'cancel')
    .map((r) => r.requestId);
}

export interface WatchedRun {
  readonly runId: string;
  readonly control: RunControl;
}

/** Polls the store for the requests of every watched run, one poll at a time. */
export class ControlWatch {
  readonly #runs = new Set<WatchedRun>();
  #timer: NodeJS.Timeout | null = null;
  #polling: Promise<void> | null = null;

  readonly #store: ControlRequests;
  readonly #intervalMs: number;
  constructor(store: ControlRequests, intervalMs: number) {
    this.#store = store;
    this.#intervalMs = intervalMs;
  }

  watch(run: WatchedRun): void {
    this.#runs.add(run);
    if (!this.#timer) {
      this.#timer = setInterval(() => void this.poll(), this.#intervalMs);
      this.#timer.unref();
    }
  }

  unwatch(run: WatchedRun): void {
    this.#runs.delete(run);
    if (this.#runs.size === 0 && this.#timer) {
      clearInterval(this.#timer);
      this.#timer = null;
    }
  }

  /** Look at one run's requests now (a request was just recorded in this process). */
  async check(runId: string): Promise<void> {
    for (const run of this.#runs) if (run.runId === runId) await this.#read(run);
  }

  /** One pass over every watched run; a pass still running is not doubled. */
  poll(): Promise<void> {
    this.#polling ??= Promise.all([...this.#runs].map((run) => this.#read(run))).then(() => {
      this.#polling = null;
    });
    return this.#polling;
  }

  async #read(run: WatchedRun): Promise<void> {
    try {
      await run.control.apply(await this.#store.readControl(run.runId));
    } catch (error) {
      if (!this.#runs.has(run)) return; // the run ended meanwhile (the store may be closing)
      log.error(
        `[agentdeck] could not read control requests of run '${run.runId}': ${errorMessage(error)}`,
      );
    }
  }
}
