/**
 * Answers with a shape (#41): the JSON Schema a person's answer must match, declared as a zod
 * schema or a JSON Schema object (`interrupt(payload, { answer })`, a tool's `approvalReason`),
 * recorded on `run.interrupted` as `answer_schema`, and checked when the answer arrives. The
 * check reads the recorded JSON Schema, never the declaring code, so whichever process takes
 * the answer judges it the same way; a refusal names the field (`answer.amount: expected
 * number, got string`) and changes nothing.
 */
import { z } from 'zod';
import { ConfigError, InvalidInputError } from './errors.js';

/** A JSON Schema as recorded on `run.interrupted` (`answer_schema`). */
export type JsonSchemaObject = Record<string, unknown>;

/** What an author may declare an answer's shape with: a zod schema, or a JSON Schema object. */
export type AnswerShape = z.ZodType | JsonSchemaObject;

/** Compiled checks by their schema's JSON text: an inbox answers the same few shapes. */
const compiled = new Map<string, z.ZodType>();
const COMPILED_LIMIT = 256;

/**
 * The JSON Schema of `shape` (zod's own `z.toJSONSchema`, as the answer's input), checked to be
 * one the answer can be judged by. `where` names the declaration in the error, e.g.
 * "interrupt(payload, { answer })".
 */
export function toAnswerSchema(shape: unknown, where: string): JsonSchemaObject {
  if (isZodSchema(shape)) {
    let json: JsonSchemaObject;
    try {
      json = z.toJSONSchema(shape, { io: 'input' }) as JsonSchemaObject;
    } catch (error) {
      throw new ConfigError(
        `${where}: the zod schema cannot be written as JSON Schema (${(error as Error).message}); use plain zod types (objects, strings, numbers, enums...)`,
        { cause: error },
      );
    }
    const { $schema: _, ...rest } = json;
    return rest;
  }
  if (typeof shape !== 'object' || shape === null || Array.isArray(shape)) {
    throw new ConfigError(
      `${where}: expected a zod schema or a JSON Schema object, got ${describe(shape)}`,
    );
  }
  const { $schema: _, ...json } = shape as JsonSchemaObject;
  checkerOf(json, where);
  return json;
}

/**
 * Throws InvalidInputError naming each field of `value` that does not match `schema`, under
 * `label` (`answer`, or `answer.reason`): `answer.amount: expected number, got string`.
 */
export function checkAnswer(schema: JsonSchemaObject, value: unknown, label = 'answer'): void {
  const problems = answerProblems(schema, value, label);
  if (problems.length === 0) return;
  throw new InvalidInputError(
    `${problems.join('; ')} (the answer must match the answer_schema the question recorded; nothing was changed, the run still waits)`,
  );
}

/** The problems of `value` against `schema`, one `path: what` each; `[]` when it matches. */
export function answerProblems(
  schema: JsonSchemaObject,
  value: unknown,
  label = 'answer',
): string[] {
  const result = checkerOf(schema, 'answer_schema').safeParse(value);
  if (result.success) return [];
  return result.error.issues.map((issue) => {
    const path = [label, ...issue.path.map(String)].join('.');
    return `${path}: ${issueText(issue, valueAt(value, issue.path))}`;
  });
}

function checkerOf(schema: JsonSchemaObject, where: string): z.ZodType {
  const key = JSON.stringify(schema);
  const known = compiled.get(key);
  if (known) return known;
  let checker: z.ZodType;
  try {
    checker = z.fromJSONSchema(schema as Parameters<typeof z.fromJSONSchema>[0]);
  } catch (error) {
    throw new ConfigError(
      `${where}: the JSON Schema cannot be used to check an answer (${(error as Error).message})`,
      { cause: error },
    );
  }
  if (compiled.size >= COMPILED_LIMIT) compiled.delete(compiled.keys().next().value as string);
  compiled.set(key, checker);
  return checker;
}

function issueText(issue: z.core.$ZodIssue, got: unknown): string {
  switch (issue.code) {
    case 'invalid_type': {
      const expected = issue.expected === 'int' ? 'integer' : issue.expected;
      return got === undefined
        ? `missing (expected ${expected})`
        : `expected ${expected}, got ${typeName(got)}`;
    }
    case 'invalid_value':
      return `expected one of ${issue.values.map((v) => JSON.stringify(v)).join(', ')}, got ${JSON.stringify(got) ?? 'nothing'}`;
    case 'unrecognized_keys':
      return `unexpected field${issue.keys.length > 1 ? 's' : ''} ${issue.keys.map((k) => `'${k}'`).join(', ')}`;
    default:
      return issue.message.charAt(0).toLowerCase() + issue.message.slice(1);
  }
}

function valueAt(value: unknown, path: readonly PropertyKey[]): unknown {
  let at = value;
  for (const key of path) {
    if (typeof at !== 'object' || at === null) return undefined;
    at = (at as Record<PropertyKey, unknown>)[key];
  }
  return at;
}

function typeName(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  return typeof value;
}

function isZodSchema(value: unknown): value is z.ZodType {
  return typeof value === 'object' && value !== null && '_zod' in value;
}

function describe(value: unknown): string {
  if (value === null || value === undefined) return String(value);
  if (Array.isArray(value)) return 'an array';
  return typeof value;
}
