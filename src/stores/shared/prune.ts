/**
 * What every event store's `pruneRuns` does before it touches anything: check the request a
 * caller (possibly plain JavaScript, possibly a CLI flag) made, and put it in one form, so
 * that the backends agree on what a request selects. `endedBefore` becomes the stored
 * timestamp form (ISO 8601 UTC with milliseconds), because the stores compare timestamps as
 * text: '2026-01-01T00:00:00Z' would sort after '2026-01-01T00:00:00.000Z', the same instant.
 */
import { InvalidInputError } from '../../core/errors.js';
import { parseInstant } from '../../core/instants.js';
import type { PruneRequest } from '../../core/store.js';

export type EndedStatus = 'completed' | 'failed' | 'cancelled';

/** The statuses of a run that has ended: the only ones pruning may select. */
export const ENDED_STATUSES: readonly EndedStatus[] = ['completed', 'failed', 'cancelled'];

/** A checked {@link PruneRequest}, defaults applied. */
export interface PruneSelection {
  /** ISO 8601 UTC with milliseconds, as stores write `ts`. */
  endedBefore: string;
  /** Not empty unless the caller asked for no status (then nothing is selected). */
  statuses: EndedStatus[];
  origin: string | null;
  /** A whole number, 0 or more. */
  limit: number;
  dryRun: boolean;
}

/** Check `request`; InvalidInputError names what is wrong. */
export function resolvePruneRequest(request: PruneRequest): PruneSelection {
  const endedBefore = parseInstant(request.endedBefore, 'endedBefore').toISOString();
  const { limit } = request;
  if (typeof limit !== 'number' || !Number.isSafeInteger(limit) || limit < 0) {
    throw new InvalidInputError(
      `limit must be a whole number of runs, 0 or more, got ${String(limit)}`,
    );
  }
  const statuses = [...(request.statuses ?? ENDED_STATUSES)];
  const notEnded = statuses.filter((status) => !ENDED_STATUSES.includes(status));
  if (notEnded.length > 0) {
    throw new InvalidInputError(
      `statuses may only name statuses of ended runs (${ENDED_STATUSES.join(', ')}), got ` +
        `${notEnded.map((status) => `'${String(status)}'`).join(', ')}: a run that has not ended is never pruned`,
    );
  }
  const origin = request.origin ?? null;
  if (origin !== null && typeof origin !== 'string') {
    throw new InvalidInputError(`origin must be a string, got ${typeof origin}`);
  }
  return {
    endedBefore,
    statuses: [...new Set(statuses)],
    origin,
    limit,
    dryRun: request.dryRun === true,
  };
}
