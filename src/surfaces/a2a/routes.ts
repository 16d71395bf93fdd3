/**
 * The A2A routes (JSON-RPC binding; v1.0, and 0.3 through the SDK's compatibility layer): each
 * agent's card at `/a2a/{name}/.well-known/agent-card.json`, its endpoint `POST /a2a/{name}`,
 * and the service's card at `/.well-known/agent-card.json` (cards.ts). The JSON-RPC layer is
 * the SDK's own (`JsonRpcTransportHandler`, `LegacyJsonRpcTransportHandler`) over our request
 * handler; what is written here is the thin HTTP glue the SDK ships only for Express: the
 * `A2A-Version` header choosing v1.0 or 0.3 (card and endpoint), the call's context (headers,
 * the run context of the request), one JSON response or an SSE stream of JSON-RPC responses,
 * and a backend outage as the same 503 with Retry-After as every other route. The routes stand
 * behind the service's gate (host check, CORS, API keys); the endpoint starts and answers
 * runs, so with no keys it is for this machine's clients unless `openControl`.
 */
import {
  AgentCard,
  type AgentCard as AgentCardType,
  formatSSEErrorEvent,
  formatSSEEvent,
} from '@a2a-js/sdk';
import {
  LegacyJsonRpcTransportHandler,
  LegacyRestTransportHandler,
} from '@a2a-js/sdk/compat/v0_3/server';
import { VersionNotSupportedError } from '@a2a-js/sdk/errors';
import {
  type A2ARequestHandler,
  JsonRpcTransportHandler,
  ServerCallContext,
  STATE_HEADERS_KEY,
} from '@a2a-js/sdk/server';
import { z } from 'zod';
import type { Role } from '../../core/identity.js';
import type { HttpDeps } from '../http/deps.js';
import { unknownName } from '../http/deps.js';
import { errorResponse, HttpError } from '../http/errors.js';
import { jsonRpcRefusal } from '../http/json-body.js';
import { missingRole, type Route, route } from '../http/routes.js';
import { Detail } from '../http/schemas.js';
import type { CatalogDescription, DeckGrants } from '../http/served-deck.js';
import { sseResponse } from '../http/sse.js';
import {
  A2A_LEGACY_VERSION,
  A2A_VERSION,
  agentCard,
  type CardSettings,
  serviceCard,
} from './cards.js';
import { outageOf, RunRequestHandler, setRunContext } from './request-handler.js';

const SPEC = 'https://a2a-protocol.org/v1.0.0/specification/';

const CardBody = z
  .record(z.string(), z.unknown())
  .meta({ id: 'A2aAgentCard', description: `An A2A v1.0 AgentCard (${SPEC}#441-agentcard).` });
const JsonRpcRequest = z.record(z.string(), z.unknown()).meta({
  id: 'A2aJsonRpcRequest',
  description:
    `A JSON-RPC 2.0 request of A2A v1.0 (${SPEC}#9-json-rpc-protocol-binding): SendMessage, ` +
    'SendStreamingMessage, GetTask, ListTasks, CancelTask, SubscribeToTask.',
});
const JsonRpcResponse = z.record(z.string(), z.unknown()).meta({
  id: 'A2aJsonRpcResponse',
  description: 'A JSON-RPC 2.0 response: its `result`, or an `error` with an A2A error code.',
});

export interface A2aSettings {
  /** API keys are set: the cards ask for a Bearer token. */
  secured: boolean;
}

