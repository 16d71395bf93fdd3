import { describe, expect, it } from 'vitest';
import { ConfigError } from '../core/errors.js';
import { parseCheckpointUrl } from './checkpoints-url.js';

describe('SERVICE_CHECKPOINT', () => {
  it("defaults to the event store's SQLite file, or ./.agentdeck/state.db", () => {
    expect(parseCheckpointUrl(undefined, undefined, '/srv/app')).toEqual({
      backend: 'sqlite',
      path: '/srv/app/.agentdeck/state.db',
    });
    expect(parseCheckpointUrl('', 'sqlite:///data/state.db', '/srv/app')).toEqual({
      backend: 'sqlite',
      path: '/data/state.db',
    });
    expect(parseCheckpointUrl(undefined, 'memory://', '/srv/app')).toEqual({
      backend: 'sqlite',
      path: '/srv/app/.agentdeck/state.db',
    });
  });

  it('accepts memory://, sqlite:// and postgres:// URLs', () => {
    expect(parseCheckpointUrl('memory://', undefined)).toEqual({ backend: 'memory' });
    expect(parseCheckpointUrl('sqlite://cp.db', undefined, '/srv')).toEqual({
      backend: 'sqlite',
      path: '/srv/cp.db',
    });
    expect(parseCheckpointUrl('postgresql://u:p@db:5432/app', undefined)).toEqual({
      backend: 'postgres',
      url: 'postgresql://u:p@db:5432/app',
    });
  });

  it('refuses anything else with the accepted forms, hiding a password', () => {
    expect(() => parseCheckpointUrl('redis://u:secret@cache:6379', undefined)).toThrow(ConfigError);
    expect(() => parseCheckpointUrl('redis://u:secret@cache:6379', undefined)).toThrow(
      "SERVICE_CHECKPOINT 'redis://***@cache:6379' is not a supported checkpointer; leave SERVICE_CHECKPOINT unset",
    );
    expect(() => parseCheckpointUrl('sqlite://', undefined)).toThrow(ConfigError);
  });
});
