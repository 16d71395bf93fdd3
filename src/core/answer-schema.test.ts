/**
 * The answer check's messages (#41): each wrong field named with its path under `answer`, what
 * was expected and what was given; a zod schema and its JSON Schema judge alike.
 */
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { answerProblems, checkAnswer, toAnswerSchema } from './answer-schema.js';
import { ConfigError, InvalidInputError } from './errors.js';

describe('answer schemas', () => {
  it('writes a zod schema as JSON Schema without $schema, and keeps a JSON Schema as given', () => {
    const schema = toAnswerSchema(z.object({ n: z.int() }), 'here');
    expect(schema).not.toHaveProperty('$schema');
    expect(schema).toMatchObject({ type: 'object', required: ['n'] });
    const json = { type: 'string', enum: ['yes', 'no'] };
    expect(
      toAnswerSchema({ $schema: 'https://json-schema.org/draft/2020-12/schema', ...json }, 'here'),
    ).toEqual(json);
    expect(() => toAnswerSchema([1], 'here')).toThrow(ConfigError);
    expect(() => toAnswerSchema([1], 'here')).toThrow(
      /here: expected a zod schema or a JSON Schema object, got an array/,
    );
  });

  it('names each wrong field, nested ones by their path', () => {
    const schema = toAnswerSchema(
      z.object({
        count: z.int(),
        kind: z.enum(['a', 'b']),
        payee: z.object({ iban: z.string() }),
      }),
      'here',
    );
    expect(answerProblems(schema, { count: 1.5, kind: 'c', payee: { iban: 7 } })).toEqual([
      'answer.count: expected integer, got number',
      'answer.kind: expected one of "a", "b", got "c"',
      'answer.payee.iban: expected string, got number',
    ]);
    expect(answerProblems(schema, { count: 1, kind: 'a', payee: { iban: 'DE00' } })).toEqual([]);
  });

  it('refuses unexpected fields when the schema says so, and a whole value of the wrong type', () => {
    const closed = {
      type: 'object',
      properties: { ok: { type: 'boolean' } },
      additionalProperties: false,
    };
    expect(answerProblems(closed, { ok: true, extra: 1 })).toEqual([
      "answer: unexpected field 'extra'",
    ]);
    expect(() => checkAnswer({ type: 'number' }, 'ten', 'answer.reason')).toThrow(
      InvalidInputError,
    );
    expect(() => checkAnswer({ type: 'number' }, 'ten', 'answer.reason')).toThrow(
      /^answer\.reason: expected number, got string \(the answer must match/,
    );
  });
});
