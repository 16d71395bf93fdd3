import { describe, expect, it } from 'vitest';
import type { EventDraft } from './events.js';
import { stampEvent } from './events.js';
import { foldStatus } from './status.js';

const identity = { runId: 'r1', sessionId: null, namespace: null, origin: 'A' };
const ev = (draft: EventDraft, seq: number) =>
  stampEvent({ ...identity, ...draft } as never, seq, new Date(0).toISOString());

describe('foldStatus', () => {
  it('is null for a run with no events', () => {
    expect(foldStatus([])).toBeNull();
  });

  it('follows the lifecycle and never leaves a terminal status', () => {
    const events = [
      ev({ kind: 'run.started', payload: { invocableType: 'workflow', input: [] } }, 0),
      ev({ kind: 'run.interrupted', payload: { payload: { q: 1 }, threadId: 't' } }, 1),
    ];
    expect(foldStatus(events)).toBe('waiting_human');
    events.push(ev({ kind: 'run.resumed', payload: { requestId: null } }, 2));
    expect(foldStatus(events)).toBe('running');
    events.push(ev({ kind: 'run.paused', payload: { reason: null } }, 3));
    expect(foldStatus(events)).toBe('paused');
    events.push(ev({ kind: 'run.cancelled', payload: { reason: 'stop' } }, 4));
    events.push(ev({ kind: 'run.started', payload: { invocableType: 'agent', input: [] } }, 5));
    expect(foldStatus(events)).toBe('cancelled');
  });

  it('is pending while only non-lifecycle events exist', () => {
    const request = ev(
      { kind: 'control.requested', payload: { verb: 'pause', reason: null, requestId: 'q' } },
      0,
    );
    expect(foldStatus([request])).toBe('pending');
  });
});
