/**
 * The observers of one open deck: started in order when the deck opens (before the Runtime
 * exists), each behind its own queue, and fed by one tap the Runtime's recorders call after
 * storing an event. Closing delivers what is queued and closes each observer.
 */
import { errorMessage } from '../core/errors.js';
import type { Event } from '../core/events.js';
import { log } from '../core/log.js';
import type { EngineSpanSink } from '../runtime/engine-spans.js';
import type { EventTap } from '../runtime/recorder.js';
import { type Observer, wantsEngineSpans } from './observer.js';
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

  /**
   * A sink for the agent engine's own spans that hands each to the observers asking for
   * them (a failure is logged once per observer and never reaches the engine), or `null`
   * when none asks, so the engine records no spans at all.
   */
  engineSpanSink(): EngineSpanSink | null {
    const wanting = this.#queues.filter((q) => wantsEngineSpans(q.observer));
    if (wanting.length === 0) return null;
    const logged = new Set<ObserverQueue>();
    return (span) => {
      for (const queue of wanting) {
        if (queue.disabled || !wantsEngineSpans(queue.observer)) continue;
        try {
          queue.observer.emitEngineSpan(span);
        } catch (error) {
          if (logged.has(queue)) continue;
          logged.add(queue);
          log.warn(
            `[agentdeck] observer '${queue.name}' failed on an engine span: ${errorMessage(error)} (logged once)`,
          );
        }
      }
    };
  }

  /** The observers' queues, in order. */
  get queues(): readonly ObserverQueue[] {
    return this.#queues;
  }

  /** Deliver what is queued and close every observer (concurrently; each bounded). */
  async close(): Promise<void> {
    await Promise.all(this.#queues.map((queue) => queue.close()));
  }
}
