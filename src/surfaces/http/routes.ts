/**
 * A route is declared once: method, path, the zod schemas of its query and body, and its
 * responses. `mount()` validates requests with those schemas before the handler runs, and
 * `openApiDocument()` (openapi.ts) describes the same routes from the same schemas, so the
 * document and the checks cannot drift apart.
 */
import type { Context, Hono } from 'hono';
import type { z } from 'zod';
import type { Role } from '../../core/identity.js';
import { idProblem } from '../../core/ids.js';
import { detailResponse, HttpError } from './errors.js';
import { identityOf } from './identity.js';
import { check, MalformedJsonError, readJsonObject, requireJsonType } from './json-body.js';
import { withRequestTenant } from './tenancy.js';

/** The tag grouping a route in the document (openapi-components.ts describes each). */
export type Tag =
  | 'health'
  | 'caller'
  | 'agents'
  | 'workflows'
  | 'runs'
  | 'control'
  | 'timers'
  | 'schedules'
  | 'studio'
  | 'evals'
  | 'metrics'
  | 'openapi'
  | 'native'
  | 'openai'
  | 'mcp'
  | 'a2a'
  | 'auth';

/** A response header the surface sets (openapi-components.ts describes each). */
export type ResponseHeader = 'X-Run-Id' | 'Retry-After' | 'WWW-Authenticate' | 'Location';

export interface ResponseSpec {
  description: string;
  /** The JSON body's schema (omitted: described in prose only). */
  schema?: z.ZodType;
  /**
   * The response is (or, with `schema` too, can be) an SSE stream (`text/event-stream`); a
   * string describes its frames.
   */
  sse?: boolean | string;
  /** The response is text of this media type (`text/plain; version=0.0.4`), not JSON. */
  text?: string;
  /** Headers this response carries. */
  headers?: readonly ResponseHeader[];
}

export interface RouteInput<B, Q> {
  /** Path parameters, already URI-decoded. */
  params: Record<string, string>;
  body: B;
  query: Q;
  request: Request;
  /**
   * The refusal a `control` route needing `role` would give this request (`null`: allowed),
   * for a route whose requests change state beyond 1.2.1 only sometimes (a chat message that
   * answers a held tool call needs `answer` as well as the route's own role).
   */
  controlRefusal(role: Role): Response | null;
}

/**
 * A route. Its `responses` are its own; the document adds those of the gate in front of
 * every route (openapi-components.ts `gateResponses`: 401, 403, 413, 415, 422, 429, 500, 503,
 * 507), so a route declares only what its handler decides (or a more precise wording of those).
 */
export interface Route<B = unknown, Q = unknown> {
  method: 'get' | 'post' | 'delete';
  /** OpenAPI form: `/agents/{name}/chat`. */
  path: string;
  summary: string;
  description?: string;
  tag: Tag;
  query?: z.ZodType<Q>;
  body?: { schema: z.ZodType<B>; description: string; optional?: boolean };
  /**
   * How a body that is not JSON, or not what `body.schema` says, is answered (a JSON-RPC
   * endpoint answers a JSON-RPC error: `jsonRpcRefusal`). @default the 422 of WIRE.md
   */
  malformedBody?: (kind: 'parse' | 'invalid', detail: string) => Response;
  responses: Record<number, ResponseSpec>;
  /**
   * Answered but left out of the OpenAPI document: a method a protocol's clients try only to
   * learn it is not offered (`GET /mcp`, 405), which has no success to document.
   */
  undocumented?: boolean;
  /**
   * The role a caller needs (core/identity.ts): `mount()` answers 403 naming it to a caller
   * without it, and the document lists it as the operation's `security` scope. `null` only
   * for a `public` route, which needs no identity at all.
   */
  role: Role | null;
  /**
   * The gate also accepts a run's events token in the `access_token` query parameter
   * (events-token.ts); the document lists it as another way in.
   */
  queryToken?: boolean;
  /** Served without an API key, and before the deck is open (the health probes). */
  public?: boolean;
  /**
   * Beyond release 1.2.1 and changes state (answers, timers, schedules): with no API keys,
   * refused to clients beyond loopback unless `openControl` (build.ts).
   */
  control?: boolean;
  handle(input: RouteInput<B, Q>, c: Context): Response | Promise<Response>;
}

/** Declare a route; the handler's `body` and `query` take the schemas' types. */
export function route<B = undefined, Q = undefined>(spec: Route<B, Q>): Route {
  return spec as unknown as Route;
}

/**
 * Register each route on the Hono app, refusing a caller without the route's role (403),
 * then validating its query and body; `refuseControl` answers a `control` route's request
 * it refuses.
 */
export function mount(
  app: Hono,
  routes: readonly Route[],
  refuseControl: (c: Context) => Response | null = () => null,
): void {
  for (const spec of routes) {
    if (spec.role === null && !spec.public) {
      throw new Error(`route ${spec.method.toUpperCase()} ${spec.path} declares no role`);
    }
    const honoPath = spec.path.replace(/\{(\w+)\}/g, ':$1');
    app.on(spec.method.toUpperCase(), honoPath, async (c) => {
      const missing = spec.public ? null : missingRole(c.req.raw, spec.role);
      if (missing) return missing;
      const refused = spec.control ? refuseControl(c) : null;
      if (refused) return refused;
      // Every POST changes state: refuse what a cross-site form could send (json-body.ts).
      if (spec.method === 'post') requireJsonType(c.req.header('content-type'));
      const params = c.req.param() as Record<string, string>;
      checkIdParams(params);
      const query = spec.query ? check(spec.query, c.req.query(), 'query parameter') : undefined;
      let body: unknown;
      if (spec.body) {
        try {
          const raw = await readJsonObject(c.req.raw, spec.body.optional ?? false);
          body = raw === undefined ? undefined : check(spec.body.schema, raw);
        } catch (error) {
          const refuse = spec.malformedBody;
          if (!refuse || !(error instanceof HttpError) || error.status !== 422) throw error;
          return refuse(error instanceof MalformedJsonError ? 'parse' : 'invalid', error.detail);
        }
      }
      const controlRefusal = (role: Role) => missingRole(c.req.raw, role) ?? refuseControl(c);
      // Everything the handler calls acts as the request's tenant (tenancy.ts).
      const input = { params, body, query, request: c.req.raw, controlRefusal };
      return withRequestTenant(c.req.raw, () => spec.handle(input, c));
    });
  }
}

/**
 * The 403 for a caller without `role` (`null`: it has it). The body names the role and the
 * route, never the caller's credentials; under `/v1` build.ts rewrites it in OpenAI's shape.
 */
export function missingRole(request: Request, role: Role | null): Response | null {
  if (role === null || identityOf(request).roles.has(role)) return null;
  const { pathname } = new URL(request.url);
  return detailResponse(
    403,
    `the '${role}' role is needed for ${request.method} ${pathname}; ` +
      'the credentials sent do not grant it',
  );
}

/**
 * A path's ids (`run_id`, `thread_id`, `session_id`) by core/ids.ts's rule: 422 naming the
 * parameter, before any store sees it (Postgres cannot look up a NUL, nor index a long id).
 */
function checkIdParams(params: Record<string, string>): void {
  for (const [name, value] of Object.entries(params)) {
    if (!name.endsWith('_id')) continue;
    const problem = idProblem(value);
    if (problem !== null) throw new HttpError(422, `path parameter '${name}': ${problem}`);
  }
}
