/**
 * The MCP server of one request: the SDK's low-level `Server` with the two methods `/mcp`
 * answers, `tools/list` and `tools/call` (the SDK does the JSON-RPC, the version handshake of
 * either revision, and the shape checks of every message). The low-level server, not
 * `McpServer`, because a tool's input schema is the workflow state's JSON schema as the catalog
 * gives it, and because an unknown tool must be a tool error the calling model can read (the
 * issue's rule; McpServer answers a protocol error). Every failure of a call is a tool error
 * (`isError`) naming what was wrong; a backend that is down also marks the request's scope,
 * for the route to answer 503 as every other route does (endpoint.ts). A call needs the role
 * of what it does (tools.ts: an agent or workflow `run`, `answer_run` `answer`, the readers
 * `read`); without it the request is a 403 naming the role, as on every other route.
 */
import { createRequire } from 'node:module';
import { Server } from '@modelcontextprotocol/server';
import { errorMessage, errorTypeName, isBackendOutage, isDeckError } from '../../core/errors.js';
import type { HttpDeps } from '../http/deps.js';
import { detailResponse, errorResponse, failedRunResponse } from '../http/errors.js';
import { identityOf } from '../http/identity.js';
import { failureLine } from '../http/run-results.js';
import { type CallLimits, OutageFailedRun, type ProgressSink } from './calls.js';
import { errorResult, type ToolResult } from './codec.js';
import { callAgent, callWorkflow, type ToolArguments } from './run-tools.js';
import { answerRun, getRun, listPending, type Served } from './service-tools.js';
import type { CatalogTool } from './tools.js';

/** What a tool call needs of its HTTP request: the run context comes from it. */
export interface CallScope {
  request: Request;
  /**
   * Set when a backend was down during the call (the 503 or 507 every route answers then), or
   * when the caller lacks the tool's role (403 naming it), which the route sends instead of the
   * tool error when its answer has not begun.
   */
  outage: (() => Response) | null;
}

export interface ServerParts {
  deps: HttpDeps;
  tools: readonly CatalogTool[];
  waitMs: number;
  /** The HTTP request being served (its scope), or `null` outside one. */
  scope(): CallScope | null;
}

/** A factory of per-request servers, as the SDK's serving entries take. */
export function mcpServerFactory(parts: ServerParts): () => Server {
  const byName = new Map(parts.tools.map((tool) => [tool.name, tool]));
  const served: Served = new Map(
    parts.tools.flatMap((t) => (t.kind === 'service' ? [] : [[t.name, t.kind] as const])),
  );
  const listed = parts.tools.map(({ name, description, inputSchema }) => ({
    name,
    description,
    inputSchema: inputSchema as { type: 'object'; [key: string]: unknown },
  }));
  // The implementation a client is told of: the deck, served by this agentdeck.
  const info = {
    name: parts.deps.deck.name,
    title: `${parts.deps.deck.name} (agentdeck)`,
    version: agentdeckVersion(),
  };
  return () => {
    const server = new Server(info, {
      capabilities: { tools: {} },
      instructions:
        "Each agent and workflow of this service is a tool. A call that does not end within the server's wait " +
        'answers {"status": "running", "run_id"}: follow it with get_run. A run waiting for a person ' +
        '(status waiting_human) is answered with answer_run; list_pending lists them all.',
    });
    server.setRequestHandler('tools/list', () => ({ tools: listed }));
    server.setRequestHandler('tools/call', async (request, ctx) => {
      const { name } = request.params;
      const args = (request.params.arguments ?? {}) as ToolArguments;
      const token = ctx.mcpReq._meta?.progressToken;
      const progress: ProgressSink | null =
        token === undefined
          ? null
          : (n, message) =>
              ctx.mcpReq.notify({
                method: 'notifications/progress',
                params: { progressToken: token, progress: n, message },
              });
      const limits: CallLimits = { waitMs: parts.waitMs, progress, log: parts.deps.log };
      const scope = parts.scope();
      try {
        if (!scope) throw new Error('an MCP tool call outside the HTTP request that carries it');
        const tool = byName.get(name);
        if (!tool) return unknownTool(name, parts.tools);
        if (!identityOf(scope.request).roles.has(tool.role)) {
          const refusal = `the '${tool.role}' role is needed to call tool '${name}'; the credentials sent do not grant it`;
          scope.outage = () =>
            detailResponse(403, refusal, {
              'www-authenticate': `Bearer error="insufficient_scope", scope="${tool.role}"`,
            });
          return errorResult(refusal);
        }
        return await call(parts.deps, tool, args, scope.request, { limits, served });
      } catch (error) {
        const { log } = parts.deps;
        if (isBackendOutage(error)) {
          if (scope) scope.outage = () => errorResponse(error, log);
          return errorResult(errorMessage(error));
        }
        if (error instanceof OutageFailedRun) {
          const { failed } = error;
          if (scope)
            scope.outage = () => failedRunResponse(failed.payload, failureLine(failed), log);
          return errorResult(`run ${failed.runId} failed: ${failed.payload.message}`, {
            run_id: failed.runId,
            status: 'failed',
          });
        }
        return toolError(name, error, parts.deps);
      }
    });
    return server;
  };
}

/** This package's version (its package.json is three folders up, from `src/` and `dist/` alike). */
function agentdeckVersion(): string {
  const pkg = createRequire(import.meta.url)('../../../package.json') as { version?: unknown };
  return typeof pkg.version === 'string' ? pkg.version : 'unknown';
}

function call(
  deps: HttpDeps,
  tool: CatalogTool,
  args: ToolArguments,
  request: Request,
  { limits, served }: { limits: CallLimits; served: Served },
): Promise<ToolResult> {
  switch (tool.name) {
    case 'get_run':
      return getRun(deps, served, args);
    case 'list_pending':
      return listPending(deps, served, args);
    case 'answer_run':
      return answerRun(deps, served, args, request, limits);
  }
  return tool.kind === 'agent'
    ? callAgent(deps, tool, args, request, limits)
    : callWorkflow(deps, tool, args, request, limits);
}

function unknownTool(name: string, tools: readonly CatalogTool[]): ToolResult {
  return errorResult(
    `no tool named '${name}'; this server's tools are ${tools.map((t) => `'${t.name}'`).join(', ')}`,
  );
}

/**
 * A refused call (a bad argument, an unknown run, a busy session) says why; anything else
 * failed inside the service, and its message, which may hold secrets, goes to the server log.
 */
function toolError(name: string, error: unknown, deps: HttpDeps): ToolResult {
  if (
    isDeckError(error) &&
    ['not_found', 'conflict', 'invalid_input', 'block_too_large'].includes(error.code)
  ) {
    return errorResult(errorMessage(error));
  }
  deps.log(
    `[agentdeck] MCP tool '${name}' failed with ${errorTypeName(error)}: ${errorMessage(error)}`,
  );
  return errorResult(
    `tool '${name}' failed with ${errorTypeName(error)} (details in the server log)`,
  );
}
