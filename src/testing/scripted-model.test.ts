import { Agent, type ModelRequest, Runner, tool } from '@openai/agents-core';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ScriptedModel } from './scripted-model.js';

const runner = new Runner({ tracingDisabled: true });

function weatherTool(seen: string[] = []) {
  return tool({
    name: 'get_weather',
    description: 'Weather for a city',
    parameters: z.object({ city: z.string() }),
    execute: async ({ city }) => {
      seen.push(city);
      return `sunny in ${city}`;
    },
  });
}

const baseRequest: ModelRequest = {
  input: 'hi',
  modelSettings: {},
  tools: [],
  outputType: 'text',
  handoffs: [],
  tracing: false,
};

describe('ScriptedModel through the engine', () => {
  it('answers a non-streamed run and records the request', async () => {
    const model = new ScriptedModel([
      { text: 'Hello there', usage: { inputTokens: 7, outputTokens: 3 } },
    ]);
    const agent = new Agent({ name: 'greeter', instructions: 'Be kind.', model });

    const result = await runner.run(agent, 'Hi!');

    expect(result.finalOutput).toBe('Hello there');
    expect(model.calls).toHaveLength(1);
    expect(model.calls[0]?.systemInstructions).toBe('Be kind.');
    expect(JSON.stringify(model.calls[0]?.input)).toContain('Hi!');
    expect(result.state.usage).toMatchObject({
      requests: 1,
      inputTokens: 7,
      outputTokens: 3,
      totalTokens: 10,
    });
    expect(model.remaining).toBe(0);
    model.assertConsumed();
  });

  it('runs a tool call round trip, non-streamed', async () => {
    const seen: string[] = [];
    const model = new ScriptedModel([
      { toolCalls: [{ name: 'get_weather', arguments: { city: 'Paris' }, callId: 'call_a' }] },
      { text: 'It is sunny in Paris.' },
    ]);
    const agent = new Agent({ name: 'weather', model, tools: [weatherTool(seen)] });

    const result = await runner.run(agent, 'Weather in Paris?');

    expect(seen).toEqual(['Paris']);
    expect(result.finalOutput).toBe('It is sunny in Paris.');
    expect(model.calls).toHaveLength(2);
    expect(model.calls[0]?.tools.map((t) => t.name)).toEqual(['get_weather']);
    const secondInput = model.calls[1]?.input;
    expect(Array.isArray(secondInput)).toBe(true);
    expect(secondInput).toContainEqual(
      expect.objectContaining({ type: 'function_call_result', callId: 'call_a' }),
    );
    expect(JSON.stringify(secondInput)).toContain('sunny in Paris');
    expect(result.state.usage).toMatchObject({ requests: 2, inputTokens: 20, outputTokens: 10 });
  });

  it('streams text deltas chunk by chunk, then a tool round trip', async () => {
    const seen: string[] = [];
    const model = new ScriptedModel([
      { text: 'Checking. ', toolCalls: [{ name: 'get_weather', arguments: '{"city":"Oslo"}' }] },
      { text: ['It is ', 'sunny ', 'in Oslo.'] },
    ]);
    const agent = new Agent({ name: 'weather', model, tools: [weatherTool(seen)] });

    const result = await runner.run(agent, 'Weather in Oslo?', { stream: true });
    const deltas: string[] = [];
    for await (const event of result) {
      if (event.type === 'raw_model_stream_event' && event.data.type === 'output_text_delta') {
        deltas.push(event.data.delta);
      }
    }
    await result.completed;

    expect(seen).toEqual(['Oslo']);
    expect(deltas).toEqual(['Chec', 'king', '. ', 'It is ', 'sunny ', 'in Oslo.']);
    expect(result.finalOutput).toBe('It is sunny in Oslo.');
    expect(result.state.usage.requests).toBe(2);
    expect(result.state.usage.totalTokens).toBe(30);
  });

  it('supports structured output (text is a JSON string)', async () => {
    const model = new ScriptedModel([{ text: JSON.stringify({ city: 'Rome', tempC: 21 }) }]);
    const agent = new Agent({
      name: 'extractor',
      model,
      outputType: z.object({ city: z.string(), tempC: z.number() }),
    });

    const result = await runner.run(agent, 'Rome, 21C');
    expect(result.finalOutput).toEqual({ city: 'Rome', tempC: 21 });
    expect(model.calls[0]?.outputType).toMatchObject({ type: 'json_schema' });

    const streamedModel = new ScriptedModel([{ text: '{"city":"Nice","tempC":25}', chunkSize: 5 }]);
    const streamed = await runner.run(agent.clone({ model: streamedModel }), 'Nice', {
      stream: true,
    });
    await streamed.completed;
    expect(streamed.finalOutput).toEqual({ city: 'Nice', tempC: 25 });
  });

  it('throws a scripted error', async () => {
    const model = new ScriptedModel([{ error: 'rate limited' }]);
    const agent = new Agent({ name: 'a', model });
    await expect(runner.run(agent, 'x')).rejects.toThrow('rate limited');

    const streamedModel = new ScriptedModel([{ error: 'boom' }]);
    const streamed = await runner.run(agent.clone({ model: streamedModel }), 'x', { stream: true });
    await expect(streamed.completed).rejects.toThrow('boom');
  });

  it('fails loudly when the script is exhausted', async () => {
    const model = new ScriptedModel([]);
    const agent = new Agent({ name: 'a', model });
    await expect(runner.run(agent, 'what now?')).rejects.toThrow(/script exhausted.*what now\?/);
    expect(model.calls).toHaveLength(1);

    const streamed = await runner.run(agent, 'and now?', { stream: true });
    await expect(streamed.completed).rejects.toThrow(/script exhausted.*and now\?/);
    expect(model.calls).toHaveLength(2);
  });

  it('assertConsumed names the steps left; push appends', async () => {
    const model = new ScriptedModel([{ text: 'a' }, { text: 'b' }], { name: 'planner' });
    expect(() => model.assertConsumed()).toThrow('planner: 2 scripted steps left unconsumed');
    await model.getResponse(baseRequest);
    expect(model.remaining).toBe(1);
    model.push({ text: 'c' });
    expect(() => model.assertConsumed()).toThrow('2 scripted steps');
  });

  it('emits the documented stream events and response shape', async () => {
    const model = new ScriptedModel([
      {
        text: 'abcdef',
        chunkSize: 3,
        toolCalls: [{ name: 'f', arguments: { x: 1 } }],
        usage: { inputTokens: 2, outputTokens: 4 },
      },
    ]);
    const events = [];
    for await (const event of model.getStreamedResponse(baseRequest)) events.push(event);
    expect(events.map((e) => e.type)).toEqual([
      'response_started',
      'output_text_delta',
      'output_text_delta',
      'response_done',
    ]);
    const done = events.at(-1);
    if (done?.type !== 'response_done') throw new Error('expected response_done');
    expect(done.response.usage).toEqual({
      requests: 1,
      inputTokens: 2,
      outputTokens: 4,
      totalTokens: 6,
    });
    expect(done.response.output).toEqual([
      {
        type: 'message',
        role: 'assistant',
        status: 'completed',
        id: expect.any(String),
        content: [{ type: 'output_text', text: 'abcdef' }],
      },
      {
        type: 'function_call',
        status: 'completed',
        id: expect.any(String),
        callId: expect.stringMatching(/^call_/),
        name: 'f',
        arguments: '{"x":1}',
      },
    ]);
  });

  it('stops promptly with an AbortError when the signal aborts mid-delay', async () => {
    const model = new ScriptedModel([{ text: ['a', 'b', 'c'], delayMs: 10_000 }]);
    const controller = new AbortController();
    const received: string[] = [];
    const started = Date.now();
    const consume = (async () => {
      for await (const event of model.getStreamedResponse({
        ...baseRequest,
        signal: controller.signal,
      })) {
        if (event.type === 'output_text_delta') {
          received.push(event.delta);
          setTimeout(() => controller.abort(), 20);
        }
      }
    })();
    await expect(consume).rejects.toMatchObject({ name: 'AbortError' });
    expect(received).toEqual(['a']);
    expect(Date.now() - started).toBeLessThan(2_000);
  });

  it('lets the engine cancel a streamed run through its signal', async () => {
    const model = new ScriptedModel([{ text: ['one ', 'two ', 'three'], delayMs: 10_000 }]);
    const agent = new Agent({ name: 'slow', model });
    const controller = new AbortController();
    const started = Date.now();
    const result = await runner.run(agent, 'go', { stream: true, signal: controller.signal });
    const deltas: string[] = [];
    for await (const event of result) {
      if (event.type === 'raw_model_stream_event' && event.data.type === 'output_text_delta') {
        deltas.push(event.data.delta);
        controller.abort();
      }
    }
    await result.completed.catch(() => undefined);
    expect(Date.now() - started).toBeLessThan(2_000);
    expect(deltas).toEqual(['one ']);
    expect(model.remaining).toBe(0);
  });
});
