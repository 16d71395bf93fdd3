import { describe, expect, it } from 'vitest';
import { newRunId } from './run-ids.js';

const UUID_V7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe('run ids', () => {
  it('are version 7 UUIDs carrying their creation time', () => {
    const at = Date.UTC(2026, 10, 23, 12, 0, 0, 123);
    const id = newRunId(at);
    expect(id).toMatch(UUID_V7);
    expect(Number.parseInt(id.replace('-', '').slice(0, 12), 16)).toBe(at);
  });

  it('sort in the order they were made, and never repeat', () => {
    const ids = Array.from({ length: 1000 }, (_, i) => newRunId(1_700_000_000_000 + i));
    expect([...ids].sort()).toEqual(ids);
    expect(new Set(Array.from({ length: 10_000 }, () => newRunId())).size).toBe(10_000);
  });
});
