import { describe, expect, it, vi } from 'vitest';
import { DeckError, isDeckError, NotFoundError, StoreUnavailableError } from './errors.js';

describe('isDeckError', () => {
  it('tells our errors from others', () => {
    expect(isDeckError(new NotFoundError('no run'))).toBe(true);
    expect(isDeckError(new StoreUnavailableError('postgres', 'down'))).toBe(true);
    expect(isDeckError(new Error('plain'))).toBe(false);
    expect(isDeckError({ code: 'not_found', message: 'look-alike' })).toBe(false);
    expect(isDeckError(null)).toBe(false);
  });

  it('holds across two copies of the module, where instanceof does not', async () => {
    vi.resetModules();
    // A string the type checker does not resolve: vite loads the query as a module of its own.
    const specifier = './errors.js?copy';
    const copy = (await import(/* @vite-ignore */ specifier)) as typeof import('./errors.js');
    const foreign = new copy.NotFoundError('from the other copy');
    expect(foreign instanceof DeckError).toBe(false);
    expect(isDeckError(foreign)).toBe(true);
    expect(foreign.code).toBe('not_found');
  });
});
