import { describe, expect, it } from 'vitest';
import { InvalidInputError } from '../../core/errors.js';
import type { NewEvent } from '../../core/events.js';
import { isStale } from '../../core/store.js';
import { nextTimestamp, prepareEvents } from './stored-event.js';

describe('nextTimestamp', () => {
  it('is now, or the previous timestamp when the clock is behind it', () => {
    const now = nextTimestamp(null);
    expect(now).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
    expect(nextTimestamp('2000-01-01T00:00:00.000Z') >= now).toBe(true);
    expect(nextTimestamp('2999-01-01T00:00:00.000Z')).toBe('2999-01-01T00:00:00.000Z');
  });
});

describe('prepareEvents', () => {
  const base = { runId: 'r1', sessionId: null, namespace: null, origin: 'o' };

  it('stores the wire payload and flags lifecycle kinds', () => {
    const [delta, started] = prepareEvents([
      { ...base, kind: 'text.delta', payload: { messageId: 'm', text: 'hi' } },
      { ...base, kind: 'run.started', payload: { invocableType: 'agent', input: [] } },
    ]);
    expect(delta).toMatchObject({ kind: 'text.delta', lifecycle: false });
    expect(JSON.parse(delta?.payload ?? '')).toEqual({ message_id: 'm', text: 'hi' });
    expect(started?.lifecycle).toBe(true);
  });

  it('names the event and what is wrong with it', () => {
    const bad = (event: object) => () => prepareEvents([event as NewEvent]);
    expect(bad({ ...base, runId: '' })).toThrow(InvalidInputError);
    expect(bad({ ...base, runId: '', kind: 'custom' })).toThrow(
      /event 0 of the batch has no runId/,
    );
    expect(bad({ ...base, sessionId: 3, kind: 'custom' })).toThrow(/sessionId and namespace/);
    expect(bad({ ...base, kind: '', payload: {} })).toThrow(/has no kind/);
    expect(bad({ ...base, kind: 'custom', payload: { data: 1n } })).toThrow(
      /cannot be written as JSON/,
    );
    expect(bad({ ...base, kind: 'custom', payload: null })).toThrow(/has no payload/);
  });
});

describe('isStale', () => {
  it('is true only past staleAfterMs', () => {
    const holder = { runId: 'r', claimedAt: '2026-01-01T00:00:00.000Z' };
    const at = Date.parse(holder.claimedAt);
    expect(isStale(holder, 1_000, at + 1_000)).toBe(false);
    expect(isStale(holder, 1_000, at + 1_001)).toBe(true);
  });
});