export function a2aRoutes(deps: HttpDeps, grants: DeckGrants, settings: A2aSettings): Route[] {
  const handlers = new Map<
    string,
    { transport: JsonRpcTransportHandler; legacy: LegacyJsonRpcTransportHandler }
  >();
  const catalog = async (): Promise<CatalogDescription> => {
    const described = await grants.catalog?.();
    if (!described) throw new HttpError(503, `deck '${deps.deck.name}' not started`);
    return described;
  };
  const agentOf = async (name: string) => {
    const described = await catalog();
    const agent = described.agents.find((a) => a.name === name);
    if (!agent) throw unknownName('agent', name, deps.deck.agents.keys());
    return { agent, skills: described.skills };
  };
  const cardSettings = (request: Request): CardSettings => ({
    origin: new URL(request.url).origin,
    secured: settings.secured,
  });
  const handlerOf = async (name: string) => {
    let entry = handlers.get(name);
    if (!entry) {
      const { agent, skills } = await agentOf(name);
      const card = agentCard(agent, skills, { origin: '', secured: settings.secured });
      const handler = new RunRequestHandler(deps, name, card);
      entry = {
        transport: new JsonRpcTransportHandler(handler),
        legacy: new LegacyJsonRpcTransportHandler(handler),
      };
      handlers.set(name, entry);
    }
    return entry;
  };
  const cardResponse = (card: AgentCardType) =>
    Response.json(AgentCard.toJSON(card), { headers: { 'cache-control': 'no-cache' } });

  return [
    route({
      method: 'get',
      path: '/.well-known/agent-card.json',
      role: 'read',
      summary: "The service's A2A card: a skill per agent",
      description:
        'Each skill is an agent: its id is the agent name, its own card is at ' +
        '`/a2a/{name}/.well-known/agent-card.json`. No endpoint of its own (`supportedInterfaces` is empty).',
      tag: 'a2a',
      responses: { 200: { description: 'An A2A AgentCard.', schema: CardBody } },
      async handle({ request }) {
        return cardResponse(serviceCard(deps.deck.name, await catalog(), cardSettings(request)));
      },
    }),
    route({
      method: 'get',
      path: '/a2a/{name}/.well-known/agent-card.json',
      role: 'read',
      summary: "An agent's A2A card",
      description:
        'Its name and description, a skill per tool and skill, streaming yes, push notifications no, ' +
        'its JSON-RPC endpoint, and the Bearer scheme when the service has API keys.',
      tag: 'a2a',
      responses: {
        200: { description: 'An A2A AgentCard.', schema: CardBody },
        404: { description: 'No agent by that name.', schema: Detail },
      },
      async handle({ params, request }) {
        const { agent, skills } = await agentOf(params.name ?? '');
        const card = agentCard(agent, skills, cardSettings(request));
        if (!isLegacy(request)) return cardResponse(card);
        // An A2A 0.3 client (no A2A-Version header): the card in 0.3's shape, by the SDK.
        const translator = new LegacyRestTransportHandler(cardOnly(card));
        const legacy = await translator.getAuthenticatedExtendedAgentCard(new ServerCallContext());
        return Response.json(legacy, {
          headers: { 'cache-control': 'no-cache', vary: 'A2A-Version' },
        });
      },
    }),
    route<Record<string, unknown>>({
      method: 'post',
      path: '/a2a/{name}',
      role: 'run',
      control: true,
      summary: "An agent's A2A endpoint (JSON-RPC)",
      description:
        `A2A v1.0 over JSON-RPC (${SPEC}) for a request with \`A2A-Version: 1.0\`; A2A 0.3 ` +
        '(`message/send`...) for one without the header or with `0.3`. A task is a run ' +
        '(the task id is the run id) and its context is the session. A run waiting for approval of a ' +
        'tool call is `TASK_STATE_INPUT_REQUIRED`; a message on that task with a data part ' +
        '`{"approved": true}` (or `false` and a `reason`) answers it.',
      tag: 'a2a',
      body: { schema: JsonRpcRequest, description: 'A JSON-RPC 2.0 request of A2A v1.0.' },
      malformedBody: jsonRpcRefusal,
      responses: {
        200: {
          description:
            'A JSON-RPC response; for SendStreamingMessage and SubscribeToTask, server-sent events.',
          schema: JsonRpcResponse,
          sse: 'One `data:` frame per JSON-RPC response (a task, then its status and artifact updates); `event: error` with a JSON-RPC error.',
        },
        404: { description: 'No agent by that name.', schema: Detail },
      },
      async handle({ params, body, request }) {
        const name = params.name ?? '';
        if (!deps.deck.agents.has(name)) throw unknownName('agent', name, deps.deck.agents.keys());
        const entry = await handlerOf(name);
        const version = request.headers.get('a2a-version');
        const legacy = isLegacy(request);
        const transport = legacy ? entry.legacy : entry.transport;
        const mapError = legacy
          ? LegacyJsonRpcTransportHandler.mapToLegacyJSONRPCError
          : JsonRpcTransportHandler.mapToJSONRPCError;
        const context = new ServerCallContext({
          requestedVersion: version ?? '',
          state: new Map([[STATE_HEADERS_KEY, headersOf(request)]]),
        });
        const id = (body.id as string | number | null | undefined) ?? null;
        if (version !== A2A_VERSION && !legacy) {
          const error = new VersionNotSupportedError(
            `A2A-Version '${version}' is not served: this endpoint speaks A2A ${A2A_VERSION} ` +
              `(A2A-Version: ${A2A_VERSION}) and ${A2A_LEGACY_VERSION} (no header, or A2A-Version: ${A2A_LEGACY_VERSION})`,
          );
          return Response.json({
            jsonrpc: '2.0',
            id,
            error: JsonRpcTransportHandler.mapToJSONRPCError(error),
          });
        }
        const refused = missingRole(request, roleOfCall(body));
        if (refused) return refused;
        // Aborted when an SSE client goes away: a subscription stops following the log.
        const left = new AbortController();
        setRunContext(context, await deps.runContext(request), left.signal);
        const answer = await transport.handle(body, context);
        const outage = outageOf(context);
        if (outage) return errorResponse(outage, deps.log);
        if (!(Symbol.asyncIterator in answer)) return Response.json(answer);
        // A stream: its first response decides between an error answered as JSON and the SSE.
        const iterator = answer[Symbol.asyncIterator]();
        let first: IteratorResult<unknown>;
        try {
          first = await iterator.next();
        } catch (error) {
          const down = outageOf(context);
          if (down) return errorResponse(down, deps.log);
          return Response.json({
            jsonrpc: '2.0',
            id,
            error: mapError(error),
          });
        }
        return sseResponse(frames(first, iterator, id, mapError), () => left.abort());
      },
    }),
  ];
}

