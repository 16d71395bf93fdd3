/**
 * What the model saw (#41), through the real engine and the OpenAI client against the
 * scripted model server: each model request recorded as `model.call.started` (the request as
 * the server received it) and `model.call.completed` (the response), on both APIs, on the
 * plain loop (`deck.run`) and the streamed one (`deck.stream`); large values once per run;
 * `metadata` keeps no bodies, `off` records nothing; a failed request records its error; the
 * HTTP route returns each request rebuilt.
 */
import { describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import { collect, openTestDeck } from '../../test/support/decks.js';
import { useScriptedModelServer } from '../../test/support/model-server.js';
import { type ModelCall, modelCallsOf } from '../core/model-calls.js';
import { Agent, type Event, tool } from '../index.js';
import type { RecordedRequest } from '../testing/index.js';

const modelServer = useScriptedModelServer();

const weather = tool({
  name: 'weather',
  description: 'The weather in a city',
  parameters: z.object({ city: z.string() }),
  execute: ({ city }) => `sunny in ${city}`,
});

const forecaster = () =>
  new Agent({
    name: 'Forecaster',
    instructions: 'Answer with the weather.',
    tools: [weather],
    modelSettings: { temperature: 0.3, maxTokens: 200 },
  });

/** A tool call, then the answer: two requests in one turn. */
const toolThenAnswer = () =>
  modelServer().push(
    {
      toolCalls: [{ name: 'weather', arguments: { city: 'Oslo' }, callId: 'call_w' }],
      usage: { inputTokens: 40, outputTokens: 8 },
    },
    { text: 'Sunny in Oslo.', usage: { inputTokens: 60, outputTokens: 5 } },
  );

/** The recorded request, in the shape the server received it. */
function asReceived(call: ModelCall, api: 'responses' | 'chat') {
  if (api === 'responses') {
    return {
      model: call.model,
      instructions: call.instructions,
      input: call.messages,
      tools: call.tools,
      temperature: call.settings.temperature,
      max_output_tokens: call.settings.max_output_tokens,
    };
  }
  return {
    model: call.model,
    messages: [{ role: 'system', content: call.instructions }, ...call.messages],
    tools: call.tools,
    temperature: call.settings.temperature,
    max_tokens: call.settings.max_tokens,
  };
}

function received(request: RecordedRequest | undefined, api: 'responses' | 'chat') {
  const body = request?.body;
  if (api === 'responses') {
    const { model, instructions, input, tools, temperature, max_output_tokens } = body;
    return { model, instructions, input, tools, temperature, max_output_tokens };
  }
  const { model, messages, tools, temperature, max_tokens } = body;
  return { model, messages, tools, temperature, max_tokens };
}

/** Every digest a run stored, with how many of its events stored it. */
function storedDigests(events: readonly Event[]): Map<string, number> {
  const stored = new Map<string, number>();
  for (const event of events) {
    if (event.kind !== 'model.call.started') continue;
    for (const digest of Object.keys(event.payload.values)) {
      stored.set(digest, (stored.get(digest) ?? 0) + 1);
    }
  }
  return stored;
}

describe.each([
  ['Responses', 'true', 'responses'],
  ['chat completions', 'false', 'chat'],
] as const)('model calls over the %s API', (_name, useResponses, api) => {
  it.each([
    ['plain loop (deck.run)', false],
    ['streamed loop (deck.stream)', true],
  ])('records each request as the server received it, on the %s', async (_loop, live) => {
    vi.stubEnv('OPENAI_USE_RESPONSES', useResponses);
    vi.stubEnv('OPENAI_MODEL', 'gpt-4o-mini');
    const { deck, eventStore } = await openTestDeck({ agents: [forecaster()] });
    toolThenAnswer();
    const runId = live
      ? (await collect(deck.stream('Forecaster', 'Weather in Oslo?')))[0]?.runId
      : (await deck.run('Forecaster', 'Weather in Oslo?')).runId;
    const events = await eventStore.read(runId ?? '');
    const requests = modelServer().requests;
    const calls = modelCallsOf(events);
    expect(calls).toHaveLength(2);
    for (const [i, call] of calls.entries()) {
      expect(asReceived(call, api)).toEqual(received(requests[i], api));
      expect(call.detail).toBe('full');
      expect(call.error).toBeNull();
      expect(call.providerRequestId).toBe(`req_${i + 1}`);
      expect(call.latencyMs).toBeGreaterThan(0);
    }
    expect(calls[0]?.settings).toMatchObject({ temperature: 0.3 });
    expect(calls.map((c) => [c.inputTokens, c.outputTokens])).toEqual([
      [40, 8],
      [60, 5],
    ]);
    expect(calls.map((c) => c.finishReason)).toEqual(
      api === 'chat' ? ['tool_calls', 'stop'] : ['completed', 'completed'],
    );
    expect(calls[0]?.output).toEqual([
      expect.objectContaining({ type: 'function_call', name: 'weather', callId: 'call_w' }),
    ]);
    expect(JSON.stringify(calls[1]?.output)).toContain('Sunny in Oslo.');

    // In the turn's order: each start before its response's events, each end before its items.
    const order = events
      .map((e) => e.kind)
      .filter((k) => k !== 'text.delta' && k !== 'run.started' && k !== 'run.completed');
    expect(order).toEqual([
      'model.call.started',
      'usage.reported',
      'model.call.completed',
      'tool.call.started',
      'tool.call.completed',
      'model.call.started',
      'usage.reported',
      'model.call.completed',
      'message.completed',
    ]);

    // Each value once per run: the second request stores only what the first did not send.
    const stored = storedDigests(events);
    expect([...stored.values()].every((n) => n === 1)).toBe(true);
    const [first, second] = events.filter((e) => e.kind === 'model.call.started');
    const firstValues = Object.keys(first?.payload.values ?? {});
    const secondValues = Object.keys(second?.payload.values ?? {});
    expect(firstValues).toHaveLength((calls[0]?.messages.length ?? 0) + 2); // + instructions, tool
    expect(secondValues).toEqual(
      calls[1]?.digests.messages.filter((d) => !calls[0]?.digests.messages.includes(d)),
    );
    // Usage totals are unchanged by the records.
    const completed = events.at(-1);
    expect(completed?.kind).toBe('run.completed');
  });
});

describe('model calls, by setting and outcome', () => {
  it('stores each value once per run, and a second turn of the session only what it sends anew', async () => {
    const { deck, eventStore } = await openTestDeck({ agents: [forecaster()] });
    toolThenAnswer();
    modelServer().push({ text: 'Still sunny.' });
    const first = await deck.run('Forecaster', 'Weather in Oslo?', { sessionId: 's-two' });
    const second = await deck.run('Forecaster', 'And tomorrow?', { sessionId: 's-two' });
    const firstEvents = await eventStore.read(first.runId);
    const secondEvents = await eventStore.read(second.runId);
    const [again] = modelCallsOf(secondEvents);
    // The second turn's request carries the first turn's history, rebuilt from its own run.
    expect(again?.messages).toEqual(modelServer().requests[2]?.body.input);
    expect(again?.messages.length).toBeGreaterThan(4);
    // Each value stored once in each run; the second run stores only the values it sends.
    for (const events of [firstEvents, secondEvents]) {
      expect([...storedDigests(events).values()].every((n) => n === 1)).toBe(true);
    }
    const sent = new Set([
      again?.digests.instructions,
      ...(again?.digests.tools ?? []),
      ...(again?.digests.messages ?? []),
    ]);
    expect(new Set(storedDigests(secondEvents).keys())).toEqual(sent);
  });

  it('keeps no bodies under metadata, and records nothing when off', async () => {
    const { deck, eventStore } = await openTestDeck({
      agents: [forecaster()],
      recordModelCalls: 'metadata',
    });
    toolThenAnswer();
    const { runId } = await deck.run('Forecaster', 'Weather in Oslo?');
    const events = await eventStore.read(runId);
    const started = events.filter((e) => e.kind === 'model.call.started');
    expect(started).toHaveLength(2);
    for (const event of started) {
      expect(event.payload).toMatchObject({
        detail: 'metadata',
        values: {},
        model: modelServer().requests[0]?.body.model,
      });
      expect(event.kind === 'model.call.started' && event.payload.messages.length).toBeGreaterThan(
        0,
      );
    }
    const calls = modelCallsOf(events);
    expect(calls.map((c) => [c.output, c.instructions, c.inputTokens])).toEqual([
      [null, null, 40],
      [null, null, 60],
    ]);
    expect(calls[0]?.settings).toMatchObject({ temperature: 0.3, max_output_tokens: 200 });
    expect(calls[0]?.providerRequestId).toBe('req_1');

    await deck.close();
    const off = await openTestDeck({ agents: [forecaster()], recordModelCalls: 'off' });
    toolThenAnswer();
    const quiet = await off.deck.run('Forecaster', 'Weather in Oslo?');
    const kinds = (await off.eventStore.read(quiet.runId)).map((e) => e.kind);
    expect(kinds).not.toContain('model.call.started');
    expect(kinds).not.toContain('model.call.completed');
    expect(quiet.output).toBe('Sunny in Oslo.');
  });

  it('refuses a setting it does not know, naming it', async () => {
    vi.stubEnv('SERVICE_RECORD_MODEL_CALLS', 'all');
    await expect(openTestDeck({ agents: [forecaster()] })).rejects.toThrow(
      /SERVICE_RECORD_MODEL_CALLS=all is not one of on, metadata, off/,
    );
    await expect(openTestDeck({ recordModelCalls: 'bodies' as unknown as 'on' })).rejects.toThrow(
      /recordModelCalls.*'on', 'metadata', 'off'/,
    );
  });

  it.each([
    ['plain loop (deck.run)', false],
    ['streamed loop (deck.stream)', true],
  ])('records a failed request with its error, on the %s', async (_loop, live) => {
    const { deck, eventStore } = await openTestDeck({ agents: [forecaster()] });
    modelServer().push({ error: 'upstream overloaded' });
    const runId = 'r-500';
    if (live) await collect(deck.stream('Forecaster', 'Weather?', { runId }));
    else await expect(deck.run('Forecaster', 'Weather?', { runId })).rejects.toThrow();
    const events = await eventStore.read(runId);
    expect(events.map((e) => e.kind)).toEqual([
      'run.started',
      'model.call.started',
      'model.call.completed',
      'run.failed',
    ]);
    const [call] = modelCallsOf(events);
    expect(call?.error).toMatch(/upstream overloaded/);
    expect(call).toMatchObject({ output: null, providerRequestId: 'req_1', finishReason: null });
    expect(call?.messages).toEqual(modelServer().requests[0]?.body.input);
  });

  it('serves each request rebuilt at GET /runs/{run_id}/model-calls', async () => {
    const { deck } = await openTestDeck({ agents: [forecaster()] });
    toolThenAnswer();
    const { runId } = await deck.run('Forecaster', 'Weather in Oslo?');
    const app = deck.app();
    const response = await app.request(`/runs/${runId}/model-calls`);
    expect(response.status).toBe(200);
    const { model_calls } = (await response.json()) as {
      model_calls: Array<Record<string, unknown>>;
    };
    expect(model_calls).toHaveLength(2);
    const [, second] = model_calls;
    const body = modelServer().requests[1]?.body;
    expect(second).toMatchObject({
      call_id: `${runId}:c1`,
      model: body.model,
      instructions: body.instructions,
      messages: body.input,
      tools: body.tools,
      settings: { temperature: 0.3, max_output_tokens: 200 },
      finish_reason: 'completed',
      input_tokens: 60,
      output_tokens: 5,
      provider_request_id: 'req_2',
      error: null,
    });
    expect(second?.latency_ms).toEqual(expect.any(Number));
    expect(Date.parse(String(second?.ended_at))).toBeGreaterThanOrEqual(
      Date.parse(String(second?.started_at)),
    );
    const missing = await app.request('/runs/no-such-run/model-calls');
    expect(missing.status).toBe(404);
    // Pruned with the run: its events were all there was.
    await new Promise((resolve) => setTimeout(resolve, 5));
    await deck.prune({ olderThanMs: 0 });
    expect((await app.request(`/runs/${runId}/model-calls`)).status).toBe(404);
  });
});
