/** The engine's own tracing is off unless SERVICE_SDK_TRACING asks for it. */
import {
  getGlobalTraceProvider,
  setTraceProcessors,
  type TracingProcessor,
} from '@openai/agents-core';
import { afterEach, describe, expect, it } from 'vitest';
import { openTestDeck } from '../../../test/support/decks.js';
import { Agent } from '../../index.js';
import { ScriptedModel } from '../../testing/index.js';
import { engineSettingsFromEnv } from './settings.js';

function recordingProcessor() {
  const traces: string[] = [];
  const processor: TracingProcessor = {
    async onTraceStart(trace) {
      traces.push(trace.name);
    },
    async onTraceEnd() {},
    async onSpanStart() {},
    async onSpanEnd() {},
    async shutdown() {},
    async forceFlush() {},
  };
  return { traces, processor };
}

afterEach(() => {
  setTraceProcessors([]);
  getGlobalTraceProvider().setDisabled(true);
});

describe('engine tracing', () => {
  it('creates no engine trace for a recorded turn by default', async () => {
    const { traces, processor } = recordingProcessor();
    // The engine switches its provider off under NODE_ENV=test; switch it on so that only
    // our own runner setting can keep traces from being made.
    getGlobalTraceProvider().setDisabled(false);
    setTraceProcessors([processor]);
    const model = new ScriptedModel([{ text: 'quiet' }]);
    const { deck } = await openTestDeck({ agents: [new Agent({ name: 'A', model })] });
    await deck.run('A', 'hi');
    expect(traces).toEqual([]);
  });

  it('reads SERVICE_SDK_TRACING as a boolean and refuses anything else', () => {
    expect(engineSettingsFromEnv({}).sdkTracing).toBe(false);
    expect(engineSettingsFromEnv({ SERVICE_SDK_TRACING: 'true' }).sdkTracing).toBe(true);
    expect(() => engineSettingsFromEnv({ SERVICE_SDK_TRACING: 'maybe' })).toThrow(
      /SERVICE_SDK_TRACING=maybe is not a boolean/,
    );
    expect(engineSettingsFromEnv({ OPENAI_USE_RESPONSES: 'false' }).useResponses).toBe(false);
  });
});
