import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { check } from './json-body.js';

describe('check', () => {
  const Body = z.object({
    message: z.string(),
    priority: z.number().int().optional(),
    meta: z.object({}).optional(),
    tags: z.array(z.string()).optional(),
  });
  const detail = (value: unknown) => {
    try {
      check(Body, value);
    } catch (error) {
      return (error as Error).message;
    }
    return undefined;
  };

  it('names the expected type with its article, as a person writes it', () => {
    expect(detail({ message: 1 })).toBe("field 'message' must be a string, got number");
    expect(detail({ message: 'hi', priority: 1.5 })).toBe(
      "field 'priority' must be a whole number, got number",
    );
    expect(detail({ message: 'hi', meta: 'x' })).toBe("field 'meta' must be an object, got string");
    expect(detail({ message: 'hi', tags: 'x' })).toBe("field 'tags' must be an array, got string");
    expect(detail({})).toBe('missing field: message');
  });

  it('names the fields a strict schema does not know', () => {
    const Strict = z.object({ session_id: z.string().optional() }).strict();
    expect(() => check(Strict, { sesion_id: 's' })).toThrow(/^unknown field: sesion_id$/);
    expect(() => check(Strict, { a: 1, b: 2 })).toThrow(/^unknown fields: a, b$/);
  });
});
