/**
 * Errors in the OpenAI API's shape, `{"error": {"message", "type", "param", "code"}}`, for
 * every `/v1` answer, so an OpenAI client raises its own error classes (`NotFoundError`,
 * `BadRequestError`...) with our message. The routes throw {@link OpenAiError} where they
 * know the parameter and code; everything else, the gate's answers included (401, 503 not
 * started, 413, 415, 429) and the HTTP surface's own errors (a busy session's 409, a backend's
 * 503 with `Retry-After`), is answered by the HTTP surface as `{"detail"}` and rewritten here
 * with the same status and headers (`openAiErrorShape`, which `build.ts` puts in front of
 * `/v1`). OpenAI answers a bad request with 400 where agentdeck says 422: on `/v1`, 400.
 */
import type { Context, MiddlewareHandler } from 'hono';
import { HttpError } from '../http/errors.js';

/** Where the OpenAI surface is mounted; its answers, errors included, are in OpenAI's shape. */
export const OPENAI_PREFIX = '/v1';

export interface OpenAiErrorBody {
  error: { message: string; type: string; param: string | null; code: string | null };
}

/** An error a `/v1` route answers, with the parameter it is about and OpenAI's code. */
export class OpenAiError extends HttpError {
  constructor(
    status: number,
    message: string,
    readonly param: string | null = null,
    readonly code: string | null = null,
    headers: Record<string, string> = {},
  ) {
    super(status, message, headers);
    this.name = 'OpenAiError';
  }
}

/** OpenAI's `type` for each status this surface answers. */
function typeOf(status: number): string {
  if (status === 401) return 'authentication_error';
  if (status === 403) return 'permission_error';
  if (status === 404) return 'not_found_error';
  if (status === 409) return 'conflict_error';
  if (status === 429) return 'rate_limit_error';
  if (status === 503) return 'service_unavailable_error';
  if (status >= 500) return 'server_error';
  return 'invalid_request_error';
}

/** The code OpenAI's clients know, where one fits the status. */
function codeOf(status: number): string | null {
  if (status === 401) return 'invalid_api_key';
  if (status === 409) return 'session_busy';
  if (status === 503) return 'service_unavailable';
  return null;
}

/** The parameter a message of `json-body.ts` names (`field 'messages.0.role' must be...`). */
function paramOf(message: string): string | null {
  const match = /(?:field|parameter)(?::| '|\s)\s*'?([\w.[\]-]+)/.exec(message);
  return match?.[1] ?? null;
}

/** An OpenAI-shaped error response. */
export function openAiErrorResponse(
  status: number,
  message: string,
  options: { param?: string | null; code?: string | null; headers?: HeadersInit } = {},
): Response {
  const body: OpenAiErrorBody = {
    error: {
      message,
      type: typeOf(status),
      param: options.param ?? null,
      code: options.code ?? codeOf(status),
    },
  };
  return Response.json(body, { status, headers: options.headers ?? {} });
}

/**
 * Middleware for `/v1/*`: an answer with agentdeck's `{"detail"}` body becomes OpenAI's
 * shape, with the same headers (`Retry-After`, `WWW-Authenticate`, `X-Run-Id`) and the
 * status (a 422 as 400). An {@link OpenAiError} keeps its parameter and code.
 */
export function openAiErrorShape(): MiddlewareHandler {
  return async (c: Context, next) => {
    await next();
    const response = c.res;
    if (response.status < 400) return;
    if (!(response.headers.get('content-type') ?? '').startsWith('application/json')) return;
    const body = (await response
      .clone()
      .json()
      .catch(() => null)) as { detail?: unknown } | null;
    if (typeof body?.detail !== 'string') return;
    const status = response.status === 422 ? 400 : response.status;
    const headers = new Headers(response.headers);
    headers.delete('content-length');
    const error = c.error;
    const known = error instanceof OpenAiError ? error : null;
    c.res = undefined; // Hono keeps a replaced response's headers unless it is cleared first
    c.res = openAiErrorResponse(status, body.detail, {
      param: known ? known.param : paramOf(body.detail),
      code: known ? known.code : codeOf(status),
      headers,
    });
  };
}
