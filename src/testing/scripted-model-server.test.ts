import { request as httpRequest } from 'node:http';
import { Agent, Runner, tool } from '@openai/agents-core';
import { OpenAIProvider } from '@openai/agents-openai';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import { type ScriptedModelServer, scriptedModelServer } from './scripted-model-server.js';

const servers: ScriptedModelServer[] = [];

async function start(...args: Parameters<typeof scriptedModelServer>) {
  const server = await scriptedModelServer(...args);
  servers.push(server);
  return server;
}

afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

function runnerFor(server: ScriptedModelServer, useResponses: boolean) {
  const modelProvider = new OpenAIProvider({ apiKey: 'test', baseURL: server.url, useResponses });
  return new Runner({ modelProvider, tracingDisabled: true });
}

function weatherTool(seen: string[]) {
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

const apis = [
  { api: 'responses', useResponses: true, path: '/v1/responses' },
  { api: 'chat completions', useResponses: false, path: '/v1/chat/completions' },
] as const;

describe.each(apis)('scriptedModelServer over $api', ({ useResponses, path }) => {
  it('answers a non-streamed run with usage', async () => {
    const server = await start([
      { text: 'Hello there', usage: { inputTokens: 7, outputTokens: 3 } },
    ]);
    const agent = new Agent({ name: 'greeter', instructions: 'Be kind.', model: 'gpt-4.1-mini' });

    const result = await runnerFor(server, useResponses).run(agent, 'Hi!');

    expect(result.finalOutput).toBe('Hello there');
    expect(result.state.usage).toMatchObject({ inputTokens: 7, outputTokens: 3, totalTokens: 10 });
    expect(result.rawResponses[0]?.usage.totalTokens).toBe(10);
    expect(server.requests).toHaveLength(1);
    expect(server.requests[0]?.path).toBe(path);
    expect(server.requests[0]?.body.model).toBe('gpt-4.1-mini');
    expect(JSON.stringify(server.requests[0]?.body)).toContain('Be kind.');
    expect(JSON.stringify(server.requests[0]?.body)).toContain('Hi!');
    server.assertConsumed();
  });

  it('streams text deltas as several chunks', async () => {
    const server = await start([{ text: ['It ', 'is ', 'sunny.'], delayMs: 5 }]);
    const agent = new Agent({ name: 'streamer', model: 'gpt-4.1-mini' });

    const result = await runnerFor(server, useResponses).run(agent, 'Weather?', { stream: true });
    const deltas: string[] = [];
    for await (const event of result) {
      if (event.type === 'raw_model_stream_event' && event.data.type === 'output_text_delta') {
        deltas.push(event.data.delta);
      }
    }
    await result.completed;

    expect(deltas).toEqual(['It ', 'is ', 'sunny.']);
    expect(result.finalOutput).toBe('It is sunny.');
    expect(result.state.usage).toMatchObject({ inputTokens: 10, outputTokens: 5, totalTokens: 15 });
    expect(server.requests[0]?.body.stream).toBe(true);
  });

  for (const stream of [false, true]) {
    it(`runs a tool call round trip (${stream ? 'streamed' : 'non-streamed'})`, async () => {
      const seen: string[] = [];
      const server = await start([
        { toolCalls: [{ name: 'get_weather', arguments: { city: 'Paris' }, callId: 'call_w1' }] },
        { text: 'It is sunny in Paris.', usage: { inputTokens: 30, outputTokens: 8 } },
      ]);
      const agent = new Agent({
        name: 'weather',
        model: 'gpt-4.1-mini',
        tools: [weatherTool(seen)],
      });
      const runner = runnerFor(server, useResponses);

      let finalOutput: unknown;
      let usage: { requests: number; inputTokens: number; totalTokens: number };
      if (stream) {
        const result = await runner.run(agent, 'Weather in Paris?', { stream: true });
        for await (const _ of result) {
          // drain
        }
        await result.completed;
        finalOutput = result.finalOutput;
        usage = result.state.usage;
      } else {
        const result = await runner.run(agent, 'Weather in Paris?');
        finalOutput = result.finalOutput;
        usage = result.state.usage;
      }

      expect(seen).toEqual(['Paris']);
      expect(finalOutput).toBe('It is sunny in Paris.');
      expect(usage).toMatchObject({ requests: 2, inputTokens: 40, totalTokens: 53 });
      expect(server.requests).toHaveLength(2);

      const [first, second] = server.requests;
      const sentTool = useResponses ? first?.body.tools[0] : first?.body.tools[0].function;
      expect(sentTool.name).toBe('get_weather');
      expect(sentTool.parameters.properties).toHaveProperty('city');
      const followUp = JSON.stringify(second?.body.input ?? second?.body.messages);
      expect(followUp).toContain('call_w1');
      expect(followUp).toContain('sunny in Paris');
      server.assertConsumed();
    });
  }

  it('parses structured output from JSON text', async () => {
    const server = await start([{ text: '{"city":"Rome","tempC":21}', chunkSize: 6 }]);
    const agent = new Agent({
      name: 'extractor',
      model: 'gpt-4.1-mini',
      outputType: z.object({ city: z.string(), tempC: z.number() }),
    });
    const result = await runnerFor(server, useResponses).run(agent, 'Rome, 21C', { stream: true });
    await result.completed;
    expect(result.finalOutput).toEqual({ city: 'Rome', tempC: 21 });
    const body = JSON.stringify(server.requests[0]?.body);
    expect(body).toContain('json_schema');
  });

  it('fails the run with a scripted error, without client retries', async () => {
    const server = await start([{ error: 'rate limited' }, { text: 'should not be used' }]);
    const agent = new Agent({ name: 'a', model: 'gpt-4.1-mini' });
    await expect(runnerFor(server, useResponses).run(agent, 'x')).rejects.toThrow('rate limited');
    expect(server.requests).toHaveLength(1);
    expect(server.remaining).toBe(1);
  });

  it('fails loudly and records the request when the script is exhausted', async () => {
    const server = await start([]);
    const agent = new Agent({ name: 'a', model: 'gpt-4.1-mini' });
    const result = await runnerFor(server, useResponses).run(agent, 'one more?', { stream: true });
    await expect(result.completed).rejects.toThrow(/script exhausted.*one more\?/);
    expect(server.requests).toHaveLength(1);
  });
});

describe('scriptedModelServer HTTP surface', () => {
  it('serves 404 JSON for unknown paths and 500 JSON when exhausted', async () => {
    const server = await start([]);
    const notFound = await fetch(`${server.url}/embeddings`, { method: 'POST', body: '{}' });
    expect(notFound.status).toBe(404);
    expect(await notFound.json()).toMatchObject({ error: { message: expect.any(String) } });

    const exhausted = await fetch(`${server.url}/chat/completions`, {
      method: 'POST',
      body: JSON.stringify({ model: 'm', messages: [{ role: 'user', content: 'ping' }] }),
    });
    expect(exhausted.status).toBe(500);
    expect(exhausted.headers.get('x-should-retry')).toBe('false');
    const error = (await exhausted.json()) as { error: { message: string } };
    expect(error.error.message).toMatch(/script exhausted/);
    expect(error.error.message).toContain('ping');
    expect(server.requests).toEqual([
      {
        path: '/v1/chat/completions',
        body: expect.objectContaining({ model: 'm' }),
        headers: expect.any(Object),
      },
    ]);
  });

  it('frames chat streams as data chunks ending in [DONE], with usage when asked', async () => {
    const server = await start([
      { text: 'abcdef', chunkSize: 3, toolCalls: [{ name: 'f', arguments: { x: 1 } }] },
    ]);
    const response = await fetch(`${server.url}/chat/completions`, {
      method: 'POST',
      body: JSON.stringify({ model: 'm', stream: true, stream_options: { include_usage: true } }),
    });
    expect(response.headers.get('content-type')).toContain('text/event-stream');
    const frames = (await response.text()).split('\n\n').filter(Boolean);
    expect(frames.at(-1)).toBe('data: [DONE]');
    const chunks = frames.slice(0, -1).map((frame) => JSON.parse(frame.replace(/^data: /, '')));
    const contents = chunks.map((chunk) => chunk.choices[0]?.delta?.content).filter(Boolean);
    expect(contents).toEqual(['abc', 'def']);
    expect(chunks.at(-1)).toMatchObject({ choices: [], usage: { total_tokens: 15 } });
    expect(chunks.at(-2).choices[0].finish_reason).toBe('tool_calls');
  });

  it('supports push, remaining, assertConsumed and async dispose', async () => {
    let url: string;
    {
      await using server = await scriptedModelServer([{ text: 'a' }]);
      url = server.url;
      expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/v1$/);
      server.push({ text: 'b' }, { text: 'c' });
      expect(server.remaining).toBe(3);
      expect(() => server.assertConsumed()).toThrow('3 scripted steps left unconsumed');
    }
    await expect(fetch(`${url}/responses`, { method: 'POST', body: '{}' })).rejects.toThrow();
  });

  it('stops writing (and waiting) when the client disconnects mid-stream', async () => {
    const server = await start([{ text: ['a', 'b', 'c'], delayMs: 10_000 }]);
    const setTimeoutSpy = vi.spyOn(globalThis, 'setTimeout');
    const clearTimeoutSpy = vi.spyOn(globalThis, 'clearTimeout');
    try {
      const request = httpRequest(`${server.url}/responses`, { method: 'POST' });
      const text = await new Promise<string>((resolve, reject) => {
        request.on('error', reject);
        request.on('response', (response) => {
          let received = '';
          response.on('data', (chunk: Buffer) => {
            received += chunk.toString('utf8');
            if (received.includes('response.output_text.delta')) resolve(received);
          });
        });
        request.end(JSON.stringify({ model: 'm', input: 'hi', stream: true }));
      });
      // The server now waits 10s before the next delta; hanging up must cancel that wait.
      const delayTimer = () =>
        setTimeoutSpy.mock.results.find((_, i) => setTimeoutSpy.mock.calls[i]?.[1] === 10_000);
      await expect.poll(delayTimer).toBeDefined();
      request.destroy();
      await expect
        .poll(() => clearTimeoutSpy.mock.calls.some(([id]) => id === delayTimer()?.value))
        .toBe(true);
      expect(text).not.toContain('response.completed');
    } finally {
      setTimeoutSpy.mockRestore();
      clearTimeoutSpy.mockRestore();
    }
  });
});
