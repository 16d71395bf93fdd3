/**
 * A run segment's boundaries in the Postgres event store (`RunBoundaries`, `RunPauses`): its
 * start with its claim (segment-start.ts), its end with the claim's release, its pause with the
 * claim's renewal, each one round trip and one commit (issue 43). Each is a durable write
 * (group-commit.ts: held deltas first, the run's tail taken from what it returns), announced
 * after its commit (notices.ts). The store guards each call (connected, driver errors named).
 */
import type { Pool } from 'pg';
import { StoreError } from '../../core/errors.js';
import type { Event } from '../../core/events.js';
import type { ClaimRequest, ClaimResult } from '../../core/store.js';
import type { PreparedEvent } from '../shared/stored-event.js';
import { endRun, pauseRun, stampAtTails, type Tail } from './append.js';
import type { GroupCommit } from './group-commit.js';
import { claimAndStart } from './segment-start.js';

export class BoundaryWrites {
  readonly #pool: Pool;
  readonly #writes: GroupCommit;
  readonly #announce: (runId: string) => void;

  constructor(pool: Pool, writes: GroupCommit, announce: (runId: string) => void) {
    this.#pool = pool;
    this.#writes = writes;
    this.#announce = announce;
  }

  /** The claim and a run's first events (`null` when the claim was refused or taken over). */
  async claimAndAppend(
    request: ClaimRequest,
    prepared: readonly PreparedEvent[],
  ): Promise<{ claim: ClaimResult; events: Event[] | null }> {
    const runIds = [...new Set(prepared.map((item) => item.event.runId))];
    let claim: ClaimResult | null = null; // what the claim decided, inside the durable write
    let appended = false;
    const stored = await this.#writes.durably(runIds, async () => {
      const done = await claimAndStart(this.#pool, request, prepared);
      claim = done.claim;
      appended = done.tails !== null;
      const tails = done.tails ?? new Map<string, Tail>();
      return { events: done.tails ? stampAtTails(prepared, tails) : [], tails };
    });
    if (!claim) throw new StoreError(`could not claim '${request.key}'`);
    if (appended) for (const runId of runIds) this.#announce(runId);
    return { claim, events: appended ? stored : null };
  }

  /** A terminal event unless the run has ended, and the release of `releaseKey`. */
  async endRun(item: PreparedEvent, releaseKey: string | null): Promise<Event | null> {
    const stored = await this.#one(item, () => endRun(this.#pool, item, releaseKey));
    this.#writes.forget(item.event.runId);
    return stored;
  }

  /** A pause, and the renewal of `keep` without a lease. */
  async pauseRun(item: PreparedEvent, keep: string): Promise<Event> {
    return (await this.#one(item, () => pauseRun(this.#pool, item, keep))) as Event;
  }

  async #one(
    item: PreparedEvent,
    write: () => Promise<{ event: Event; tail: Tail } | null>,
  ): Promise<Event | null> {
    const { runId } = item.event;
    const [stored] = await this.#writes.durably([runId], async () => {
      const done = await write();
      return { events: done ? [done.event] : [], tails: new Map(done ? [[runId, done.tail]] : []) };
    });
    if (stored) this.#announce(runId);
    return stored ?? null;
  }
}
