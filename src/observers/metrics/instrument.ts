/**
 * A timing proxy for a store object (an event store, a session, a checkpointer): every call
 * of one of its methods that returns a promise is timed from the call until the promise
 * settles, and reported with whether it rejected and what it resolved with. It changes
 * nothing for the caller: the same promise is returned, the target is what `instanceof` and
 * the ability guards (`hasRunBoundaries`, `isAppendNotifier`, `isWakeupIndex`) see, and
 * methods and getters run with the target as `this`, because the stores keep their state in
 * `#private` fields, which a proxy does not have.
 */

/**
 * Told after each timed call settles. Must not throw (a throw is swallowed: a metric never
 * fails a store operation).
 */
export type OperationReport = (
  operation: string,
  seconds: number,
  failed: boolean,
  value: unknown,
) => void;

// biome-ignore lint/suspicious/noExplicitAny: a method of any signature is forwarded as is
type AnyFunction = (...args: any[]) => any;

/** `target` behind a proxy that times its promise-returning methods (see the module comment). */
export function timeOperations<T extends object>(target: T, report: OperationReport): T {
  // One wrapper per method, kept while the target's method stays the same: `store.append`
  // is the same function on every read, as it is on the target.
  const wrappers = new Map<string | symbol, { original: AnyFunction; wrapper: AnyFunction }>();
  return new Proxy(target, {
    get(object, property) {
      const value: unknown = Reflect.get(object, property); // the target as receiver
      if (typeof value !== 'function' || property === 'constructor') return value;
      const known = wrappers.get(property);
      if (known?.original === value) return known.wrapper;
      const original = value as AnyFunction;
      const wrapper =
        typeof property === 'string'
          ? timed(object, original, property, report)
          : original.bind(object);
      wrappers.set(property, { original, wrapper });
      return wrapper;
    },
    set(object, property, value) {
      return Reflect.set(object, property, value); // a setter, too, runs on the target
    },
  });
}

function timed(
  object: object,
  method: AnyFunction,
  operation: string,
  report: OperationReport,
): AnyFunction {
  return function timedOperation(...args: unknown[]) {
    const started = performance.now();
    const result = Reflect.apply(method, object, args);
    // Only real promises: `then` on some other thenable may start work a second time.
    if (result instanceof Promise) {
      result.then(
        (value) => safely(report, operation, started, false, value),
        () => safely(report, operation, started, true, undefined),
      );
    }
    return result;
  };
}

function safely(
  report: OperationReport,
  operation: string,
  started: number,
  failed: boolean,
  value: unknown,
): void {
  try {
    report(operation, (performance.now() - started) / 1000, failed, value);
  } catch {
    // A metric must never turn into a failed store call or an unhandled rejection.
  }
}
