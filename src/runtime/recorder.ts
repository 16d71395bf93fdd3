/**
 * Writes one run's events: adds the envelope to each draft, stores it (the store assigns
 * seq and ts), then hands the stored event to the taps. Storing comes first, so whatever a
 * watcher sees is already durable.
 */

import type { Event, EventDraft, NewEvent } from '../core/events.js';
import type { EventStore } from '../core/store.js';

export interface RunIdentity {
  runId: string;
  sessionId: string | null;
  namespace: string | null;
  origin: string;
}

/** Receives every stored event, in order; must not block (in-memory work only). */
export type EventTap = (event: Event) => void;

export class RunRecorder {
  constructor(
    private readonly store: EventStore,
    readonly identity: RunIdentity,
    private readonly taps: readonly EventTap[] = [],
  ) {}

  async record(draft: EventDraft): Promise<Event> {
    const [event] = await this.store.append([{ ...this.identity, ...draft } as NewEvent]);
    if (!event) throw new Error('event store returned no event for an append');
    for (const tap of this.taps) tap(event);
    return event;
  }
}
