/**
 * Request bodies and queries, read and checked against the route's zod schema, with the
 * 422 messages of WIRE.md: `missing field: <name>`, `field 'message' must be a string, got
 * number`, and a body that is not JSON or not an object.
 */
import type { z } from 'zod';
import { HttpError } from './errors.js';

/**
 * Refuse a request body sent as anything but JSON (415). A browser page on another origin can
 * send `text/plain`, a form or `multipart` without asking first (no CORS preflight); only a
 * JSON content type makes it ask, so refusing the others keeps such a page from starting a run.
 * A request that names no type is read as JSON, as release 1.2.1 read it.
 */
export function requireJsonType(contentType: string | undefined): void {
  const media = (contentType ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
  if (media === '' || media === 'application/json' || /^application\/[\w.+-]+\+json$/.test(media)) {
    return;
  }
  throw new HttpError(
    415,
    `the request body must be JSON sent with Content-Type: application/json, got '${media}'`,
  );
}

/** A request body that is not JSON at all (a route answering JSON-RPC says "parse error"). */
export class MalformedJsonError extends HttpError {}

/**
 * The answer of a JSON-RPC endpoint (`/mcp`, A2A) to a body it cannot take, as JSON-RPC 2.0
 * says: `-32700` for one that is not JSON, `-32600` for JSON that is not a request, with no
 * id (none could be read), status 400.
 */
export function jsonRpcRefusal(kind: 'parse' | 'invalid', detail: string): Response {
  const error =
    kind === 'parse'
      ? { code: -32700, message: `Parse error: ${detail}` }
      : { code: -32600, message: `Invalid Request: ${detail}` };
  return Response.json({ jsonrpc: '2.0', id: null, error }, { status: 400 });
}

/** Read the body as a JSON object; an empty body is `undefined` when `optional`. */
export async function readJsonObject(
  request: Request,
  optional: boolean,
): Promise<Record<string, unknown> | undefined> {
  let text: string;
  try {
    text = await request.text();
  } catch (error) {
    // The client left mid-body, or was cut for sending it too slowly (serve()'s request
    // timeout): no one to answer, and no server failure to log.
    if (request.signal.aborted || (error as { code?: unknown }).code === 'ECONNRESET') {
      throw new HttpError(400, 'the request body did not arrive whole');
    }
    throw error;
  }
  if (text.trim() === '') {
    if (optional) return undefined;
    throw new HttpError(422, 'the request body must be a JSON object, got an empty body');
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new MalformedJsonError(422, 'the request body is not valid JSON');
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new HttpError(422, `the request body must be a JSON object, got ${typeName(value)}`);
  }
  return value as Record<string, unknown>;
}

/** Parse `value` with `schema`, or throw a 422 naming the first wrong field. */
export function check<T>(schema: z.ZodType<T>, value: unknown, what = 'field'): T {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const [issue] = result.error.issues;
  if (!issue) throw new HttpError(422, 'invalid request');
  const path = issue.path.map(String).join('.');
  if (isMissing(value, issue.path)) throw new HttpError(422, `missing ${what}: ${path}`);
  if (issue.code === 'unrecognized_keys') {
    const names = issue.keys.map((key) => (path === '' ? key : `${path}.${key}`));
    throw new HttpError(422, `unknown ${what}${names.length > 1 ? 's' : ''}: ${names.join(', ')}`);
  }
  if (issue.code === 'invalid_type') {
    const got = typeName(valueAt(value, issue.path));
    throw new HttpError(
      422,
      `${what} '${path}' must be ${expectedType(issue.expected)}, got ${got}`,
    );
  }
  throw new HttpError(422, `${what} '${path}': ${issue.message}`);
}

/** zod's expected type with its article: `a string`, `an object`; `int` reads `a whole number`. */
function expectedType(expected: string): string {
  if (expected === 'int') return 'a whole number';
  return /^[aeiou]/.test(expected) ? `an ${expected}` : `a ${expected}`;
}

function isMissing(root: unknown, path: readonly PropertyKey[]): boolean {
  if (path.length === 0) return false;
  const parent = valueAt(root, path.slice(0, -1));
  const key = path.at(-1) as PropertyKey;
  return typeof parent === 'object' && parent !== null && !(key in parent);
}

function valueAt(root: unknown, path: readonly PropertyKey[]): unknown {
  let value = root;
  for (const key of path) {
    if (typeof value !== 'object' || value === null) return undefined;
    value = (value as Record<PropertyKey, unknown>)[key];
  }
  return value;
}

/** A JSON value's type, in JSON's words. */
export function typeName(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'object') return 'object';
  return typeof value;
}
