/**
 * The trace waterfall's bars (assets/trace-bars.js) and a model request rebuilt from a run's
 * events (assets/model-request.js), both run by the browser as is: each model request, tool
 * call, node and wait is one bar on the run's time axis, with its tokens and cost; a value
 * stored once per run resolves in every later request that sends it again.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { modelRequest } from './assets/model-request.js';
import type { WireEvent } from './assets/timeline.js';
import { linkChildRuns, traceBars } from './assets/trace-bars.js';

const T0 = Date.parse('2026-11-27T10:00:00.000Z');
let seq = 0;
/** An event `ms` after T0. */
const at = (ms: number, kind: string, payload: unknown): WireEvent => ({
  v: 3,
  kind,
  seq: seq++,
  run_id: 'r1',
  ts: new Date(T0 + ms).toISOString(),
  payload,
});

const started = (ms: number, callId: string, extra: Record<string, unknown> = {}) =>
  at(ms, 'model.call.started', {
    call_id: callId,
    model: 'gpt-4o-mini',
    settings: {},
    instructions: null,
    tools: [],
    messages: [],
    values: {},
    detail: 'full',
    ...extra,
  });
const completed = (ms: number, callId: string, extra: Record<string, unknown> = {}) =>
  at(ms, 'model.call.completed', {
    call_id: callId,
    output: [],
    finish_reason: 'stop',
    input_tokens: 12,
    output_tokens: 3,
    latency_ms: 100,
    provider_request_id: null,
    error: null,
    ...extra,
  });
const usage = (ms: number, usd: number | null, model = 'gpt-4o-mini') =>
  at(ms, 'usage.reported', {
    model,
    requests: 1,
    input_tokens: 12,
    output_tokens: 3,
    total_tokens: 15,
    usd,
  });
const runStarted = (ms: number, type = 'agent') =>
  at(ms, 'run.started', { invocable_type: type, input: [{ type: 'text', text: 'hi' }] });

