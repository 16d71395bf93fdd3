/**
 * The parsed history of the sessions read last, so a turn reads and parses only the items
 * written since its session was last read, not the whole history each turn (a turn's cost
 * grew by about 16 µs per stored item with it). A backend keeps the position of the last item
 * read (`cursor`) beside the items, checks on each read that the items up to there are still
 * stored (another process may have popped or cleared them), and reads only what follows.
 *
 * The items are frozen and shared by every reader of the session, so a caller that changes
 * one fails at once instead of changing what the next turn reads. Bounded: past `capacity`
 * sessions, the one read longest ago is forgotten (it is read in full next time).
 */
import type { SessionItem } from '../../core/sessions.js';

/** A session's items as last read, and the backend's position after the last one. */
export interface CachedHistory {
  items: SessionItem[];
  cursor: number;
}

/** How many sessions' histories a backend keeps parsed, by default. */
export const DEFAULT_CACHED_SESSIONS = 256;

export class HistoryCache {
  readonly #entries = new Map<string, CachedHistory>();

  constructor(readonly capacity: number) {}

  /** The session's cached history (now the one read most recently), if any. */
  get(sessionId: string): CachedHistory | undefined {
    const entry = this.#entries.get(sessionId);
    if (entry === undefined) return undefined;
    this.#entries.delete(sessionId);
    this.#entries.set(sessionId, entry);
    return entry;
  }

  set(sessionId: string, entry: CachedHistory): void {
    if (this.capacity <= 0) return;
    this.#entries.delete(sessionId);
    this.#entries.set(sessionId, entry);
    if (this.#entries.size > this.capacity) {
      const oldest = this.#entries.keys().next().value;
      if (oldest !== undefined) this.#entries.delete(oldest);
    }
  }

  forget(sessionId: string): void {
    this.#entries.delete(sessionId);
  }
}

/** `value` and everything in it frozen (a parsed JSON value: no cycles). */
export function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const inner of Object.values(value)) deepFreeze(inner);
  }
  return value;
}
