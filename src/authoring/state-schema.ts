/**
 * A workflow state declared with LangGraph's `StateSchema` (`new StateSchema({ n: z.number() })`)
 * rather than a zod object: LangGraph then checks each node's update field by field with the
 * fields' own schemas, where for a zod object it builds two partial schemas per update (and
 * zod compiles each one): a 3-node run costs about 30% less CPU (bench/RESULTS.md, issue 22).
 * Recognised by LangGraph's runtime brand, so this layer does not import the engine. The
 * initial state is checked here as for a zod object: fields may be missing, each one given
 * must be valid for its field.
 */

import { z } from 'zod';

/** LangGraph's brand on a `StateSchema` (what `StateSchema.isInstance` reads). */
const STATE_SCHEMA_BRAND = Symbol.for('langgraph.state.state_schema');

/** What the deck reads of a LangGraph `StateSchema`. */
export interface StateSchemaLike {
  fields: Record<string, unknown>;
  getJsonSchema(): Record<string, unknown>;
}

interface StandardSchema {
  '~standard': {
    validate(value: unknown): StandardResult | Promise<StandardResult>;
  };
}

interface StandardResult {
  issues?: ReadonlyArray<{
    message: string;
    path?: ReadonlyArray<PropertyKey | { key: PropertyKey }>;
  }>;
}

export function isStateSchema(state: unknown): state is StateSchemaLike {
  return (
    typeof state === 'object' &&
    state !== null &&
    (state as Record<symbol, unknown>)[STATE_SCHEMA_BRAND] === true
  );
}

/**
 * The problems of an initial state against a `StateSchema`, one `field: message` each; `[]`
 * when valid. A reduced field (`ReducedValue`) takes its input schema's values, as LangGraph
 * checks an update to it; a field with an asynchronous check is left to LangGraph's own check
 * when the run starts (its failure then fails the run).
 */
export function stateSchemaProblems(
  state: StateSchemaLike,
  input: Record<string, unknown>,
): string[] {
  const problems: string[] = [];
  for (const [key, value] of Object.entries(input)) {
    const schema = inputSchemaOf(state.fields[key]);
    if (!schema) continue;
    const result = schema['~standard'].validate(value);
    if (result instanceof Promise) continue;
    for (const issue of result.issues ?? []) {
      const path = [key, ...(issue.path ?? []).map((p) => String(isKeyed(p) ? p.key : p))];
      problems.push(`${path.join('.')}: ${issue.message}`);
    }
  }
  return problems;
}

/** The JSON schema of a `StateSchema`'s state (LangGraph's own), or `null` if it cannot say. */
export function stateSchemaJson(state: StateSchemaLike): Record<string, unknown> | null {
  try {
    return state.getJsonSchema();
  } catch {
    return null;
  }
}

/**
 * The JSON schema of a workflow's state as a caller gives it (a `StateSchema`'s own, or a zod
 * schema's input form), or `null` when it cannot say (a LangGraph Annotation).
 */
export function stateJsonSchema(state: unknown): Record<string, unknown> | null {
  return isStateSchema(state) ? stateSchemaJson(state) : zodJsonSchema(state);
}

/** The JSON schema of a zod schema's input, or `null` (not zod, or not expressible). */
export function zodJsonSchema(schema: unknown): Record<string, unknown> | null {
  if (typeof schema !== 'object' || schema === null || !('_zod' in schema)) return null;
  try {
    const { $schema: _, ...json } = z.toJSONSchema(schema as z.ZodType, { io: 'input' });
    return json;
  } catch {
    return null;
  }
}

function inputSchemaOf(field: unknown): StandardSchema | null {
  if (isStandard(field)) return field;
  if (typeof field !== 'object' || field === null) return null;
  // ReducedValue and DeltaValue take updates of their `inputSchema`; UntrackedValue its `schema`.
  const { inputSchema, schema } = field as { inputSchema?: unknown; schema?: unknown };
  if (isStandard(inputSchema)) return inputSchema;
  if (isStandard(schema)) return schema;
  return null;
}

function isStandard(value: unknown): value is StandardSchema {
  return (
    (typeof value === 'object' || typeof value === 'function') &&
    value !== null &&
    typeof (value as Partial<StandardSchema>)['~standard']?.validate === 'function'
  );
}

function isKeyed(segment: PropertyKey | { key: PropertyKey }): segment is { key: PropertyKey } {
  return typeof segment === 'object' && segment !== null && 'key' in segment;
}