describe('the trace bars', () => {
  it('puts the run on top, then each model request and tool call on one axis, in order', () => {
    const trace = traceBars([
      runStarted(0),
      started(10, 'mc-1'),
      completed(400, 'mc-1', { finish_reason: 'tool_calls' }),
      usage(401, 0.0000036),
      at(402, 'tool.call.started', { call_id: 'c1', name: 'book', arguments: { room: '7' } }),
      at(900, 'tool.call.completed', { call_id: 'c1', name: 'book', output: 'ok', error: null }),
      started(905, 'mc-2'),
      at(950, 'text.delta', { message_id: 'm1', text: 'Booked' }),
      completed(1200, 'mc-2', { input_tokens: 40, output_tokens: 8 }),
      at(1210, 'run.completed', { output: [], usage: null }),
    ]);
    expect(trace.start).toBe(T0);
    expect(trace.end).toBe(T0 + 1210);
    const rows = trace.bars.map((b) => [b.kind, b.label, b.start - T0, b.end - T0, b.status]);
    expect(rows).toEqual([
      ['run', 'Run', 0, 1210, 'ok'],
      ['model', 'gpt-4o-mini', 10, 400, 'ok'],
      ['tool', 'book', 402, 900, 'ok'],
      ['model', 'gpt-4o-mini', 905, 1200, 'ok'],
    ]);
    const [, first, tool, second] = trace.bars;
    expect(first).toMatchObject({
      callId: 'mc-1',
      tokens: { input: 12, output: 3 },
      usd: 0.0000036,
    });
    // No usage report followed the second request: its tokens, and no cost.
    expect(second).toMatchObject({ tokens: { input: 40, output: 8 }, usd: null });
    expect(tool).toMatchObject({ args: { room: '7' }, output: 'ok', error: null });
  });

  it('marks a failed tool call and a failed run, and stops what was still running', () => {
    const trace = traceBars([
      runStarted(0),
      at(5, 'tool.call.started', { call_id: 'c1', name: 'lookup', arguments: {} }),
      at(9, 'tool.call.completed', {
        call_id: 'c1',
        name: 'lookup',
        output: null,
        error: 'no city',
      }),
      started(10, 'mc-1'),
      at(50, 'run.failed', { error_type: 'TimeoutError', message: 'slow', tool: undefined }),
    ]);
    expect(trace.bars.map((b) => [b.kind, b.status, b.end - T0])).toEqual([
      ['run', 'error', 50],
      ['tool', 'error', 9],
      ['model', 'error', 50],
      ['failure', 'error', 50],
    ]);
    expect(trace.bars[1]?.error).toBe('no city');
    expect(trace.bars[3]?.label).toBe('Failed: TimeoutError');
  });

  it('starts a node from its duration, else from the previous node’s end', () => {
    const trace = traceBars([
      runStarted(0, 'workflow'),
      at(100, 'node.updated', { node: 'fetch', delta: { a: 1 }, duration_ms: 80 }),
      at(130, 'node.updated', { node: 'shape', delta: { b: 2 } }),
      at(140, 'run.completed', { output: [], usage: null }),
    ]);
    expect(trace.bars.map((b) => [b.label, b.start - T0, b.end - T0])).toEqual([
      ['Workflow run', 0, 140],
      ['fetch', 20, 100],
      ['shape', 100, 130],
    ]);
  });

  it('shows the wait for a person and a pause until the resume, one still open to the end', () => {
    const trace = traceBars([
      runStarted(0),
      at(10, 'tool.call.started', { call_id: 'c1', name: 'refund', arguments: { amount: 5 } }),
      at(11, 'run.interrupted', {
        payload: { tool: 'refund' },
        thread_id: 's',
        reason: 'approval',
      }),
      at(500, 'run.resumed', { request_id: null, answer: { approved: true, reason: null } }),
      at(501, 'tool.call.started', { call_id: 'c1', name: 'refund', arguments: { amount: 5 } }),
      at(520, 'tool.call.completed', { call_id: 'c1', name: 'refund', output: 'ok', error: null }),
      at(600, 'run.paused', { reason: 'budget' }),
    ]);
    expect(trace.bars.map((b) => [b.kind, b.label, b.start - T0, b.end - T0, b.status])).toEqual([
      ['run', 'Run', 0, 600, 'open'],
      ['wait', 'Approval of refund', 11, 500, 'ok'],
      ['tool', 'refund', 501, 520, 'ok'],
      ['pause', 'Paused: budget', 600, 600, 'open'],
    ]);
    // Read later, a run still paused: its open bars reach the time given.
    const later = traceBars([runStarted(0), at(600, 'run.paused', { reason: null })], T0 + 900);
    expect(later.bars.map((b) => b.end - T0)).toEqual([900, 900]);
  });

  it('infers a model request from each usage report of a run recorded without model calls', () => {
    const trace = traceBars([
      runStarted(0),
      usage(300, 0.001),
      at(301, 'tool.call.started', { call_id: 'c1', name: 'book', arguments: {} }),
      at(350, 'tool.call.completed', { call_id: 'c1', name: 'book', output: 'ok', error: null }),
      usage(700, null),
    ]);
    expect(trace.bars.map((b) => [b.kind, b.start - T0, b.end - T0, b.inferred ?? false])).toEqual([
      ['run', 0, 700, false],
      ['model', 0, 300, true],
      ['tool', 301, 350, false],
      ['model', 350, 700, true],
    ]);
  });

  it('links a tool that ran a workflow to its child run', () => {
    const trace = traceBars([
      runStarted(0),
      at(10, 'tool.call.started', { call_id: 'c1', name: 'quote', arguments: { nights: 3 } }),
      at(90, 'tool.call.completed', { call_id: 'c1', name: 'quote', output: {}, error: null }),
    ]);
    const children = [
      { run_id: 'child-1', origin: 'Quote', started_at: new Date(T0 + 12).toISOString() },
    ];
    const linked = linkChildRuns(trace.bars, children, (origin) => origin.toLowerCase());
    expect(linked[1]?.childRunId).toBe('child-1');
    expect(linked[0]?.childRunId).toBeUndefined();
  });

  it('links a child run that started just before its call was recorded, the engine running ahead', () => {
    const trace = traceBars([
      runStarted(0),
      at(40, 'tool.call.started', { call_id: 'c1', name: 'quote', arguments: {} }),
      at(42, 'tool.call.completed', { call_id: 'c1', name: 'quote', output: {}, error: null }),
    ]);
    const early = {
      run_id: 'child-1',
      origin: 'Quote',
      started_at: new Date(T0 + 21).toISOString(),
    };
    const late = {
      run_id: 'child-2',
      origin: 'Quote',
      started_at: new Date(T0 + 60).toISOString(),
    };
    const linked = linkChildRuns(trace.bars, [early, late], (origin) => origin.toLowerCase());
    expect(linked[1]?.childRunId).toBe('child-1');
  });

  it('computes the bars of 5,000 events in one pass, well under the page’s budget', () => {
    const events = [runStarted(0)];
    for (let i = 0; events.length < 5000; i++) {
      const t = i * 10;
      events.push(
        started(t + 1, `mc-${i}`),
        at(t + 2, 'text.delta', { message_id: 'm', text: 'x' }),
      );
      events.push(completed(t + 5, `mc-${i}`), usage(t + 5, 0.001));
      events.push(at(t + 6, 'tool.call.started', { call_id: `c${i}`, name: 't', arguments: {} }));
      events.push(
        at(t + 9, 'tool.call.completed', { call_id: `c${i}`, name: 't', output: 1, error: null }),
      );
    }
    const began = performance.now();
    const trace = traceBars(events);
    expect(performance.now() - began).toBeLessThan(500); // about 10 ms; a quadratic pass takes seconds
    expect(trace.bars.length).toBe(1 + 2 * Math.ceil((5000 - 1) / 6));
  });
});

