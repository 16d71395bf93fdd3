/**
 * A question with a shaped answer, as LangGraph checkpoints it. `interrupt(payload, { answer })`
 * raises an interrupt whose value carries the payload and the answer's JSON Schema under one
 * marker key, so the schema lives with the thread (any process reading the checkpoint finds
 * it); everything past the engine sees the payload alone and the schema beside it
 * (`OpenPause.answerSchema`). A question asked without a schema keeps its plain value, as
 * every checkpoint written before this did.
 */
import type { JsonSchemaObject } from '../../core/answer-schema.js';

const ASKED_KEY = 'agentdeck:asked';

interface AskedWithSchema {
  [ASKED_KEY]: { payload: unknown; answer_schema: JsonSchemaObject };
}

/** The interrupt value of a question whose answer must match `schema`. */
export function askedWithSchema(payload: unknown, schema: JsonSchemaObject): AskedWithSchema {
  return { [ASKED_KEY]: { payload, answer_schema: schema } };
}

/** An interrupt value as the question's payload and, when it declared one, its answer schema. */
export function unwrapAsked(value: unknown): { payload: unknown; answerSchema?: JsonSchemaObject } {
  if (typeof value !== 'object' || value === null || !(ASKED_KEY in value)) {
    return { payload: value };
  }
  const asked = (value as AskedWithSchema)[ASKED_KEY];
  return { payload: asked.payload ?? null, answerSchema: asked.answer_schema };
}
