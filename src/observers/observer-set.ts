/**
 * The observers of one open deck: started in order when the deck opens (before the Runtime
 * exists), each behind its own queue, and fed by one tap the Runtime's recorders call after
 * storing an event. Closing delivers what is queued and closes each observer.
 */
import type { Event } from '../core/events.js';
import type { EventTap } from '../runtime/recorder.js';
import type { Observer } from './observer.js';
import { ObserverQueue, type ObserverQueueOptions } from './queue.js';

export class ObserverSet {
  readonly #queues: readonly ObserverQueue[];

  private constructor(queues: readonly ObserverQueue[]) {
    this.#queues = queues;
  }

  /**
   * Call each observer's `start()` in order. When one throws, those already started are
   * closed and the error is rethrown: the deck's open is refused.
   */
  static async start(
    observers: readonly Observer[],
    options: ObserverQueueOptions = {},
  ): Promise<ObserverSet> {
    const started: ObserverQueue[] = [];
    try {
      for (const observer of observers) {
        await observer.start?.();
        started.push(new ObserverQueue(observer, options));
      }
    } catch (error) {
      await Promise.all(started.map((queue) => queue.close()));
      throw error;
    }
    return new ObserverSet(started);
  }

  /** The tap to give the Runtime: queues the event for every observer and returns at once. */
  readonly tap: EventTap = (event: Event) => {
    for (const queue of this.#queues) queue.push(event);
  };

  /** The observers' queues, in order. */
  get queues(): readonly ObserverQueue[] {
    return this.#queues;
  }

  /** Deliver what is queued and close every observer (concurrently; each bounded). */
  async close(): Promise<void> {
    await Promise.all(this.#queues.map((queue) => queue.close()));
  }
}
