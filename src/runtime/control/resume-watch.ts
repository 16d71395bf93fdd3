/**
 * Plays the resumes recorded by processes that cannot play a run themselves (the
 * `service runs signal` command). One of the background tasks of an open deck (background.ts).
 * Tested through the deck: src/deck/run-control-agents.test.ts, test/service-runs.test.ts.
 */
import { errorMessage } from '../../core/errors.js';
import { log } from '../../core/log.js';
import type { EventStore, RunCursor, RunSummary } from '../../core/store.js';
import { RepeatedFailures } from '../repeated-failures.js';
import { type ControlParts, playResume } from './requests.js';

/**
 * Whether a paused run stopped for a pause request (its `run.paused` follows
 * `control.observed`), not to sleep until a time (which only `tick()` or a due resume wakes).
 */
async function pausedByRequest(store: EventStore, runId: string): Promise<boolean> {
  const events = await store.read(runId);
  const paused = events.findLastIndex((e) => e.kind === 'run.paused');
  return paused > 0 && events[paused - 1]?.kind === 'control.observed';
}

/** How often an open deck looks for paused runs that another process asked to resume. */
const RESUME_SCAN_MS = 1_000;
/**
 * How old a resume request must be before a watching deck plays it: `resume()` records its
 * request and plays it at once, so a fresh request belongs to a caller that passes a context.
 */
const RESUME_GRACE_MS = 1_500;
/** Paused runs read per page of the scan. */
const SCAN_PAGE = 100;

/**
 * Plays the resumes recorded by processes that cannot play a run themselves (the
 * `service runs signal` command): a paused run of this deck's catalog, paused by a request,
 * whose latest request is a resume older than a moment is continued here, with no context
 * (as `tick()` does). Several decks sharing a store race for it under the resume lock; one
 * plays it. Continuations run in the background, so one long turn does not hold the scan.
 */
export class ResumeWatch {
  #timer: NodeJS.Timeout | null = null;
  #scanning: Promise<void> | null = null;
  readonly #playing = new Set<Promise<unknown>>();
  readonly #failures = new RepeatedFailures('looking for resume requests');
  /** Resume requests this deck cannot play, said once each in the log. */
  readonly #saidCannotPlay = new Set<string>();
  /**
   * The last seq of each paused run already looked at with nothing to play. A resume request
   * for a run at rest also appends `control.requested` to its log, so a run whose last seq has
   * not moved has no new request: with thousands of threads asleep, a scan reads one page of
   * runs instead of every run's requests.
   */
  readonly #quiet = new Map<string, number>();

  readonly #parts: ControlParts;
  constructor(parts: ControlParts) {
    this.#parts = parts;
  }

  start(): void {
    this.#timer = setInterval(() => void this.scan(), RESUME_SCAN_MS);
    this.#timer.unref();
  }

  /** Start no more scans or continuations. */
  halt(): void {
    if (this.#timer) clearInterval(this.#timer);
    this.#timer = null;
  }

  /** Halt, then wait for the scan and the continuations in flight. */
  async stop(): Promise<void> {
    this.halt();
    await this.#scanning;
    await Promise.allSettled([...this.#playing]);
  }

  /** One pass; a pass still running is not doubled. */
  scan(): Promise<void> {
    this.#scanning ??= this.#scan()
      .then(
        () => this.#failures.succeeded(),
        (error: unknown) => this.#failures.failed(error),
      )
      .finally(() => {
        this.#scanning = null;
      });
    return this.#scanning;
  }

  /** Say once in the log that a resume asked of a run is not this deck's to play. */
  #cannotPlay(run: RunSummary, requestId: string): void {
    if (this.#saidCannotPlay.has(requestId)) return;
    this.#saidCannotPlay.add(requestId);
    log.error(
      `[agentdeck] run '${run.runId}' was asked to resume (request ${requestId}), but this ` +
        `deck has no agent or workflow '${run.origin}' to play it; a server whose catalog has ` +
        `'${run.origin}' must be open on this store`,
    );
  }

  async #scan(): Promise<void> {
    const { store, agents, workflows } = this.#parts;
    const paused = new Set<string>();
    // Paged with the exact cursor (runs_by_status, migration 6): a run that started in the
    // same millisecond as a page's last run is on the next page, not skipped.
    let after: RunCursor | undefined;
    for (;;) {
      const page = await store.listRuns({
        status: 'paused',
        limit: SCAN_PAGE,
        ...(after ? { after } : {}),
      });
      for (const run of page) {
        if (!this.#timer) return;
        paused.add(run.runId);
        if (this.#quiet.get(run.runId) === run.lastSeq) continue;
        const playable = agents.has(run.origin) || workflows.has(run.origin);
        // A deck sharing the store with others skips their runs, unless one is asked to resume.
        const last = (await store.readControl(run.runId)).at(-1);
        if (last?.verb !== 'resume') {
          this.#quiet.set(run.runId, run.lastSeq);
          continue;
        }
        if (Date.now() - Date.parse(last.requestedAt) < RESUME_GRACE_MS) continue;
        if (!playable) {
          this.#cannotPlay(run, last.requestId);
          continue;
        }
        if (!(await pausedByRequest(store, run.runId))) continue;
        const playing = playResume(this.#parts, run, last.requestId, null).catch(
          (error: unknown) => {
            log.error(`[agentdeck] could not resume run '${run.runId}': ${errorMessage(error)}`);
          },
        );
        this.#playing.add(playing);
        void playing.finally(() => this.#playing.delete(playing));
      }
      if (page.length < SCAN_PAGE) {
        // Forget the runs that are no longer paused.
        for (const runId of this.#quiet.keys()) if (!paused.has(runId)) this.#quiet.delete(runId);
        return;
      }
      const last = page.at(-1);
      after = last && { startedAt: last.startedAt, runId: last.runId };
    }
  }
}
