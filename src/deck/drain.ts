/**
 * What `deck.drain()` does (runtime/drain.ts), and the error of a closed deck, kept out of
 * deck.ts for its length.
 */
import { DeckClosedError } from '../core/errors.js';
import { type DrainReport, drainLiveRuns } from '../runtime/drain.js';
import type { OpenParts } from './open-parts.js';

/** Let the open deck's live runs end until `deadlineMs`, then hand what remains over. */
export async function drainDeck(parts: OpenParts, deadlineMs: number): Promise<DrainReport> {
  // Nothing new from the queue, the timers, the schedules or other processes' resumes.
  await parts.runtime.stopTaking();
  return drainLiveRuns(parts.runtime, parts.store, deadlineMs);
}

export function closedError(name: string): DeckClosedError {
  return new DeckClosedError(
    `deck '${name}' is closed and cannot be reopened or used; construct a new Deck`,
  );
}
