/**
 * What each workflow run this process paused waits on, so that answering (or waking) it here
 * addresses the resume without reading the thread back from the checkpointer (a checkpoint
 * read and LangGraph's state rebuild: about 5% of an interrupt + answer cycle, issue 22).
 * An entry holds only while the run's log ends with the pause it was taken at: any later
 * event (another process resumed, answered or cancelled the run) changes the run's `lastSeq`,
 * and the resume then reads the checkpointer as before. Every change to a thread goes through
 * a recorded segment, which appends to the run's log before it touches the thread.
 * Tested in src/deck/open-pauses-memo.test.ts.
 */
import type { OpenPause } from './workflow-engine.js';

/** Most runs remembered; the oldest are forgotten first (they read the checkpointer). */
export const OPEN_PAUSES_MEMO_SIZE = 10_000;

interface Entry {
  /** `seq` of the pause event the run's log ended with. */
  seq: number;
  open: readonly OpenPause[];
}

export class OpenPausesMemo {
  readonly #entries = new Map<string, Entry>();
  readonly #size: number;

  constructor(size = OPEN_PAUSES_MEMO_SIZE) {
    this.#size = size;
  }

  /** The run paused with `open`, its log ending with the event at `seq`. */
  remember(runId: string, seq: number, open: readonly OpenPause[]): void {
    this.#entries.delete(runId);
    this.#entries.set(runId, { seq, open });
    if (this.#entries.size > this.#size) {
      const oldest = this.#entries.keys().next().value as string;
      this.#entries.delete(oldest);
    }
  }

  /** The run's open pauses if its log still ends at the remembered pause; forgets them. */
  take(runId: string, lastSeq: number): readonly OpenPause[] | null {
    const entry = this.#entries.get(runId);
    if (!entry) return null;
    this.#entries.delete(runId);
    return entry.seq === lastSeq ? entry.open : null;
  }

  /** How many runs are remembered now. */
  get size(): number {
    return this.#entries.size;
  }
}