/** The SSE frames of a JSON-RPC stream; an error after the first ends it with `event: error`. */
async function* frames(
  first: IteratorResult<unknown>,
  rest: AsyncIterator<unknown>,
  id: string | number | null,
  mapError: (error: unknown) => unknown,
): AsyncGenerator<string, void, undefined> {
  if (first.done) return;
  yield formatSSEEvent(first.value);
  try {
    for (;;) {
      const next = await rest.next();
      if (next.done) return;
      yield formatSSEEvent(next.value);
    }
  } catch (error) {
    yield formatSSEErrorEvent({ jsonrpc: '2.0', id, error: mapError(error) });
  } finally {
    // The client left (or the stream ended): stop reading the bus; the run goes on.
    await rest.return?.();
  }
}

/** The request's headers as the SDK's call context keeps them. */
function headersOf(request: Request): Record<string, string> {
  const out: Record<string, string> = {};
  request.headers.forEach((value, key) => {
    out[key] = value;
  });
  return out;
}

/** A request of an A2A 0.3 client: no `A2A-Version` header (A2A 0.3 had none), or 0.3. */
function isLegacy(request: Request): boolean {
  const version = request.headers.get('a2a-version');
  return version === null || version === A2A_LEGACY_VERSION;
}

/**
 * A request handler that has only a card (this one, with the request's origin): what the SDK's
 * 0.3 card translation reads. Its public path to that translation is the extended card of its
 * REST handler, which reads the handler's extended card and nothing else.
 */
function cardOnly(card: AgentCardType): A2ARequestHandler {
  return new Proxy({} as A2ARequestHandler, {
    get: (_target, key) =>
      key === 'getAuthenticatedExtendedAgentCard'
        ? async () => card
        : () => {
            throw new Error(
              `the 0.3 card translation called ${String(key)}: only the card is given`,
            );
          },
  });
}

/**
 * The role a JSON-RPC call needs beyond the route's `run`: cancelling a task is `control`, and
 * a message naming a task answers its held tool call, `answer` (as over HTTP); `null`: none.
 */
function roleOfCall(body: Record<string, unknown>): Role | null {
  const method = typeof body.method === 'string' ? body.method : '';
  if (method === 'CancelTask' || method === 'tasks/cancel') return 'control';
  const params = body.params as { message?: { taskId?: unknown } } | undefined;
  const sends = ['SendMessage', 'SendStreamingMessage', 'message/send', 'message/stream'];
  return sends.includes(method) && params?.message?.taskId ? 'answer' : null;
}
