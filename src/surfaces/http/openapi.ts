/**
 * `GET /openapi.json`: an OpenAPI 3.1 document of the mounted routes, generated from their
 * declarations (routes.ts) and the zod schemas that validate their requests. A named schema
 * (`.meta({ id })`, schemas.ts) is listed once under `components.schemas` and referenced, so
 * `openapi-typescript` names its types. The document passes `redocly lint` (recommended
 * rules, `redocly.yaml`); openapi.lint.test.ts checks it.
 *
 * `servers` is `[{ url: '/' }]`: the origin the document was read from. The service does
 * not know the address its clients see (a proxy may stand in front), and a relative URL
 * resolves against wherever the document was fetched.
 */
import { gateResponses, HEADERS, type Json, SchemaComponents, TAGS } from './openapi-components.js';
import type { ResponseHeader, ResponseSpec, Route, Tag } from './routes.js';

export interface OpenApiInfo {
  title: string;
  version: string;
  /** Whether routes other than the public ones require a bearer key. */
  secured: boolean;
}

export function openApiDocument(routes: readonly Route[], info: OpenApiInfo): Json {
  const components = new SchemaComponents();
  const headers = new Set<ResponseHeader>();
  const tags = new Set<Tag>();
  const paths: Record<string, Json> = {};
  for (const r of routes) {
    if (r.undocumented) continue;
    tags.add(r.tag);
    const operation: Json = { tags: [r.tag], summary: r.summary };
    if (r.description) operation.description = r.description;
    operation.operationId = operationId(r);
    const parameters = [...pathParameters(r.path), ...queryParameters(r.query, components)];
    if (parameters.length > 0) operation.parameters = parameters;
    if (r.body) {
      operation.requestBody = {
        required: !r.body.optional,
        description: r.body.description,
        content: { 'application/json': { schema: components.use(r.body.schema) } },
      };
    }
    const specs = { ...gateResponses(r, info.secured), ...r.responses };
    operation.responses = Object.fromEntries(
      Object.entries(specs).map(([status, spec]) => [status, response(spec, components, headers)]),
    );
    // The role each operation needs, as OpenAPI 3.1 allows a non-OAuth scheme to list them.
    if (r.role !== null) operation['x-role'] = r.role;
    if (info.secured)
      operation.security = r.public || r.role === null ? [] : [{ bearer: [r.role] }];
    // A run's events also open to the token of POST /runs/{run_id}/events-token, in the query.
    if (info.secured && r.queryToken) (operation.security as Json[]).push({ eventsToken: [] });
    paths[r.path] = { ...paths[r.path], [r.method]: operation };
  }
  const document: Json = {
    openapi: '3.1.0',
    info: {
      title: info.title,
      version: info.version,
      description: description(info.secured),
      license: { name: 'MIT', identifier: 'MIT' },
    },
    servers: [{ url: '/', description: 'The origin this document was read from.' }],
    // Stated either way: with no key configured, no route needs one.
    security: info.secured ? [{ bearer: [] }] : [],
    tags: (Object.keys(TAGS) as Tag[])
      .filter((tag) => tags.has(tag))
      .map((tag) => ({ name: tag, description: TAGS[tag] })),
    paths,
  };
  const componentsObject: Json = { schemas: sorted(components.schemas) };
  if (headers.size > 0) {
    componentsObject.headers = Object.fromEntries(
      [...headers].sort().map((name) => [name, HEADERS[name]]),
    );
  }
  if (info.secured) {
    componentsObject.securitySchemes = {
      bearer: {
        type: 'http',
        scheme: 'bearer',
        description:
          'A key of `SERVICE_API_KEYS` (or the `apiKeys` option), or a token the service verifies. ' +
          "An operation's scopes are the role it needs (`read`, `run`, `answer`, `control`, " +
          '`admin`; docs/roles.md): a caller without it gets 403 naming the role.',
      },
      eventsToken: {
        type: 'apiKey',
        in: 'query',
        name: 'access_token',
        description:
          "A five-minute token for one run's events from `POST /runs/{run_id}/events-token`, " +
          "for a browser's `EventSource`, which cannot send `Authorization`.",
      },
    };
  }
  document.components = componentsObject;
  return document;
}

function description(secured: boolean): string {
  return [
    'An agentdeck deck over HTTP: play agent turns and workflow runs, as JSON or, with ',
    '`?stream=true`, as server-sent events; answer the threads waiting for an answer; ',
    'pause, cancel and resume runs; read runs and their canonical events. The routes of ',
    'release 1.2.1 (the version above) answer as that release did; the others are additive. ',
    'Every error body is `{"detail": "<message>"}`. ',
    'The run inspector, a web page that reads and controls runs through these routes with ',
    'the same key, is served at `/ui` (`SERVICE_UI`); its files are not API routes and are ',
    'not listed here. ',
    secured
      ? 'Every route but `/health` and `/health/ready` needs `Authorization: Bearer <key>`, ' +
        'whose roles include the one the operation lists (`x-role`, and its `security` scopes).'
      : 'No API key is configured: every route is open, every caller has every role (`x-role`).',
  ].join('');
}

function response(spec: ResponseSpec, components: SchemaComponents, used: Set<ResponseHeader>) {
  const out: Json = { description: spec.description };
  if (spec.headers && spec.headers.length > 0) {
    for (const name of spec.headers) used.add(name);
    out.headers = Object.fromEntries(
      spec.headers.map((name) => [name, { $ref: `#/components/headers/${name}` }]),
    );
  }
  const content: Json = {};
  if (spec.schema) content['application/json'] = { schema: components.use(spec.schema) };
  if (spec.sse) {
    const frames = typeof spec.sse === 'string' ? { description: spec.sse } : {};
    content['text/event-stream'] = { schema: { type: 'string', ...frames } };
  }
  if (spec.text) content[spec.text] = { schema: { type: 'string' } };
  if (Object.keys(content).length > 0) out.content = content;
  return out;
}

function pathParameters(path: string): Json[] {
  return [...path.matchAll(/\{(\w+)\}/g)].map(([, name]) => ({
    name,
    in: 'path',
    required: true,
    schema: { type: 'string' },
  }));
}

function queryParameters(query: Route['query'], components: SchemaComponents): Json[] {
  if (!query) return [];
  const schema = components.use(query);
  const properties = (schema.properties ?? {}) as Record<string, Json>;
  const required = new Set((schema.required ?? []) as string[]);
  return Object.entries(properties).map(([name, property]) => {
    const { description, ...rest } = property;
    const parameter: Json = { name, in: 'query', required: required.has(name), schema: rest };
    if (description) parameter.description = description;
    return parameter;
  });
}

function operationId(r: Route): string {
  const words = r.path
    .replace(/\{(\w+)\}/g, 'by $1')
    .split(/[^A-Za-z0-9]+/)
    .filter(Boolean);
  return [r.method, ...words]
    .map((w, i) => (i === 0 ? w : w[0]?.toUpperCase() + w.slice(1)))
    .join('');
}

function sorted<T>(record: Record<string, T>): Record<string, T> {
  return Object.fromEntries(Object.entries(record).sort(([a], [b]) => (a < b ? -1 : 1)));
}
