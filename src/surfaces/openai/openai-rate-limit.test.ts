/**
 * The `openai` client against an agent whose `queue.rate` is exceeded: a synchronous
 * `/v1/chat/completions` over the rate is refused before anything is recorded, and the client
 * sees OpenAI's own `RateLimitError` (429, `rate_limit_error`) with the `Retry-After` to wait
 * (docs/background-runs.md, "Limits per key").
 */
import OpenAI, { RateLimitError } from 'openai';
import { afterAll, beforeAll, expect, it, vi } from 'vitest';
import { Agent, Deck } from '../../index.js';
import { MemoryEventStore } from '../../stores/memory/index.js';
import { type ScriptedModelServer, scriptedModelServer } from '../../testing/index.js';
import { type RunningServer, serve } from '../http/serve.js';

let model: ScriptedModelServer;
let server: RunningServer;
let client: OpenAI;

beforeAll(async () => {
  model = await scriptedModelServer([{ text: 'first answer' }]);
  vi.stubEnv('OPENAI_BASE_URL', model.url);
  vi.stubEnv('OPENAI_API_KEY', 'sk-model');
  vi.stubEnv('OPENAI_USE_RESPONSES', 'false');
  vi.stubEnv('SERVICE_API_KEYS', '');
  const deck = new Deck({
    eventStore: new MemoryEventStore(),
    agents: [
      new Agent({
        name: 'Limited',
        instructions: 'Answer briefly.',
        queue: { rate: { limit: 1, perSeconds: 60 } },
      }),
    ],
  });
  server = await serve(deck, { host: '127.0.0.1', port: 0 });
  // maxRetries 0: the client would otherwise wait out the Retry-After and try again.
  client = new OpenAI({ baseURL: `${server.url}/v1`, apiKey: 'unused', maxRetries: 0 });
});

afterAll(async () => {
  await server?.close();
  await model?.close();
});

it("gets a RateLimitError with a Retry-After once the agent's rate is used up", async () => {
  const ask = () =>
    client.chat.completions.create({
      model: 'Limited',
      messages: [{ role: 'user', content: 'Hello' }],
    });
  const first = await ask();
  expect(first.choices[0]?.message.content).toBe('first answer');

  const error = await ask().then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(RateLimitError);
  const limited = error as RateLimitError;
  expect(limited.status).toBe(429);
  expect(limited.type).toBe('rate_limit_error');
  expect(limited.message).toContain("'Limited' is over its rate limit");
  const retryAfter = Number(limited.headers?.get('retry-after'));
  expect(retryAfter).toBeGreaterThan(0);
  expect(retryAfter).toBeLessThanOrEqual(60);
  // Refused before anything was recorded: the model was asked once, and one run exists.
  expect(model.requests).toHaveLength(1);
  const runs = (await (await fetch(`${server.url}/runs`)).json()) as { runs: unknown[] };
  expect(runs.runs).toHaveLength(1);
});
