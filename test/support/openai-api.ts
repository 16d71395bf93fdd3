/**
 * Test support for the OpenAI API's tests (src/surfaces/openai/*.test.ts): one `serve()` on a
 * real port per test file, with an agent `Concierge` whose `book` tool waits for approval and
 * whose model calls go to the scripted model server, behind the key {@link KEY}; and the
 * `openai` client pointed at its `/v1`, without retries (a 409 or a 503 is what a test looks
 * at, not something to wait out).
 */
import OpenAI from 'openai';
import { afterAll, beforeAll, vi } from 'vitest';
import { z } from 'zod';
import { Agent, Deck, tool } from '../../src/index.js';
import { MemoryEventStore } from '../../src/stores/memory/index.js';
import { type RunningServer, serve } from '../../src/surfaces/http/serve.js';
import { type ScriptedModelServer, scriptedModelServer } from '../../src/testing/index.js';
import { threeSteps } from './workflows.js';

export const KEY = 'sk-deck';
export const INSTRUCTIONS = 'You are the concierge of the Grand Hotel.';

export interface OpenAiApiFixture {
  model: ScriptedModelServer;
  server: RunningServer;
  client: OpenAI;
  /** The tables `book` booked, in order. */
  booked: string[];
  /** The messages of the model request `index` received (chat completions path), as text. */
  modelMessages(index: number): { role: string; content: string }[];
  /** `GET /runs/{run_id}`, with the key. */
  runOf(runId: string | null): Promise<{ status: string; session_id: string | null }>;
}

/** Start the server before the file's tests and stop it after; its parts, once started. */
export function openAiApiFixture(): OpenAiApiFixture {
  const booked: string[] = [];
  const book = tool({
    name: 'book',
    description: 'Book a table',
    parameters: z.object({ table: z.string() }),
    execute: ({ table }) => {
      booked.push(table);
      return `booked ${table}`;
    },
  });
  const fixture = {
    booked,
    modelMessages(index: number) {
      const messages: { role: string; content: string | { text: string }[] | null }[] =
        fixture.model.requests[index]?.body.messages ?? [];
      return messages.map(({ role, content }) => ({
        role,
        content:
          typeof content === 'string' ? content : (content ?? []).map((part) => part.text).join(''),
      }));
    },
    async runOf(runId: string | null) {
      const response = await fetch(`${fixture.server.url}/runs/${runId}`, {
        headers: { authorization: `Bearer ${KEY}` },
      });
      return (await response.json()) as { status: string; session_id: string | null };
    },
  } as OpenAiApiFixture;

  beforeAll(async () => {
    fixture.model = await scriptedModelServer([]);
    // Read when the deck builds (serve() opens it): the agent's model calls go to the script.
    vi.stubEnv('OPENAI_BASE_URL', fixture.model.url);
    vi.stubEnv('OPENAI_API_KEY', 'sk-model');
    vi.stubEnv('OPENAI_USE_RESPONSES', 'false');
    vi.stubEnv('SERVICE_API_KEYS', KEY);
    vi.stubEnv('SERVICE_CORS_ORIGINS', 'https://chat.example');
    const deck = new Deck({
      eventStore: new MemoryEventStore(),
      agents: [
        new Agent({
          name: 'Concierge',
          instructions: INSTRUCTIONS,
          tools: [book],
          needsApproval: ['book'],
        }),
      ],
      workflows: [threeSteps()],
    });
    fixture.server = await serve(deck, { host: '127.0.0.1', port: 0 });
    fixture.client = new OpenAI({
      baseURL: `${fixture.server.url}/v1`,
      apiKey: KEY,
      maxRetries: 0,
    });
  });

  afterAll(async () => {
    await fixture.server?.close();
    await fixture.model?.close();
  });
  return fixture;
}
