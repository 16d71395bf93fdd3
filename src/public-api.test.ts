import { describe, expect, it } from 'vitest';
import * as root from './index.js';
import * as langfuse from './observers/langfuse/index.js';
import * as stores from './stores/index.js';
import * as server from './surfaces/http/index.js';
import * as testing from './testing/index.js';

describe('the public surface', () => {
  it('pins the runtime exports of agentdeck', () => {
    expect(Object.keys(root).sort()).toEqual(
      [
        'Agent',
        'AudioBlock',
        'BlockTooLargeError',
        'ConsoleObserver',
        'ConfigError',
        'ConflictError',
        'Context',
        'ContextTypeError',
        'DataBlock',
        'Deck',
        'DeckClosedError',
        'DeckError',
        'EVENT_SCHEMA_VERSION',
        'INLINE_BLOCK_LIMIT_BYTES',
        'ImageBlock',
        'InterruptResult',
        'InvalidInputError',
        'MCP',
        'MODEL_PRICES',
        'NotFoundError',
        'NotOpenError',
        'RateLimitedError',
        'ResourceBlock',
        'RunCancelledError',
        'RunFailedError',
        'SLEEP_UNTIL_KEY',
        'Schedule',
        'Scorer',
        'Skills',
        'StoreError',
        'TextBlock',
        'Workflow',
        'foldStatus',
        'interrupt',
        'isDeckError',
        'isInterrupt',
        'modelCallsOf',
        'needsContext',
        'oneOf',
        'protocol',
        'typeParameter',
        'isObserver',
        'sleepUntil',
        'withContext',
        'isTerminal',
        'judgeScorer',
        'parseEvent',
        'toWire',
        'tool',
        'wantsEngineSpans',
      ].sort(),
    );
  });

  it('pins the runtime exports of agentdeck/server', () => {
    expect(Object.keys(server).sort()).toEqual(
      [
        'DEFAULT_MAX_BODY_BYTES',
        'SSE_HEADERS',
        'appSettingsFromEnv',
        'catalogNames',
        'serve',
        'serveSettingsFromEnv',
      ].sort(),
    );
  });

  it('pins the runtime exports of agentdeck/stores', () => {
    expect(Object.keys(stores).sort()).toEqual(
      [
        'MemoryEventStore',
        'PostgresEventStore',
        'RedisSessionBackend',
        'SqliteCheckpointer',
        'SqliteEventStore',
        'SqliteSessionBackend',
        'openEventStore',
        'openSessionBackend',
      ].sort(),
    );
  });

  it('pins the runtime exports of agentdeck/testing', () => {
    expect(Object.keys(testing).sort()).toEqual(
      ['DEFAULT_SCRIPTED_USAGE', 'ScriptedModel', 'scriptedModelServer'].sort(),
    );
  });

  it('pins the runtime exports of agentdeck/observers/langfuse', () => {
    expect(Object.keys(langfuse).sort()).toEqual(['LANGFUSE_CLOUD_URL', 'LangfuseObserver']);
  });

  it('gives every error a stable code and its class name', () => {
    const error = new root.ContextTypeError('x');
    expect(error).toBeInstanceOf(root.ConfigError);
    expect(error).toBeInstanceOf(root.DeckError);
    expect(error.name).toBe('ContextTypeError');
    expect(error.code).toBe('context_type');
    expect(new root.ConflictError('busy').code).toBe('conflict');
  });
});
