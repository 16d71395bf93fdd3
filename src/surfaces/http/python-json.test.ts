/**
 * `pythonJson` against what Python's `json.dumps` wrote for the same values (each expected
 * string below was printed by CPython 3's `json.dumps` with its defaults), and against
 * `JSON.stringify` for what both leave out or refuse.
 */
import { describe, expect, it } from 'vitest';
import { pythonJson } from './python-json.js';

describe('pythonJson', () => {
  it.each([
    [{ delta: 'Tuesday ' }, '{"delta": "Tuesday "}'],
    [
      {
        output: 'Tuesday at 9am works.',
        usage: { requests: 2, input_tokens: 22, output_tokens: 10, total_tokens: 32 },
      },
      '{"output": "Tuesday at 9am works.", "usage": {"requests": 2, "input_tokens": 22, "output_tokens": 10, "total_tokens": 32}}',
    ],
    [
      { type: 'node_update', node: 'shout', delta: null },
      '{"type": "node_update", "node": "shout", "delta": null}',
    ],
    [
      { a: [], b: {}, c: [[]], d: [{ e: true, f: false }] },
      '{"a": [], "b": {}, "c": [[]], "d": [{"e": true, "f": false}]}',
    ],
  ])('spaces items and keys as json.dumps: %j', (value, python) => {
    expect(pythonJson(value)).toBe(python);
  });

  it('escapes every character outside printable ASCII, beyond the BMP as a surrogate pair', () => {
    const text = 'café ☕ 😀 \u007f \u0000\u001f\b\f\n\r\t "q" \\ / </script> \u2028';
    expect(pythonJson(text)).toBe(
      '"caf\\u00e9 \\u2615 \\ud83d\\ude00 \\u007f \\u0000\\u001f\\b\\f\\n\\r\\t \\"q\\" \\\\ / </script> \\u2028"',
    );
    expect(pythonJson({ 'clé ☕': 1 })).toBe('{"cl\\u00e9 \\u2615": 1}');
    expect(pythonJson('\ud800x')).toBe('"\\ud800x"'); // a lone surrogate, as Python writes one
    expect(JSON.parse(pythonJson(text))).toBe(text);
  });

  it("writes numbers as Python's repr: the exponent form below 1e-4, padded to two digits", () => {
    const values = [1, -2, 0.5, -0.25, 123.456, 0.0001, 0.00001, -0.00001234, 1.5e-7, 5e-324];
    expect(pythonJson([...values, 1e300, 1e-310])).toBe(
      '[1, -2, 0.5, -0.25, 123.456, 0.0001, 1e-05, -1.234e-05, 1.5e-07, 5e-324, 1e+300, 1e-310]',
    );
    expect(JSON.parse(pythonJson(values))).toEqual(values);
  });

  it('keeps what JSON.stringify does: key order, toJSON, omissions, null for non-finite', () => {
    const value = {
      b: 1,
      a: [undefined, () => 1, Number.NaN, Infinity],
      skipped: undefined,
      fn: () => 1,
      when: new Date('2026-01-02T03:04:05.000Z'),
      boxed: [Object(3), Object('x'), Object(false)],
      2: 'integer keys first',
    };
    const python = pythonJson(value);
    expect(python).toBe(
      '{"2": "integer keys first", "b": 1, "a": [null, null, null, null], ' +
        '"when": "2026-01-02T03:04:05.000Z", "boxed": [3, "x", false]}',
    );
    expect(JSON.parse(python)).toEqual(JSON.parse(JSON.stringify(value)));
    expect(pythonJson(undefined)).toBe(JSON.stringify(undefined));
  });

  it('refuses what JSON.stringify refuses: a cycle, a BigInt', () => {
    const cycle: Record<string, unknown> = {};
    cycle.self = cycle;
    expect(() => pythonJson(cycle)).toThrow(TypeError);
    expect(() => pythonJson({ n: 1n })).toThrow(TypeError);
    const shared = { x: 1 }; // the same object twice is not a cycle
    expect(pythonJson([shared, shared])).toBe('[{"x": 1}, {"x": 1}]');
  });
});
