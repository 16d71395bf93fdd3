/**
 * The errors a caller can catch. One base class with a stable `code` (the HTTP layer maps
 * codes to statuses in one place) and the original `cause`; subclasses for each condition
 * of SPEC.md's Errors table. Messages say what was wrong, with the names involved, and
 * what to do about it.
 */

export type DeckErrorCode =
  | 'config'
  | 'context_type'
  | 'not_found'
  | 'conflict'
  | 'not_open'
  | 'closed'
  | 'store'
  | 'unavailable'
  | 'storage_full'
  | 'block_too_large'
  | 'invalid_input'
  | 'run_failed'
  | 'run_cancelled'
  | 'rate_limited';

/** Marks every DeckError, whichever copy of the package made it. */
const DECK_ERROR = Symbol.for('agentdeck.error');

export class DeckError extends Error {
  readonly code: DeckErrorCode;

  constructor(code: DeckErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.code = code;
    this.name = new.target.name;
    Object.defineProperty(this, DECK_ERROR, { value: true });
  }
}

/**
 * Whether `value` is an agentdeck error, by its brand: unlike `instanceof DeckError`, it holds
 * across two copies of the package in one process (a bundled project, a linked checkout).
 * @example if (isDeckError(error) && error.code === 'not_found') return null;
 */
export function isDeckError(value: unknown): value is DeckError {
  return (
    typeof value === 'object' &&
    value !== null &&
    (value as { [DECK_ERROR]?: unknown })[DECK_ERROR] === true
  );
}

/** The catalog or the settings are wrong; raised by construction, `build()` or `open()`. */
export class ConfigError extends DeckError {
  constructor(message: string, options?: { cause?: unknown; code?: DeckErrorCode }) {
    super(options?.code ?? 'config', message, options);
  }
}

/** A callable's context requirement is incompatible with the deck's declared context type. */
export class ContextTypeError extends ConfigError {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, { ...options, code: 'context_type' });
  }
}

/** No agent, workflow or run by that name or id. */
export class NotFoundError extends DeckError {
  constructor(message: string, options?: { cause?: unknown }) {
    super('not_found', message, options);
  }
}

/** The session or thread is busy with another run. */
export class ConflictError extends DeckError {
  /** The run that holds the session, when known. */
  readonly holderRunId: string | undefined;

  constructor(message: string, options?: { cause?: unknown; holderRunId?: string }) {
    super('conflict', message, options);
    this.holderRunId = options?.holderRunId;
  }
}

/** A turn-starting method was called on a deck that is not open. */
export class NotOpenError extends DeckError {
  constructor(message: string) {
    super('not_open', message);
  }
}

/** The deck was closed; CLOSED is terminal. */
export class DeckClosedError extends DeckError {
  constructor(message: string) {
    super('closed', message);
  }
}

/** The event store (or a session store) failed; `cause` holds the driver's error. */
export class StoreError extends DeckError {
  constructor(message: string, options?: { cause?: unknown; code?: DeckErrorCode }) {
    super(options?.code ?? 'store', message, options);
  }
}

/** The backends a deck depends on, as errors and readiness name them. */
export type Backend = 'postgres' | 'redis' | 'sqlite';

/**
 * A backend cannot be reached now (Postgres or Redis down or restarting, the SQLite file
 * locked or unreadable): a temporary condition, so a caller may retry after
 * `retryAfterSeconds`. Nothing acknowledged before it is lost. HTTP answers 503 with a
 * `Retry-After` header.
 */
export class StoreUnavailableError extends StoreError {
  readonly backend: Backend;
  readonly retryAfterSeconds: number;

  constructor(
    backend: Backend,
    message: string,
    options?: { cause?: unknown; retryAfterSeconds?: number },
  ) {
    super(message, { ...options, code: 'unavailable' });
    this.backend = backend;
    this.retryAfterSeconds = options?.retryAfterSeconds ?? DEFAULT_RETRY_AFTER_SECONDS;
  }
}

/**
 * A backend has no room for a write (the SQLite file's disk is full, Postgres reports
 * `disk_full`): reads still work, writes fail until space is freed. HTTP answers 507.
 */
export class StorageFullError extends StoreError {
  readonly backend: Backend;
  readonly retryAfterSeconds: number;

  constructor(backend: Backend, message: string, options?: { cause?: unknown }) {
    super(message, { ...options, code: 'storage_full' });
    this.backend = backend;
    this.retryAfterSeconds = DEFAULT_RETRY_AFTER_SECONDS * 6;
  }
}

/**
 * Whether `error` says a backend is down or full for now (worth trying again later), as
 * opposed to a failure of the call itself.
 */
export function isBackendOutage(error: unknown): error is StoreUnavailableError | StorageFullError {
  return error instanceof StoreUnavailableError || error instanceof StorageFullError;
}

/** How long a client is told to wait before retrying after a backend outage, in seconds. */
export const DEFAULT_RETRY_AFTER_SECONDS = 5;

/** An inline content block is larger than the 1 MB limit. */
export class BlockTooLargeError extends DeckError {
  readonly blockType: string;
  readonly bytes: number;

  constructor(blockType: string, bytes: number, limit: number) {
    super(
      'block_too_large',
      `${blockType} is ${bytes} bytes decoded, over the ${limit}-byte inline limit; ` +
        'put larger content in a ResourceBlock (a uri) instead',
    );
    this.blockType = blockType;
    this.bytes = bytes;
  }
}

/** An argument to a Deck method is malformed (wrong type, bad id, naive timestamp...). */
export class InvalidInputError extends DeckError {
  constructor(message: string, options?: { cause?: unknown }) {
    super('invalid_input', message, options);
  }
}

/**
 * A run ended with `run.failed` and the original exception is not available in this
 * process (for example it was recorded by another process). `errorType` is the recorded
 * exception type name.
 */
export class RunFailedError extends DeckError {
  readonly errorType: string;
  readonly runId: string;

  constructor(runId: string, errorType: string, message: string) {
    super('run_failed', `run '${runId}' failed with ${errorType}: ${message}`);
    this.errorType = errorType;
    this.runId = runId;
  }
}

/**
 * A start over its agent's or workflow's rate limit for its key (`queue.rate`): nothing was
 * recorded; try again after `retryAfterMs` (HTTP: 429 with `Retry-After`), or queue the run.
 */
export class RateLimitedError extends DeckError {
  readonly retryAfterMs: number;

  constructor(message: string, retryAfterMs: number) {
    super('rate_limited', message);
    this.retryAfterMs = retryAfterMs;
  }
}

/** A run was cancelled (the deck closed, its claim was lost) before it returned a result. */
export class RunCancelledError extends DeckError {
  constructor(message: string, options?: { cause?: unknown }) {
    super('run_cancelled', message, options);
  }
}

/** The type name recorded for an exception: its class name, or `Error` for non-errors. */
export function errorTypeName(error: unknown): string {
  if (error instanceof Error)
    return error.name && error.name !== 'Error' ? error.name : error.constructor.name;
  return 'Error';
}

/** A readable one-line message for any thrown value. */
export function errorMessage(error: unknown): string {
  if (error instanceof Error) return error.message;
  if (typeof error === 'string') return error;
  try {
    return JSON.stringify(error);
  } catch {
    return String(error);
  }
}
