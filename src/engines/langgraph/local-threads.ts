/**
 * The threads of non-durable workflows, in memory, bounded. A thread named by its run id is
 * dropped when its run ends (the runtime calls `deleteThread`); a thread the caller named
 * (`sessionId`) keeps its state for a later call on the same id (SPEC), but at most `max` of
 * them are kept: past that, the ones played longest ago are dropped, never one playing now or
 * one waiting (a question, a pause) whose run would then have nothing to continue from. So a
 * server running non-durable workflows for days holds bounded memory.
 */
import { MemorySaver } from '@langchain/langgraph';

/** Named non-durable threads kept at most (each costs about 8 KB). */
export const DEFAULT_MAX_LOCAL_THREADS = 10_000;

export class LocalThreads {
  readonly saver = new MemorySaver();
  readonly #max: number;
  /** Stored thread id -> workflow name, played longest ago first (a Map keeps insertion order). */
  readonly #recent = new Map<string, string>();
  /** Stored thread ids with a segment playing now, with how many. */
  readonly #playing = new Map<string, number>();

  constructor(max: number = DEFAULT_MAX_LOCAL_THREADS) {
    this.#max = max;
  }

  /** A segment starts on the thread: it becomes the most recent, and is not dropped while it plays. */
  begin(workflow: string, stored: string): void {
    this.#recent.delete(stored);
    this.#recent.set(stored, workflow);
    this.#playing.set(stored, (this.#playing.get(stored) ?? 0) + 1);
  }

  /** The segment ended: drop, oldest first, what is beyond the bound and neither playing nor waiting. */
  async end(
    stored: string,
    isWaiting: (workflow: string, stored: string) => Promise<boolean>,
  ): Promise<void> {
    const left = (this.#playing.get(stored) ?? 1) - 1;
    if (left > 0) this.#playing.set(stored, left);
    else this.#playing.delete(stored);
    let over = this.#recent.size - this.#max;
    if (over <= 0) return; // the common case
    // In place, oldest first, not over a copy: past the bound every segment's end comes here,
    // and a copy of 10,000 entries to drop one cost more than the run. A Map's iterator
    // skips what is deleted meanwhile and reaches what is added (a thread that began since,
    // which is playing and kept).
    for (const [candidate, workflow] of this.#recent) {
      if (over <= 0) return;
      if (this.#playing.has(candidate) || (await isWaiting(workflow, candidate))) continue;
      await this.delete(candidate);
      over -= 1;
    }
  }

  async delete(stored: string): Promise<void> {
    this.#recent.delete(stored);
    await this.saver.deleteThread(stored);
  }

  /** How many threads the saver holds now. */
  get size(): number {
    return Object.keys(this.saver.storage).length;
  }
}
