/**
 * The observer port: a read-only tap on the event log. The runtime hands every stored
 * event to each observer through the observer's own bounded queue (`queue.ts`), so an
 * observer can only ever slow itself down, never a run. An observer that must not lose an
 * event (an audit trail, billing) reads the event store instead: a queue that overflows, or
 * an observer that keeps failing, drops events.
 */
import { ConfigError } from '../core/errors.js';
import type { Event } from '../core/events.js';
import type { EngineSpan } from '../runtime/engine-spans.js';

/**
 * The sink contract. Only `emit` is required.
 *
 * @example
 * const counter: Observer = {
 *   name: 'counter',
 *   emit(event) { if (event.kind === 'run.completed') completed += 1; },
 * };
 * new Deck({ agents, observers: [counter] });
 */
export interface Observer {
  /** A name for log lines about this observer. @default the class name, else 'observer' */
  readonly name?: string;
  /**
   * Receives each stored event, in order. Do in-memory work only (buffer, render, count)
   * and never await a round trip here: ship buffered data from a timer, or in `close()`.
   * A returned promise is awaited before the next event is delivered to this observer,
   * which delays only this observer's own queue.
   */
  emit(event: Event): void | Promise<void>;
  /** Called once when the deck opens, before any run; throwing refuses the open. */
  start?(): void | Promise<void>;
  /** Called once when the deck closes, after the last event was delivered: write out buffered data. */
  close?(): void | Promise<void>;
}

/** Whether `value` implements the sink contract (an `emit` method; `start`/`close` methods if present). */
export function isObserver(value: unknown): value is Observer {
  if (typeof value !== 'object' || value === null) return false;
  const candidate = value as Record<string, unknown>;
  return (
    typeof candidate.emit === 'function' &&
    (candidate.start === undefined || typeof candidate.start === 'function') &&
    (candidate.close === undefined || typeof candidate.close === 'function')
  );
}

/** The name log lines use for an observer. */
export function observerName(observer: Observer): string {
  if (typeof observer.name === 'string' && observer.name !== '') return observer.name;
  const className = (observer as object).constructor?.name;
  return className && className !== 'Object' ? className : 'observer';
}

/**
 * What `build()` checks: the option is a list and each entry is a sink. Nothing is started
 * or contacted here.
 */
export function checkObservers(observers: unknown): void {
  if (observers === undefined) return;
  if (!Array.isArray(observers)) {
    throw new ConfigError(
      `Deck option 'observers' must be a list of observers (or [] for none), got ${typeof observers}`,
    );
  }
  observers.forEach((observer: unknown, index) => {
    if (!isObserver(observer)) {
      throw new ConfigError(
        `Deck option 'observers'[${index}] is not an observer: it needs an emit(event) method ` +
          '(and start()/close(), when present, must be methods)',
      );
    }
  });
}

/**
 * The optional ability of an observer that also wants the agent engine's own spans (found
 * with {@link wantsEngineSpans}). `emitEngineSpan` is called inline as the engine ends a
 * span, not through the observer's queue: in-memory work only, and it must not throw.
 */
export interface EngineSpanObserver extends Observer {
  readonly sdkSpans: boolean;
  emitEngineSpan(span: EngineSpan): void;
}

export function wantsEngineSpans(observer: Observer): observer is EngineSpanObserver {
  const candidate = observer as Partial<EngineSpanObserver>;
  return candidate.sdkSpans === true && typeof candidate.emitEngineSpan === 'function';
}
