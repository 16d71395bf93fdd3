/**
 * The shared parts of `/openapi.json`: the named schemas (`components.schemas`, from the
 * zod schemas' `.meta({ id })` in schemas.ts), the response headers, the tags, and the
 * responses every route can give because of what stands in front of its handler (the gate
 * of build.ts, the body reader, the error mapping of errors.ts). openapi.ts assembles them.
 */
import { z } from 'zod';
import { OPENAI_PREFIX } from '../openai/errors.js';
import { OpenAiErrorSchema } from '../openai/schemas.js';
import type { ResponseHeader, ResponseSpec, Route, Tag } from './routes.js';
import { Detail } from './schemas.js';

export type Json = Record<string, unknown>;

const SCHEMAS = '#/components/schemas/';

export const TAGS: Record<Tag, string> = {
  health: 'Liveness and readiness probes (no API key needed).',
  caller: "Who the caller is, its roles, and a short-lived token for a browser's event stream.",
  agents: 'Agent turns, as JSON or server-sent events.',
  workflows: 'Workflow runs, the threads waiting for an answer, and their answers.',
  runs: 'Recent runs, one run, and its canonical events.',
  control: 'Pause, cancel and resume a run.',
  timers: 'Wake the sleeping workflow threads that are due, for an external scheduler.',
  schedules: 'Recurring runs: list, pause, resume, trigger.',
  studio: 'What the studio reads: the catalog, workflow graphs, threads and sessions.',
  evals: 'Datasets, experiments and scorers: an agent or workflow played over a dataset, scored.',
  metrics: 'Prometheus metrics.',
  openapi: 'This document.',
  native: 'The native surface: canonical events as server-sent events.',
  openai:
    "The OpenAI API under `/v1`: the agents as models, chat completions, responses. Errors in OpenAI's shape.",
  mcp: 'The MCP server (Streamable HTTP): the agents and workflows as tools of other agents.',
  a2a: 'A2A v1.0 (JSON-RPC): an agent card and an endpoint per agent; a task is a run.',
  auth: 'How to get a token this service accepts: its OAuth protected resource metadata.',
};

export const HEADERS: Record<ResponseHeader, Json> = {
  'X-Run-Id': {
    description:
      'The id of the run this request started or continued: read it with ' +
      '`GET /runs/{run_id}`, follow its events with `GET /runs/{run_id}/events`.',
    schema: { type: 'string' },
  },
  'Retry-After': {
    description: 'Seconds to wait before trying again (a backend is out, or its disk is full).',
    schema: { type: 'integer', minimum: 0 },
  },
  Location: {
    description: 'Where to read what was created: `GET /runs/{run_id}` of the queued run.',
    schema: { type: 'string' },
  },
  'WWW-Authenticate': {
    description: 'The scheme to authenticate with: `Bearer`.',
    schema: { type: 'string', const: 'Bearer' },
  },
};

/**
 * What any route can answer besides its own responses: what the gate refuses (401 without
 * a key, 503 until the deck is open or while a backend is out), the body limit (413, on
 * every route: it is judged before the route is known to read a body), a body that is not
 * JSON (415), a body or query its schema refuses (422), a full disk when a request records
 * events (507), and a failure the handler did not expect (500, `internal error`; the cause
 * is logged). A route's own declaration of a status replaces the wording here.
 */
export function gateResponses(r: Route, secured: boolean): Record<number, ResponseSpec> {
  const out = detailResponses(r, secured);
  if (!r.path.startsWith(`${OPENAI_PREFIX}/`)) return out;
  // The OpenAI surface answers the same refusals in OpenAI's shape, a bad request as 400.
  const { 422: invalid, ...rest } = out;
  const openAi: Record<number, ResponseSpec> = invalid ? { ...rest, 400: invalid } : rest;
  for (const spec of Object.values(openAi)) spec.schema = OpenAiErrorSchema;
  return openAi;
}

