/**
 * `GET /openapi.json`: an OpenAPI 3.1 document of the mounted routes, generated from the
 * zod schemas that validate their requests (zod's own JSON Schema output, draft 2020-12,
 * which OpenAPI 3.1 uses as is).
 */
import { z } from 'zod';
import type { Route } from './routes.js';

type Json = Record<string, unknown>;

export interface OpenApiInfo {
  title: string;
  version: string;
  /** Whether routes other than the public ones require a bearer key. */
  secured: boolean;
}

export function openApiDocument(routes: readonly Route[], info: OpenApiInfo): Json {
  const paths: Record<string, Json> = {};
  for (const r of routes) {
    const operation: Json = {
      summary: r.summary,
      operationId: operationId(r),
      parameters: [...pathParameters(r.path), ...queryParameters(r.query)],
      responses: responses(r),
    };
    if (r.description) operation.description = r.description;
    if (r.body) {
      operation.requestBody = {
        required: !r.body.optional,
        description: r.body.description,
        content: { 'application/json': { schema: schemaOf(r.body.schema) } },
      };
    }
    if (info.secured) operation.security = r.public ? [] : [{ bearer: [] }];
    paths[r.path] = { ...paths[r.path], [r.method]: operation };
  }
  const document: Json = {
    openapi: '3.1.0',
    info: { title: info.title, version: info.version },
    paths,
  };
  if (info.secured) {
    document.components = { securitySchemes: { bearer: { type: 'http', scheme: 'bearer' } } };
  }
  return document;
}

/** A schema in JSON Schema form, without the `$schema` key (the document states the dialect). */
export function schemaOf(schema: z.ZodType): Json {
  const { $schema: _, ...rest } = z.toJSONSchema(schema, {
    io: 'input',
    unrepresentable: 'any',
  }) as Json;
  return rest;
}

function pathParameters(path: string): Json[] {
  return [...path.matchAll(/\{(\w+)\}/g)].map(([, name]) => ({
    name,
    in: 'path',
    required: true,
    schema: { type: 'string' },
  }));
}

function queryParameters(query: z.ZodType | undefined): Json[] {
  if (!query) return [];
  const schema = schemaOf(query);
  const properties = (schema.properties ?? {}) as Record<string, Json>;
  const required = new Set((schema.required ?? []) as string[]);
  return Object.entries(properties).map(([name, property]) => {
    const { description, ...rest } = property;
    const parameter: Json = { name, in: 'query', required: required.has(name), schema: rest };
    if (description) parameter.description = description;
    return parameter;
  });
}

function responses(r: Route): Json {
  const out: Json = {};
  for (const [status, spec] of Object.entries(r.responses)) {
    const content: Json = {};
    if (spec.schema) content['application/json'] = { schema: schemaOf(spec.schema) };
    if (spec.sse) content['text/event-stream'] = { schema: { type: 'string' } };
    if (spec.text) content[spec.text] = { schema: { type: 'string' } };
    out[status] =
      Object.keys(content).length > 0
        ? { description: spec.description, content }
        : { description: spec.description };
  }
  return out;
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
