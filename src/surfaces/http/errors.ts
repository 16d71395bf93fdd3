/**
 * The one place errors become HTTP responses (WIRE.md "General"): every body is
 * `{"detail": "<message>"}`. A DeckError's `code` picks the status; anything else, and any
 * failure inside a run, is 500 `internal error`, its message written to the server log only
 * (it may hold secrets).
 */
import { DeckError, type DeckErrorCode, errorMessage, errorTypeName } from '../../core/errors.js';

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
  run_failed: 500,
  run_cancelled: 500,
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
  const status = error instanceof DeckError ? STATUS[error.code] : 500;
  if (status === 503) return detailResponse(503, `${errorMessage(error)}; not started`);
  if (status < 500) return detailResponse(status, errorMessage(error));
  log(`[agentdeck] request failed with ${errorTypeName(error)}: ${errorMessage(error)}`);
  return detailResponse(500, INTERNAL_ERROR);
}
