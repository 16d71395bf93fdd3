/**
 * `run.failed`'s details (#41): attached to an error without changing its class, the nearest
 * layer naming the node or tool, and the input and stack capped at 8 KB each.
 */
import { describe, expect, it } from 'vitest';
import {
  attachFailureDetails,
  failurePayload,
  MAX_FAILURE_INPUT_CHARS,
  MAX_FAILURE_STACK_CHARS,
  TRUNCATED_KEY,
} from './failure-details.js';

describe('failurePayload', () => {
  it('carries the type, message, stack and what was attached; the error keeps its class', () => {
    const error = attachFailureDetails(new TypeError('bad'), { node: 'n', input: { a: 1 } });
    expect(error).toBeInstanceOf(TypeError);
    expect(failurePayload(error)).toEqual({
      errorType: 'TypeError',
      message: 'bad',
      stack: error.stack,
      node: 'n',
      input: { a: 1 },
    });
    expect(failurePayload('plain text')).toEqual({ errorType: 'Error', message: 'plain text' });
  });

  it('lets a tool named by the outer run replace the node of the run it called', () => {
    const error = attachFailureDetails(new Error('x'), { node: 'inner', input: { s: 1 } });
    attachFailureDetails(error, { tool: 'run_flow', input: { a: 2 } });
    const payload = failurePayload(error);
    expect(payload).toMatchObject({ tool: 'run_flow', input: { a: 2 } });
    expect(payload.node).toBeUndefined();
  });

  it('adds the causes to the stack', () => {
    const error = new Error('outer', { cause: new RangeError('inner') });
    expect(failurePayload(error).stack).toMatch(/Error: outer[\s\S]*Caused by: RangeError: inner/);
  });

  it('replaces an input over 8 KB of JSON with a marker holding its start, and cuts a long stack', () => {
    const big = { text: 'x'.repeat(MAX_FAILURE_INPUT_CHARS) };
    const error = attachFailureDetails(new Error('big'), { tool: 't', input: big });
    error.stack = `Error: big\n${'    at f (/a.ts:1:1)\n'.repeat(1000)}`;
    const payload = failurePayload(error);
    const marker = (payload.input as Record<string, { chars: number; head: string }>)[
      TRUNCATED_KEY
    ];
    expect(marker?.chars).toBe(JSON.stringify(big).length);
    expect(marker?.head).toBe(JSON.stringify(big).slice(0, MAX_FAILURE_INPUT_CHARS));
    expect(payload.stack?.length).toBeLessThan(MAX_FAILURE_STACK_CHARS + 100);
    expect(payload.stack).toMatch(/more characters of the stack left out\)$/);
  });

  it('writes an input JSON cannot hold as far as it can, and never fails the recording', () => {
    const cyclic: Record<string, unknown> = { n: 10n };
    cyclic.self = cyclic;
    const throwing = {
      get boom() {
        throw new Error('getter');
      },
    };
    expect(failurePayload(attachFailureDetails(new Error('c'), { input: cyclic })).input).toEqual({
      n: '10',
      self: '[circular or repeated]',
    });
    expect(failurePayload(attachFailureDetails(new Error('t'), { input: throwing })).input).toBe(
      '[the input could not be written as JSON: getter]',
    );
  });
});
