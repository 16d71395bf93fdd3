/**
 * WIRE.md's agent chat examples over `app.request()`: JSON and SSE bodies, the usage frame,
 * errors before and after the stream began, and the per-request context.
 */
import { describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import { openTestDeck, testDeck } from '../../../test/support/decks.js';
import { headersOf, parseSse, postJson, SSE_HEADERS } from '../../../test/support/http.js';
import { Agent, tool } from '../../index.js';
import { ScriptedModel } from '../../testing/index.js';

class Tenant {
  constructor(readonly id: string) {}
}

function booker(model: ScriptedModel) {
  const findSlots = tool({
    name: 'find_slots',
    description: 'Free slots on a day',
    parameters: z.object({ day: z.string() }),
    execute: async ({ day }) => `${day}: 9am`,
  });
  return new Agent({ name: 'Greeter', instructions: 'Book.', model, tools: [findSlots] });
}

const RUN_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const toolStep = {
  toolCalls: [{ name: 'find_slots', arguments: { day: 'tuesday' } }],
  usage: { inputTokens: 12, outputTokens: 4 },
};

describe('POST /agents/{name}/chat', () => {
  it('answers {"output": ...} as JSON', async () => {
    const model = new ScriptedModel([{ text: 'Tuesday at 9am works.' }]);
    const { deck } = await openTestDeck({ agents: [booker(model)] });
    const response = await deck
      .app()
      .request('/agents/Greeter/chat', postJson({ session_id: 's-1', message: 'When?' }));
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ output: 'Tuesday at 9am works.' });
    model.assertConsumed();
  });

  it('streams the WIRE.md frames: one delta per chunk, then done with output and usage', async () => {
    const model = new ScriptedModel([
      toolStep,
      { text: ['Tuesday ', 'at 9am ', 'works.'], usage: { inputTokens: 10, outputTokens: 6 } },
    ]);
    const { deck } = await openTestDeck({ agents: [booker(model)] });
    const response = await deck
      .app()
      .request(
        '/agents/Greeter/chat?stream=true',
        postJson({ session_id: 's-1', message: 'When?' }),
      );
    expect(response.status).toBe(200);
    // WIRE.md's headers, and the additive X-Run-Id of the run the request started.
    expect(headersOf(response)).toEqual({
      ...SSE_HEADERS,
      'x-run-id': expect.stringMatching(RUN_ID),
    });
    const text = await response.text();
    expect(text.startsWith('data: {"delta": "Tuesday "}\n\n')).toBe(true);
    expect(parseSse(text)).toEqual([
      { data: { delta: 'Tuesday ' } },
      { data: { delta: 'at 9am ' } },
      { data: { delta: 'works.' } },
      {
        event: 'done',
        data: {
          output: 'Tuesday at 9am works.',
          usage: { requests: 2, input_tokens: 22, output_tokens: 10, total_tokens: 32 },
        },
      },
    ]);
  });

  it('replaces done with event: error (the type name only) when the turn fails after the stream began', async () => {
    const log = vi.fn();
    const model = new ScriptedModel([
      { text: ['Checking '], ...toolStep },
      { error: 'upstream said: token sk-secret-123 is invalid' },
    ]);
    const { deck } = await openTestDeck({ agents: [booker(model)] });
    const response = await deck
      .app({ log })
      .request('/agents/Greeter/chat?stream=true', postJson({ session_id: 's-1', message: 'x' }));
    expect(response.status).toBe(200);
    const text = await response.text();
    const frames = parseSse(text);
    expect(frames[0]).toEqual({ data: { delta: 'Checking ' } });
    expect(frames).toHaveLength(2);
    expect(frames[1]?.event).toBe('error');
    expect(frames[1]?.data).toEqual({ error: expect.stringMatching(/^\w+$/) });
    expect(text).not.toContain('sk-secret');
    expect(log.mock.calls.join('\n')).toContain('sk-secret-123');
  });

  it('answers 500 {"detail":"internal error","run_id"} when a JSON turn fails, the message only in the log', async () => {
    const log = vi.fn();
    const model = new ScriptedModel([{ error: 'db password hunter2 rejected' }]);
    const { deck } = await openTestDeck({ agents: [booker(model)] });
    const response = await deck
      .app({ log })
      .request('/agents/Greeter/chat', postJson({ session_id: 's-1', message: 'x' }));
    expect(response.status).toBe(500);
    // 1.2.1's body, to which #41 adds the failed run's id (and its X-Run-Id header).
    const runId = response.headers.get('x-run-id');
    expect(runId).toMatch(RUN_ID);
    expect(await response.json()).toEqual({ detail: 'internal error', run_id: runId });
    expect(log.mock.calls.join('\n')).toContain('hunter2');
  });

  it('answers 404 for an unknown agent, naming the available ones', async () => {
    const { deck } = await openTestDeck({ agents: [booker(new ScriptedModel([]))] });
    const response = await deck
      .app()
      .request('/agents/Nope/chat', postJson({ session_id: 's', message: 'hi' }));
    expect(response.status).toBe(404);
    expect(await response.json()).toEqual({
      detail: "No agent named 'Nope'. Available: ['Greeter'].",
    });
  });

  it.each([
    [{ message: 'hi' }, 'missing field: session_id'],
    [{ session_id: 's' }, 'missing field: message'],
    [{ session_id: 's', message: 3 }, "field 'message' must be a string, got number"],
    [{ session_id: 7, message: 'hi' }, "field 'session_id' must be a string, got number"],
    ['{"session_id": "s", ', 'the request body is not valid JSON'],
    [['s', 'hi'], 'the request body must be a JSON object, got array'],
    ['"hello"', 'the request body must be a JSON object, got string'],
  ])('answers 422 for a bad body %j', async (body, detail) => {
    const model = new ScriptedModel([]);
    const { deck } = await openTestDeck({ agents: [booker(model)] });
    for (const path of ['/agents/Greeter/chat', '/agents/Greeter/chat?stream=true']) {
      const response = await deck.app().request(path, postJson(body));
      expect(response.status).toBe(422);
      expect(await response.json()).toEqual({ detail });
    }
    expect(model.calls).toHaveLength(0);
  });

  it('answers 409 to a second turn on a busy session, JSON or SSE, before any byte of a stream', async () => {
    const model = new ScriptedModel([{ text: ['slow ', 'answer'], delayMs: 150 }]);
    const { deck } = await openTestDeck({ agents: [booker(model)] });
    const app = deck.app();
    const first = await app.request(
      '/agents/Greeter/chat?stream=true',
      postJson({ session_id: 'busy', message: 'one' }),
    );
    expect(first.status).toBe(200);
    for (const path of ['/agents/Greeter/chat', '/agents/Greeter/chat?stream=true']) {
      const second = await app.request(path, postJson({ session_id: 'busy', message: 'two' }));
      expect(second.status).toBe(409);
      expect(second.headers.get('content-type')).toBe('application/json');
      const { detail } = (await second.json()) as { detail: string };
      expect(detail).toMatch(/session 'busy' is busy: run '[0-9a-f-]{36}' holds it/);
    }
    expect(parseSse(await first.text()).at(-1)?.event).toBe('done');
  });

  it('gives HTTP runs the context computed from the request, and null without one', async () => {
    const seen: unknown[] = [];
    const whoAmI = tool({
      name: 'who_am_i',
      description: 'The caller',
      parameters: z.object({}),
      execute: async (_args, ctx) => {
        seen.push(ctx.data);
        return 'ok';
      },
    });
    const script = () => [{ toolCalls: [{ name: 'who_am_i', arguments: {} }] }, { text: 'done' }];
    const model = new ScriptedModel([...script(), ...script()]);
    const { deck } = await openTestDeck({
      agents: [new Agent({ name: 'Who', model, tools: [whoAmI] })],
    });
    const withContext = deck.app({
      context: (request) => new Tenant(request.headers.get('x-tenant') ?? '?'),
    });
    const body = postJson({ session_id: 's', message: 'who?' }, { 'x-tenant': 'acme' });
    expect((await withContext.request('/agents/Who/chat', body)).status).toBe(200);
    expect(
      (
        await deck
          .app()
          .request('/agents/Who/chat', postJson({ session_id: 's2', message: 'who?' }))
      ).status,
    ).toBe(200);
    expect(seen).toEqual([new Tenant('acme'), null]);
  });

  it('answers 503 until the deck is open', async () => {
    const { deck } = testDeck({ agents: [booker(new ScriptedModel([]))] });
    const response = await deck
      .app()
      .request('/agents/Greeter/chat', postJson({ session_id: 's', message: 'hi' }));
    expect(response.status).toBe(503);
    expect(((await response.json()) as { detail: string }).detail).toMatch(/not started$/);
  });
});