describe('a model request rebuilt from the run’s events', () => {
  const corpus = (kind: string) =>
    readFileSync(
      join(import.meta.dirname, '../../../test/fixtures/events/v3', `${kind}.jsonl`),
      'utf8',
    )
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as WireEvent);
  const events = [...corpus('model.call.started'), ...corpus('model.call.completed')];

  it('resolves the instructions, tools and messages a later request sends by digest only', () => {
    const second = modelRequest(events, 'mc-2');
    expect(second).toMatchObject({
      model: 'gpt-4o-mini',
      settings: { temperature: 0.2 },
      detail: 'full',
      instructions: { value: 'You are a greeter.', missing: false },
    });
    expect(second?.tools.map((t) => (t.value as { name: string }).name)).toEqual(['lookup']);
    expect(second?.messages.map((m) => m.value)).toEqual([
      { role: 'user', content: 'Hello' },
      { type: 'function_call_output', call_id: 'call-1', output: 'sunny' },
    ]);
    expect(second?.response).toMatchObject({ error: 'Request timed out', latency_ms: 30001 });
    expect(modelRequest(events, 'mc-1')?.response).toMatchObject({
      finish_reason: 'stop',
      provider_request_id: 'req_abc123',
    });
  });

  it('marks what a metadata-only request never stored, and knows no unknown call', () => {
    const metadata = modelRequest([events[2] as WireEvent], 'mc-3');
    expect(metadata?.detail).toBe('metadata');
    expect(metadata?.messages).toEqual([
      { digest: 'v:0f0e0d0c0b0a', value: undefined, missing: true },
    ]);
    expect(metadata?.response).toBeNull();
    expect(modelRequest(events, 'mc-9')).toBeNull();
  });
});
