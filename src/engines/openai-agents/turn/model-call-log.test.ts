import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { canonicalJson, digestOfValue, ModelCallLog } from './model-call-log.js';

const sha = (text: string) => `v:${createHash('sha256').update(text).digest('hex').slice(0, 12)}`;

describe('model call digests', () => {
  it('digest the canonical JSON, whatever the key order, on a first sight and again', () => {
    const tool = () => ({ name: 'find_slots', parameters: { type: 'object', required: ['day'] } });
    const reordered = { parameters: { required: ['day'], type: 'object' }, name: 'find_slots' };
    const expected = sha(canonicalJson(tool()));
    expect(digestOfValue(tool())).toBe(expected);
    expect(digestOfValue(tool())).toBe(expected); // a new object of the same JSON: the cached digest
    expect(digestOfValue(reordered)).toBe(expected);
    expect(digestOfValue({ ...tool(), name: 'other' })).not.toBe(expected);
  });

  it('store each value once per run, as sent, with a digest found again by its JSON', () => {
    const request = (input: string[]) =>
      ({
        systemInstructions: 'Book slots.',
        input: input.map((content) => ({ type: 'message', role: 'user', content })),
        tools: [{ type: 'function', name: 'find_slots', strict: true }],
        modelSettings: {},
      }) as never;
    const log = new ModelCallLog('run-1', 'full', 'gpt-test');
    const first = log.start(request(['When?']), undefined).draft.payload as {
      messages: string[];
      values: Record<string, unknown>;
    };
    const second = log.start(request(['When?', 'And Tuesday?']), undefined).draft.payload as {
      messages: string[];
      values: Record<string, unknown>;
    };
    expect(second.messages[0]).toBe(first.messages[0]);
    expect(Object.keys(second.values)).toEqual([second.messages[1]]);
    expect(second.values[second.messages[1] as string]).toEqual({
      type: 'message',
      role: 'user',
      content: 'And Tuesday?',
    });
    // Another run stores the values again (its own first event holds them).
    const other = new ModelCallLog('run-2', 'full', 'gpt-test').start(
      request(['When?']),
      undefined,
    );
    expect(Object.keys((other.draft.payload as { values: object }).values)).toHaveLength(3);
  });
});
