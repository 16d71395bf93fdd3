/**
 * The timeline fold (assets/timeline.js, run by the browser as is): streamed deltas become
 * one message, a tool call's start and completion one entry, a control request is marked
 * observed and then with its effect or the run's end, a reply the run stopped is cut off, and
 * an event of a kind the page does not know is kept, never dropped.
 */
import { describe, expect, it } from 'vitest';
import { type Entry, fold, type WireEvent } from './assets/timeline.js';

let seq = 0;
const event = (kind: string, payload: unknown): WireEvent => ({
  v: 3,
  kind,
  seq: seq++,
  run_id: 'r1',
  ts: '2026-11-25T03:00:00.000Z',
  payload,
});

const foldAll = (events: WireEvent[]) => events.reduce<Entry[]>(fold, []);

describe('the timeline fold', () => {
  it('assembles streamed text into one message, completed content winning', () => {
    const entries = foldAll([
      event('run.started', { invocable_type: 'agent', input: [{ type: 'text', text: 'hi' }] }),
      event('text.delta', { message_id: 'm1', text: 'Hel' }),
      event('text.delta', { message_id: 'm1', text: 'lo' }),
    ]);
    expect(entries.map((e) => e.type)).toEqual(['run.started', 'message']);
    expect(entries[1]).toMatchObject({ text: 'Hello', done: false, seq: 1 });
    const done = fold(
      entries,
      event('message.completed', {
        message_id: 'm1',
        role: 'assistant',
        content: [{ type: 'text', text: 'Hello!' }],
      }),
    );
    expect(done[1]).toMatchObject({ text: 'Hello!', done: true });
    expect(done[1]?.events.map((e) => e.kind)).toEqual([
      'text.delta',
      'text.delta',
      'message.completed',
    ]);
    expect(entries[1]).toMatchObject({ text: 'Hello', done: false }); // a new list, not a change
  });

  it('pairs a tool call with its result, and a control request with its observation', () => {
    const entries = foldAll([
      event('tool.call.started', { call_id: 'c1', name: 'book', arguments: { room: '4' } }),
      event('control.requested', { verb: 'pause', reason: 'budget', request_id: 'q1' }),
      event('tool.call.completed', { call_id: 'c1', name: 'book', output: 'ok', error: null }),
      event('control.observed', { verb: 'pause', request_id: 'q1' }),
      event('run.paused', { reason: 'budget' }),
    ]);
    expect(entries.map((e) => e.type)).toEqual(['tool', 'control', 'run.paused']);
    expect(entries[0]).toMatchObject({
      name: 'book',
      args: { room: '4' },
      output: 'ok',
      done: true,
    });
    expect(entries[1]).toMatchObject({ verb: 'pause', reason: 'budget' });
    expect(entries[1]?.observed).toBe('2026-11-25T03:00:00.000Z');
  });

  it('marks a reply a pause cut short, and each request with what became of it', () => {
    const entries = foldAll([
      event('text.delta', { message_id: 'm1', text: 'Hel' }),
      event('control.requested', { verb: 'pause', reason: null, request_id: 'q1' }),
      event('control.observed', { verb: 'pause', request_id: 'q1' }),
      event('run.paused', { reason: null }),
      event('control.requested', { verb: 'resume', reason: null, request_id: 'q2' }),
      event('control.requested', { verb: 'cancel', reason: null, request_id: 'q3' }),
      event('run.resumed', { request_id: 'q2' }),
      event('text.delta', { message_id: 'm2', text: 'Hello' }),
      event('run.completed', { output: [] }),
    ]);
    const [cut, pause, paused, resume, cancel, resumed, again, completed] = entries;
    expect(cut).toMatchObject({ type: 'message', done: false, cut: 'the run paused' });
    expect(pause?.outcome).toEqual({ text: 'the run paused', seq: paused?.seq });
    expect(resume?.outcome).toEqual({ text: 'the run resumed', seq: resumed?.seq });
    expect(cancel?.outcome).toEqual({
      text: 'the run ended (completed) first',
      seq: completed?.seq,
    });
    expect(again).toMatchObject({ type: 'message', text: 'Hello', cut: 'the run ended' });
  });

  it('keeps a call that starts again after a hold in one entry', () => {
    const start = { call_id: 'c2', name: 'refund', arguments: { amount: 80 } };
    const entries = foldAll([
      event('tool.call.started', start),
      event('run.interrupted', { payload: { tool: 'refund' }, thread_id: 's' }),
      event('run.resumed', { request_id: null }),
      event('tool.call.started', start),
      event('tool.call.completed', { call_id: 'c2', name: 'refund', output: 'ok', error: null }),
    ]);
    expect(entries.map((e) => e.type)).toEqual(['tool', 'run.interrupted', 'run.resumed']);
    expect(entries[0]).toMatchObject({ done: true, output: 'ok' });
    expect(entries[0]?.events).toHaveLength(3);
  });

  it('keeps every event: an unknown kind is an entry of its own', () => {
    const events = [
      event('node.updated', { node: 'ask', delta: { approved: true } }),
      event('shiny.new.kind', { anything: [1, 2] }),
      event('run.completed', { output: [], usage: null }),
    ];
    const entries = foldAll(events);
    expect(entries.map((e) => e.type)).toEqual(['node.updated', 'unknown', 'run.completed']);
    expect(entries[1]?.payload).toEqual({ anything: [1, 2] });
    expect(entries.flatMap((e) => e.events)).toEqual(events);
  });

  it('knows a model request and its response (#41): entries of their own, their payloads kept', () => {
    const entries = foldAll([
      event('model.call.started', { call_id: 'mc-1', model: 'gpt-4o-mini', messages: ['v:1'] }),
      event('model.call.completed', { call_id: 'mc-1', finish_reason: 'stop', error: null }),
    ]);
    expect(entries.map((e) => e.type)).toEqual(['model.call.started', 'model.call.completed']);
    expect(entries[0]?.payload).toMatchObject({ model: 'gpt-4o-mini' });
  });
});
