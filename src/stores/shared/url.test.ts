import { describe, expect, it } from 'vitest';
import { redactUrl } from './url.js';

describe('redactUrl', () => {
  it('hides the password and keeps the rest', () => {
    expect(redactUrl('redis://app:s3cret@cache:6379/2')).toBe('redis://app:***@cache:6379/2');
    expect(redactUrl('rediss://:s3cret@cache')).toBe('rediss://:***@cache');
  });

  it('hides a password given as a query parameter (libpq style)', () => {
    expect(redactUrl('postgres://db/app?user=me&password=s3cret')).toBe(
      'postgres://db/app?user=me&password=***',
    );
  });

  it('leaves a URL without a password as it is', () => {
    expect(redactUrl('redis://127.0.0.1:6379')).toBe('redis://127.0.0.1:6379');
  });

  it('hides what looks like a password in an unparseable URL', () => {
    expect(redactUrl('redis://u:s3cret@host:notaport')).toBe('redis://u:***@host:notaport');
  });
});
