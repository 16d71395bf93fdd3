/**
 * The one place errors become HTTP responses (WIRE.md "General"): every body is
 * `{"detail": "<message>"}`. A DeckError's `code` picks the status; a backend that is down
 * (`StoreUnavailableError`) is 503 and a full disk (`StorageFullError`) 507, each naming the
 * backend and what failed, with `Retry-After`; anything else, and any failure inside a run,
 * is 500 `internal error`, its message written to the server log only (it may hold secrets).
 */
import {
  DEFAULT_RETRY_AFTER_SECONDS,
  type DeckErrorCode,
  errorMessage,
  errorTypeName,
  isBackendOutage,
  isDeckError,
  RateLimitedError,
  type StorageFullError,
  type StoreUnavailableError,
} from '../../core/errors.js';
import { stackOf } from '../../core/failure-details.js';

/** The status of each DeckError code, when it reaches a handler before a run began. */
const STATUS: Record<DeckErrorCode, number> = {
  not_found: 404,
  conflict: 409,
  invalid_input: 422,
  block_too_large: 422,
  not_open: 503,
  closed: 503,
  config: 500,
  context_type: 500,
  store: 500,
  unavailable: 503,
  storage_full: 507,
  run_failed: 500,
  run_cancelled: 500,
  rate_limited: 429,
};

/** A response a route decided on (unknown name, bad body, missing key...). */
export class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly detail: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(detail);
    this.name = 'HttpError';
  }
}

export type ErrorLog = (message: string) => void;

export const INTERNAL_ERROR = 'internal error';

/**
 * The header naming the run a request started or continued (additive to 1.2.1's bodies), so
 * a client can pause, cancel or follow it without listing runs.
 */
export const RUN_ID_HEADER = 'x-run-id';

/** The `X-Run-Id` header of the run whose first event is `first`, if any. */
export function runIdHeader(
  first: IteratorResult<{ runId: string }, unknown>,
): Record<string, string> {
  return first.done ? {} : { [RUN_ID_HEADER]: first.value.runId };
}

/** `response` with the `X-Run-Id` header added (`runId`: an id, or {@link runIdHeader}'s record). */
export function withRunId(response: Response, runId: string | Record<string, string>): Response {
  const headers = typeof runId === 'string' ? { [RUN_ID_HEADER]: runId } : runId;
  for (const [name, value] of Object.entries(headers)) response.headers.set(name, value);
  return response;
}

export function detailResponse(
  status: number,
  detail: string,
  headers: Record<string, string> = {},
): Response {
  return Response.json({ detail }, { status, headers });
}

/** The response for an error thrown by a handler. */
export function errorResponse(error: unknown, log: ErrorLog): Response {
  if (error instanceof HttpError) return detailResponse(error.status, error.detail, error.headers);
  if (isBackendOutage(error)) {
    // Temporary: say which backend and what failed, and when to try again (never a 500).
    outageLog(error.backend, errorMessage(error), log);
    return backendResponse(error);
  }
  const status = isDeckError(error) ? STATUS[error.code] : 500;
  if (error instanceof RateLimitedError) {
    const seconds = String(Math.max(1, Math.ceil(error.retryAfterMs / 1000)));
    return detailResponse(429, errorMessage(error), { 'retry-after': seconds });
  }
  if (status === 503) return detailResponse(503, `${errorMessage(error)}; not started`);
  if (status < 500) return detailResponse(status, errorMessage(error));
  log(`[agentdeck] request failed with ${errorTypeName(error)}: ${errorMessage(error)}`);
  return detailResponse(500, INTERNAL_ERROR);
}

/** How often an outage that keeps refusing requests is logged again, in ms. */
const OUTAGE_LOG_EVERY_MS = 30_000;
const outageLogged = new WeakMap<ErrorLog, { at: number; refused: number }>();

/**
 * Log a refusal for an outage: the first at once, then one line per 30 s with the count,
 * so a down database does not write a line per request. One count per log, whatever refused:
 * a request refused before its run, a run that failed for the outage (its `run.failed`), a
 * stream's or a JSON answer's.
 */
function outageLog(backend: string, message: string, log: ErrorLog): void {
  const now = Date.now();
  const last = outageLogged.get(log);
  if (last && now - last.at < OUTAGE_LOG_EVERY_MS) {
    last.refused += 1;
    return;
  }
  const since = last?.refused ? ` (${last.refused} more refused since the last line)` : '';
  outageLogged.set(log, { at: now, refused: 0 });
  log(`[agentdeck] refusing requests while ${backend} is out: ${message}${since}`);
}

/** What a run that failed because a backend was out answers: its status, by recorded error type. */
const OUTAGE_TYPES: Record<string, { status: number; retryAfter: number }> = {
  StoreUnavailableError: { status: 503, retryAfter: DEFAULT_RETRY_AFTER_SECONDS },
  StorageFullError: { status: 507, retryAfter: DEFAULT_RETRY_AFTER_SECONDS * 6 },
};

/**
 * Log a run that ended with `run.failed`: a failure for an outage (a session server down
 * mid-turn) as a refusal, at most one line per 30 s; any other failure at once, with its
 * message (`logLine`), which may hold secrets and goes to the server log only.
 */
export function logRunFailure(
  failed: { errorType: string; message: string },
  logLine: string,
  log: ErrorLog,
): void {
  if (OUTAGE_TYPES[failed.errorType]) outageLog('a backend', failed.message, log);
  else log(logLine);
}

/**
 * The JSON answer for a run that ended with `run.failed`: 503/507 with the recorded message
 * when a backend was out (a session server down mid-turn), else 500 `internal error` with
 * the failure logged (its message and stack may hold secrets). With the run's id, the 500
 * names the run (#41): `{"detail": "internal error", "run_id": "<id>"}` and `X-Run-Id`, so a
 * caller can open the run and read why it failed (its `run.failed`) where its role allows.
 */
export function failedRunResponse(
  failed: { errorType: string; message: string },
  logLine: string,
  log: ErrorLog,
  runId?: string,
): Response {
  const outage = OUTAGE_TYPES[failed.errorType];
  logRunFailure(failed, logLine, log);
  if (outage) {
    return detailResponse(outage.status, failed.message, {
      'retry-after': String(outage.retryAfter),
    });
  }
  if (runId === undefined) return detailResponse(500, INTERNAL_ERROR);
  return Response.json(
    { detail: INTERNAL_ERROR, run_id: runId },
    { status: 500, headers: { [RUN_ID_HEADER]: runId } },
  );
}

/**
 * The response for an error a run threw (`deck.answer()` continuing run `runId`): as
 * {@link errorResponse}, but a 500 names the run, as {@link failedRunResponse} does, and the
 * log line has the error's stack.
 */
export function runErrorResponse(error: unknown, log: ErrorLog, runId: string): Response {
  const internal =
    !(error instanceof HttpError) &&
    !isBackendOutage(error) &&
    (!isDeckError(error) || STATUS[error.code] === 500);
  if (!internal) return errorResponse(error, log);
  const failed = { errorType: errorTypeName(error), message: errorMessage(error) };
  const stack = stackOf(error);
  const line = `[agentdeck] run '${runId}' failed with ${failed.errorType}: ${failed.message}`;
  return failedRunResponse(failed, stack ? `${line}\n${stack}` : line, log, runId);
}

/** 503 (unreachable) or 507 (full) for a backend's failure, with `Retry-After`. */
export function backendResponse(error: StoreUnavailableError | StorageFullError): Response {
  return detailResponse(STATUS[error.code], errorMessage(error), {
    'retry-after': String(error.retryAfterSeconds),
  });
}
