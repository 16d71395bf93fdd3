/**
 * `POST /mcp`: the MCP server endpoint (Streamable HTTP), stateless, in both protocol
 * revisions clients speak: 2026-07-28 (per-request `_meta` envelope, `server/discover`, the
 * `Mcp-Method`/`Mcp-Name` headers) through the SDK's `createMcpHandler`, and 2025-11-25 (an
 * `initialize` handshake, then one POST per message) through the SDK's own Streamable HTTP
 * transport, routed by the SDK's `isLegacyRequest`. Each request gets a fresh server from the
 * same factory (server.ts), so any process serving the deck answers any request.
 *
 * Why the 2025 leg is wired here rather than left to the SDK's stateless fallback: the
 * fallback always answers over SSE, which starts a 200 before a tool runs, so a backend that
 * is down could only be a tool error. Here a 2025 call answers plain JSON unless the client
 * asked for progress (a `progressToken`), as the 2026 leg does by itself ('auto'): a backend
 * down during the call is then the same 503 with `Retry-After` as on every route. The key gate,
 * the `Host` check and the Origin check against the CORS setting are the app's, in front of
 * every route (build.ts).
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import {
  createMcpHandler,
  isLegacyRequest,
  WebStandardStreamableHTTPServerTransport,
} from '@modelcontextprotocol/server';
import { z } from 'zod';
import type { HttpDeps } from '../http/deps.js';
import { detailResponse } from '../http/errors.js';
import { jsonRpcRefusal } from '../http/json-body.js';
import { type Route, route } from '../http/routes.js';
import { Detail } from '../http/schemas.js';
import type { McpSettings } from './options.js';
import { type CallScope, mcpServerFactory } from './server.js';
import { catalogTools } from './tools.js';

const SPEC = 'https://modelcontextprotocol.io/specification/2025-11-25/basic/transports';

const McpMessage = z
  .looseObject({
    jsonrpc: z.literal('2.0'),
    id: z.union([z.string(), z.number()]).optional(),
    method: z.string().optional(),
    params: z.record(z.string(), z.unknown()).optional(),
  })
  .meta({
    id: 'McpMessage',
    description: `A JSON-RPC 2.0 message of the Model Context Protocol, revision 2025-11-25 or 2026-07-28: see ${SPEC}.`,
  });

/** The `/mcp` routes for `settings` (none when the endpoint is off). */
export function mcpRoutes(deps: HttpDeps, settings: McpSettings): Route[] {
  if (!settings.enabled) return [];
  const scopes = new AsyncLocalStorage<CallScope>();
  const factory = mcpServerFactory({
    deps,
    tools: catalogTools(deps.deck, settings),
    waitMs: settings.waitSeconds * 1000,
    scope: () => scopes.getStore() ?? null,
  });
  const onerror = (error: Error) => deps.log(`[agentdeck] MCP endpoint: ${error.message}`);
  const modern = createMcpHandler(factory, { legacy: 'reject', onerror });

  /** A 2025-11-25 message: JSON unless the client asked for progress, which needs SSE. */
  async function legacy(request: Request, body: unknown): Promise<Response> {
    const server = factory();
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: undefined,
      enableJsonResponse: !wantsProgress(body),
    });
    await server.connect(transport);
    const close = () => void server.close().catch(() => {});
    request.signal.addEventListener('abort', close, { once: true });
    const response = await transport.handleRequest(request, { parsedBody: body });
    if (!isStream(response)) close();
    return response;
  }

  return [
    route<z.infer<typeof McpMessage>>({
      method: 'post',
      path: '/mcp',
      // Enough to list the tools; each tool call needs its own role too (tools.ts).
      role: 'read',
      summary: 'The MCP server: every served agent and workflow as a tool',
      description:
        'Streamable HTTP, stateless, protocol revisions 2025-11-25 (with `initialize`) and ' +
        '2026-07-28. Tools: one per agent (`{message, session_id?}`), one per workflow (its ' +
        'state fields and `thread_id`), and `get_run`, `list_pending`, `answer_run`. Bodies ' +
        `and answers are JSON-RPC as the MCP specification defines them (${SPEC}): a notification ` +
        'is answered 202 with no body, a message MCP refuses 400 (or 406 for an `Accept` header ' +
        'allowing neither JSON nor SSE) with a JSON-RPC error body. A guide: docs/mcp-server.md.',
      tag: 'mcp',
      body: {
        schema: McpMessage,
        description: 'One JSON-RPC message (a request or a notification).',
      },
      malformedBody: jsonRpcRefusal,
      responses: {
        200: {
          description:
            'The JSON-RPC response: `application/json`, or `text/event-stream` when the call sends progress notifications first.',
          schema: McpMessage,
          sse: 'JSON-RPC messages: `notifications/progress` for the call, then its response.',
        },
      },
      async handle({ body, request }) {
        const scope: CallScope = { request, outage: null };
        const response = await scopes.run(scope, async () =>
          (await isLegacyRequest(request, body))
            ? legacy(request, body)
            : modern.fetch(request, { parsedBody: body }),
        );
        // A backend down before the answer began: 503 with Retry-After, as on every route.
        if (scope.outage !== null && !isStream(response)) return scope.outage();
        return response;
      },
    }),
    route({
      method: 'get',
      path: '/mcp',
      role: 'read',
      summary: 'No server-initiated stream: the MCP endpoint is stateless',
      tag: 'mcp',
      undocumented: true,
      responses: {
        405: { description: 'Always: POST each message to `/mcp`.', schema: Detail },
      },
      handle: () =>
        detailResponse(
          405,
          'GET /mcp opens no stream: this MCP server is stateless; POST each message to /mcp',
          { allow: 'POST' },
        ),
    }),
  ];
}

function wantsProgress(body: unknown): boolean {
  const params = (body as { params?: { _meta?: { progressToken?: unknown } } }).params;
  return params?._meta?.progressToken !== undefined;
}

function isStream(response: Response): boolean {
  return (response.headers.get('content-type') ?? '').startsWith('text/event-stream');
}
