/**
 * Where the deck's own log lines go: `console` unless the open deck was given a `logger`
 * (`DeckOptions.logger`). One deck is live per process, so the open deck sets it for the
 * process (`useLogger`) and puts the previous one back when it closes; the runtime, stores,
 * observers and engines write through `log`, never to `console` directly.
 */

/** A sink for the deck's log lines (each is one line, prefixed `[agentdeck]`). */
export interface Logger {
  error(message: string): void;
  warn(message: string): void;
  info(message: string): void;
}

let current: Logger = console;

/** The deck's log: forwards each line to the logger in use now. */
export const log: Logger = {
  error: (message) => write('error', message),
  warn: (message) => write('warn', message),
  info: (message) => write('info', message),
};

/** A logger that throws must not turn a background task's log line into a crash. */
function write(level: keyof Logger, message: string): void {
  try {
    current[level](message);
  } catch {
    // Nowhere left to say it: the logger itself failed.
  }
}

/** Send the log to `logger` (or `console`) until the returned function puts the previous one back. */
export function useLogger(logger: Logger | undefined): () => void {
  const previous = current;
  current = logger ?? console;
  return () => {
    current = previous;
  };
}

/** Whether a value can serve as a logger (for the Deck option's check). */
export function isLogger(value: unknown): value is Logger {
  const candidate = value as Partial<Logger> | null;
  return (
    typeof candidate === 'object' &&
    candidate !== null &&
    typeof candidate.error === 'function' &&
    typeof candidate.warn === 'function' &&
    typeof candidate.info === 'function'
  );
}