describe('a client that goes away mid-stream', () => {
  it('cancels the turn (run.cancelled) and frees the session for the next turn', async () => {
    const model = new ScriptedModel([
      { text: Array.from({ length: 20 }, (_, i) => `w${i} `), delayMs: 20 },
      { text: 'next' },
    ]);
    const { deck } = await openTestDeck({ agents: [booker(model)] });
    const app = deck.app();
    const response = await app.request(
      '/agents/Greeter/chat?stream=true',
      postJson({ session_id: 'gone', message: 'hi' }),
    );
    const reader = (response.body as ReadableStream<Uint8Array>).getReader();
    await reader.read();
    await reader.cancel();
    const next = await app.request(
      '/agents/Greeter/chat',
      postJson({ session_id: 'gone', message: 'again' }),
    );
    expect(next.status).toBe(200);
    expect(await next.json()).toEqual({ output: 'next' });
    const runs = (await (await app.request('/runs?session_id=gone')).json()) as {
      runs: Array<{ status: string }>;
    };
    expect(runs.runs.map((r) => r.status)).toEqual(['completed', 'cancelled']);
  });

  it('stops a turn at once, even in a long tool call that sends nothing', async () => {
    let toolSignal: AbortSignal | undefined;
    const slow = tool({
      name: 'slow',
      description: 'Takes a while',
      parameters: z.object({}),
      // A tool that honours its signal, as tools that wait should.
      execute: async (_args, ctx) => {
        toolSignal = ctx.signal;
        await new Promise((resolve, reject) => {
          const timer = setTimeout(resolve, 3_000);
          ctx.signal.addEventListener('abort', () => {
            clearTimeout(timer);
            reject(new Error('aborted'));
          });
        });
        return 'done';
      },
    });
    const model = new ScriptedModel([{ toolCalls: [{ name: 'slow', arguments: {} }] }]);
    const { deck, eventStore } = await openTestDeck({
      agents: [new Agent({ name: 'Slow', model, tools: [slow] })],
    });
    const response = await deck
      .app()
      .request('/agents/Slow/chat?stream=true', postJson({ session_id: 'quiet', message: 'go' }));
    const reader = (response.body as ReadableStream<Uint8Array>).getReader();
    const pulling = reader.read(); // the stream runs as the client reads; no frame comes yet
    while (toolSignal === undefined) await new Promise((resolve) => setTimeout(resolve, 5));
    const left = Date.now();
    await reader.cancel();
    await pulling;
    const [run] = await eventStore.listRuns();
    expect(run?.status).toBe('cancelled');
    expect(Date.now() - left).toBeLessThan(1_500);
    expect(toolSignal?.aborted).toBe(true);
    const last = (await eventStore.read(run?.runId as string)).at(-1);
    expect(last?.payload).toMatchObject({ reason: 'the HTTP client disconnected' });
  });
});

describe('a turn cancelled while a JSON request waits', () => {
  it('answers {"output": null} (the deck closed mid-turn)', async () => {
    const model = new ScriptedModel([
      { text: Array.from({ length: 50 }, () => 'w '), delayMs: 20 },
    ]);
    const { deck, eventStore } = await openTestDeck({ agents: [booker(model)] });
    const pending = deck
      .app()
      .request('/agents/Greeter/chat', postJson({ session_id: 's', message: 'hi' }));
    // Close once the turn is under way (its first events are stored), however loaded the machine.
    while ((await eventStore.listRuns())[0]?.lastSeq === undefined) {
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    await deck.close();
    const response = await pending;
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ output: null });
  });
});
