/**
 * The watchers of one store's runs, in this process: what a store's `watchRun`
 * (`AppendNotifier`) keeps, and whom it wakes after an append. A live tail of `GET
 * /runs/{id}/events` waits on such a wake-up instead of reading the store on a timer, so a
 * tail that follows a waiting run costs nothing while nothing happens. A wake-up carries no
 * events: the watcher reads the store after the last seq it has.
 */

export class RunWatchers {
  readonly #watchers = new Map<string, Set<() => void>>();

  /** Watch `runId`; returns the function that stops watching (safe to call twice). */
  watch(runId: string, onAppend: () => void): () => void {
    const entry = () => onAppend();
    let set = this.#watchers.get(runId);
    if (!set) {
      set = new Set();
      this.#watchers.set(runId, set);
    }
    set.add(entry);
    const watching = set;
    return () => {
      watching.delete(entry);
      if (watching.size === 0 && this.#watchers.get(runId) === watching) {
        this.#watchers.delete(runId);
      }
    };
  }

  /** Whether `runId` has a watcher. */
  has(runId: string): boolean {
    return this.#watchers.has(runId);
  }

  /** The runs watched now. */
  runIds(): string[] {
    return [...this.#watchers.keys()];
  }

  /** How many runs are watched. */
  get size(): number {
    return this.#watchers.size;
  }

  /** Wake the watchers of `runId` (a watcher that throws is skipped: it is not the appender's problem). */
  wake(runId: string): void {
    const set = this.#watchers.get(runId);
    if (!set) return;
    for (const wake of [...set]) {
      try {
        wake();
      } catch {
        // a wake-up is a hint; the watcher's own failure is its own
      }
    }
  }

  /** Wake the watchers of each run that `events` append to, once per run. */
  wakeFor(events: readonly { runId: string }[]): void {
    if (this.#watchers.size === 0) return;
    for (const runId of new Set(events.map((event) => event.runId))) this.wake(runId);
  }

  /** Wake every watcher (their reads find what a lost notice would have said). */
  wakeAll(): void {
    for (const runId of this.runIds()) this.wake(runId);
  }

  clear(): void {
    this.#watchers.clear();
  }
}