function detailResponses(r: Route, secured: boolean): Record<number, ResponseSpec> {
  const out: Record<number, ResponseSpec> = {};
  if (secured && !r.public) {
    out[401] = {
      description: 'API keys are set and the request has none of them.',
      schema: Detail,
      headers: ['WWW-Authenticate'],
    };
    out[429] = {
      description:
        'Too many wrong API keys from this address (`Retry-After` says when to try again).',
      schema: Detail,
      headers: ['Retry-After'],
    };
  }
  if (secured && !r.public && r.role !== null) {
    out[403] = {
      description: `The caller's key or token does not grant the \`${r.role}\` role this route needs (the body names it).`,
      schema: Detail,
    };
  }
  if (!secured && r.control) {
    out[403] = {
      description:
        'No API keys are set and the client is on another machine: `SERVICE_OPEN_CONTROL` opens this route to it.',
      schema: Detail,
    };
  }
  out[413] = { description: 'The request body is over the size limit.', schema: Detail };
  if (r.body) {
    out[415] = { description: 'The request body is not `application/json`.', schema: Detail };
  }
  if (r.body || r.query || /_id\}/.test(r.path)) {
    out[422] = {
      description:
        'A malformed body, query or path parameter (an id over 1,024 bytes, or with a NUL character).',
      schema: Detail,
    };
  }
  if (!r.public) {
    out[500] = {
      description: 'An unexpected failure (details in the server log).',
      schema: Detail,
    };
    out[503] = {
      description:
        'The deck is not open yet (`... not started`), or a backend it needs does not ' +
        'answer (`Retry-After` says when to try again).',
      schema: Detail,
      headers: ['Retry-After'],
    };
  }
  if (!r.public && r.method === 'post') {
    out[507] = {
      description: "A backend's storage is full (`Retry-After` says when to try again).",
      schema: Detail,
      headers: ['Retry-After'],
    };
  }
  return out;
}

/**
 * The document's `components.schemas`, filled as operations use schemas: a named schema
 * (`.meta({ id })`) becomes a `$ref` and is listed once; an unnamed one is written in place,
 * its named parts listed. Only what an operation uses is listed.
 */
export class SchemaComponents {
  readonly schemas: Record<string, Json> = {};

  /** The JSON Schema of `schema` for an operation, its named schemas as `$ref`s. */
  use(schema: z.ZodType): Json {
    const { $defs, ...root } = rewriteRefs(schemaOf(schema)) as Json & {
      $defs?: Record<string, Json>;
    };
    for (const [id, definition] of Object.entries($defs ?? {})) this.#add(id, definition);
    return root;
  }

  #add(id: string, definition: Json): void {
    if (id.startsWith('__schema')) {
      throw new Error(`a recursive schema needs a name (.meta({ id })) to be in the document`);
    }
    const known = this.schemas[id];
    if (known && JSON.stringify(known) !== JSON.stringify(definition)) {
      throw new Error(`two different schemas are named '${id}' (.meta({ id }))`);
    }
    this.schemas[id] = definition;
  }
}

/**
 * A schema in JSON Schema form (draft 2020-12, which OpenAPI 3.1 uses as is), without the
 * `$schema` key (the document states the dialect); named parts are under `$defs`. It
 * describes what a client sends (`io: 'input'`); a string-encoded boolean of a query
 * (`z.stringbool()`) is a boolean, as a client serialises it.
 */
function schemaOf(schema: z.ZodType): Json {
  const { $schema: _, ...rest } = z.toJSONSchema(schema, {
    io: 'input',
    unrepresentable: 'any',
    override: ({ zodSchema, jsonSchema }) => {
      const stringBool = stringBoolOf(zodSchema);
      if (!stringBool) return;
      jsonSchema.type = 'boolean';
      if (stringBool.default !== undefined) jsonSchema.default = stringBool.default;
    },
  }) as Json;
  return rest;
}

interface ZodDef {
  type: string;
  innerType?: AnySchema;
  in?: AnySchema;
  out?: AnySchema;
  defaultValue?: unknown;
}

type AnySchema = z.core.$ZodType;

const defOf = (schema: AnySchema) => schema._zod.def as unknown as ZodDef;

/** Whether `schema` is a `z.stringbool()`, bare or wrapped (optional, default), and its default. */
function stringBoolOf(schema: AnySchema): { default?: unknown } | null {
  let def = defOf(schema);
  let fallback: unknown;
  while ((def.type === 'optional' || def.type === 'default') && def.innerType) {
    if (def.type === 'default') fallback = def.defaultValue;
    def = defOf(def.innerType);
  }
  const stringBool =
    def.type === 'pipe' &&
    def.in !== undefined &&
    def.out !== undefined &&
    defOf(def.in).type === 'string' &&
    defOf(def.out).type === 'boolean';
  if (!stringBool) return null;
  return fallback === undefined ? {} : { default: fallback };
}

/** Point `#/$defs/Name` references at `#/components/schemas/Name`. */
function rewriteRefs(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(rewriteRefs);
  if (typeof value !== 'object' || value === null) return value;
  return Object.fromEntries(
    Object.entries(value).map(([key, item]) =>
      key === '$ref' && typeof item === 'string' && item.startsWith('#/$defs/')
        ? [key, SCHEMAS + item.slice('#/$defs/'.length)]
        : [key, rewriteRefs(item)],
    ),
  );
}
