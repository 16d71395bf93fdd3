/**
 * A run's id: a new time-ordered one, or the caller's own (`RunOptions.runId`), which must be
 * new and is reserved with a claim so two callers racing with the same id cannot both use it.
 *
 * Tested in src/deck/agent-turns.test.ts and src/deck/turn-endings.test.ts (a run id used twice).
 */
import { randomUUID } from 'node:crypto';
import { ConflictError, InvalidInputError } from '../core/errors.js';
import { checkId } from '../core/ids.js';
import { newRunId } from '../core/run-ids.js';
import { type EventStore, runIdReservationKey } from '../core/store.js';

/** A new run id, or `requested` once reserved; ConflictError when it is already used. */
export async function reserveRunId(
  store: EventStore,
  requested: string | undefined,
): Promise<string> {
  if (requested === undefined) return newRunId();
  const runId = optionalId('runId', requested) as string;
  const taken = () =>
    new ConflictError(`run id '${runId}' is already used; pass a new runId or omit it`);
  if (await store.getRun(runId)) throw taken();
  // Reserve the id atomically: two callers racing with the same id cannot both pass.
  const reservation = await store.claim({
    key: runIdReservationKey(runId),
    runId: randomUUID(),
    staleAfterMs: Number.MAX_SAFE_INTEGER,
  });
  if (!reservation.acquired) throw taken();
  return runId;
}

/**
 * `value` as an id (a non-empty string that passes `checkId`: no NUL character, which Postgres
 * cannot store, and at most `MAX_ID_BYTES`), or `null` when it was not given.
 */
export function optionalId(name: string, value: string | undefined): string | null {
  if (value === undefined) return null;
  if (typeof value !== 'string' || value.trim() === '') {
    throw new InvalidInputError(`${name} must be a non-empty string, got ${JSON.stringify(value)}`);
  }
  return checkId(name, value);
}
