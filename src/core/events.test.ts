import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DataBlock, ImageBlock, ResourceBlock, TextBlock } from './blocks.js';
import { InvalidInputError } from './errors.js';
import { wirePayloads } from './event-schema.js';
import { isKnownKind, isTerminal, parseEvent, toWire } from './events.js';

const corpus = join(import.meta.dirname, '../../test/fixtures/events/v3');

function lines(file: string): unknown[] {
  return readFileSync(join(corpus, file), 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line));
}

describe('the frozen v3 event corpus', () => {
  const files = readdirSync(corpus).filter((f) => f.endsWith('.jsonl'));

  it('has a fixture for every known kind', () => {
    const kinds = files.map((f) => f.replace(/\.jsonl$/, '')).filter((k) => k !== 'unknown');
    expect(kinds.sort()).toEqual(Object.keys(wirePayloads).sort());
  });

  for (const file of files.filter((f) => f !== 'unknown.jsonl')) {
    it(`parses and round-trips ${file}`, () => {
      for (const wire of lines(file)) {
        const event = parseEvent(wire);
        expect(event.kind).toBe((wire as { kind: string }).kind);
        expect(toWire(event)).toEqual(wire);
        expect(parseEvent(JSON.stringify(wire))).toEqual(event);
      }
    });
  }

  it('reads unknown kinds and unreadable payloads as UnknownEvent, keeping the raw data', () => {
    const [handoff, badDelta] = lines('unknown.jsonl').map(parseEvent);
    expect(handoff).toMatchObject({
      kind: 'unknown',
      rawKind: 'handoff.occurred',
      payload: { from: 'triage', to: 'billing' },
      runId: 'run-fixture-1',
    });
    expect(badDelta).toMatchObject({
      kind: 'unknown',
      rawKind: 'text.delta',
      payload: { text: 42 },
    });
    expect(toWire(handoff as never)).toEqual(lines('unknown.jsonl')[0]);
  });
});

describe('parseEvent', () => {
  it('maps the wire form to camelCase fields and block instances', () => {
    const [started] = lines('run.started.jsonl').map(parseEvent);
    if (started?.kind !== 'run.started') throw new Error('expected run.started');
    expect(started.sessionId).toBe('sess-1');
    expect(started.payload.invocableType).toBe('agent');
    expect(started.payload.input[0]).toBeInstanceOf(TextBlock);
    expect(started.payload.input[1]).toBeInstanceOf(ImageBlock);
    expect(started.payload.input[1]).toMatchObject({ mediaType: 'image/png' });
    expect(started.payload.input[2]).toBeInstanceOf(ResourceBlock);
  });

  it('reads usage inside run.completed in camelCase', () => {
    const [completed, workflowDone] = lines('run.completed.jsonl').map(parseEvent);
    if (completed?.kind !== 'run.completed') throw new Error('expected run.completed');
    expect(completed.payload.usage).toEqual({
      requests: 2,
      inputTokens: 22,
      outputTokens: 10,
      totalTokens: 32,
      usd: 0.0000093,
    });
    if (workflowDone?.kind !== 'run.completed') throw new Error('expected run.completed');
    expect(workflowDone.payload.output[0]).toBeInstanceOf(DataBlock);
    expect(isTerminal(completed)).toBe(true);
  });

  it('refuses a malformed envelope with a clear error', () => {
    expect(() => parseEvent({ kind: 'text.delta' })).toThrow(InvalidInputError);
    expect(() => parseEvent('not json')).toThrow(/not valid JSON/);
  });

  it('knows exactly the kinds of DESIGN.md', () => {
    expect(isKnownKind('run.started')).toBe(true);
    expect(isKnownKind('toString')).toBe(false);
    expect(isKnownKind('handoff.occurred')).toBe(false);
  });
});
