/**
 * Agent turns over the real OpenAI client path, against the scripted OpenAI-compatible
 * HTTP server: model selection, both API paths, block conversion and pricing.
 */
import { describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import { collect, openTestDeck } from '../../test/support/decks.js';
import { useScriptedModelServer } from '../../test/support/model-server.js';
import {
  Agent,
  AudioBlock,
  ConfigError,
  DataBlock,
  type Event,
  ImageBlock,
  ResourceBlock,
  TextBlock,
  tool,
} from '../index.js';

const modelServer = useScriptedModelServer();

describe('agent turns over the OpenAI HTTP API', () => {
  it('uses the Responses API by default, with OPENAI_MODEL; deck.run asks for the whole reply', async () => {
    vi.stubEnv('OPENAI_MODEL', 'gpt-4o-mini');
    modelServer().push({ text: 'Hello there!', usage: { inputTokens: 1000, outputTokens: 500 } });
    const { deck } = await openTestDeck({
      agents: [new Agent({ name: 'Greeter', instructions: 'Be kind.' })],
    });
    const result = await deck.run('Greeter', 'hi');
    expect(result.output).toBe('Hello there!');
    expect(modelServer().requests).toHaveLength(1);
    expect(modelServer().requests[0]?.path).toBe('/v1/responses');
    expect(modelServer().requests[0]?.body).toMatchObject({
      model: 'gpt-4o-mini',
      instructions: 'Be kind.',
    });
    // Nobody reads deck.run live, so the model is not asked to stream (deck.stream is).
    expect(modelServer().requests[0]?.body.stream).not.toBe(true);
    expect(modelServer().requests[0]?.headers.authorization).toBe('Bearer sk-test');
    // 1000 * 0.15 / 1e6 + 500 * 0.6 / 1e6
    expect(result.usage.usd).toBeCloseTo(0.00045, 9);
    modelServer().assertConsumed();
  });

  it('lets Agent.model win over OPENAI_MODEL; an unknown model has usd null', async () => {
    vi.stubEnv('OPENAI_MODEL', 'gpt-4o-mini');
    modelServer().push({ text: 'ok' });
    const { deck } = await openTestDeck({
      agents: [new Agent({ name: 'A', model: 'my-local-llama' })],
    });
    const result = await deck.run('A', 'hi');
    expect(modelServer().requests[0]?.body).toMatchObject({ model: 'my-local-llama' });
    expect(result.usage.usd).toBeNull();
  });

  it('selects chat completions with OPENAI_USE_RESPONSES=false, streaming text deltas', async () => {
    vi.stubEnv('OPENAI_USE_RESPONSES', 'false');
    // Paced, so each chunk reaches the deck on its own (chunks that arrive together join).
    modelServer().push({ text: ['Tuesday ', 'at 9am'], delayMs: 30 });
    const { deck } = await openTestDeck({
      agents: [new Agent({ name: 'A', model: 'gpt-4.1-mini' })],
    });
    const events = await collect(deck.stream('A', 'when?'));
    expect(modelServer().requests[0]?.path).toBe('/v1/chat/completions');
    expect(modelServer().requests[0]?.body).toMatchObject({ stream: true });
    const deltas = events.flatMap((e) => (e.kind === 'text.delta' ? [e.payload.text] : []));
    expect(deltas).toEqual(['Tuesday ', 'at 9am']);
    expect(events.at(-1)).toMatchObject({ kind: 'run.completed' });
  });

  it('sends text and images, never resource or data blocks', async () => {
    modelServer().push({ text: 'A cat.' });
    const { deck } = await openTestDeck({ agents: [new Agent({ name: 'A', model: 'gpt-4o' })] });
    await deck.run('A', [
      new TextBlock('What is in the picture?'),
      new ImageBlock({ mediaType: 'image/png', dataB64: 'iVBORw0KGgo=' }),
      new ResourceBlock({ uri: 's3://private/secret.pdf', mediaType: 'application/pdf' }),
      new DataBlock({ internal: 'do-not-send' }),
    ]);
    const body = JSON.stringify(modelServer().requests[0]?.body);
    expect(body).toContain('What is in the picture?');
    expect(body).toContain('data:image/png;base64,iVBORw0KGgo=');
    expect(body).not.toContain('s3://private/secret.pdf');
    expect(body).not.toContain('do-not-send');
  });

  it('refuses an AudioBlock on the Responses path with ConfigError naming the block', async () => {
    const { deck, eventStore } = await openTestDeck({
      agents: [new Agent({ name: 'A', model: 'gpt-4o' })],
    });
    const audio = new AudioBlock({ mediaType: 'audio/wav', dataB64: 'UklGRg==' });
    const attempt = deck.run('A', [audio], { runId: 'r-audio' });
    await expect(attempt).rejects.toThrow(ConfigError);
    await expect(attempt).rejects.toThrow(/AudioBlock.*OPENAI_USE_RESPONSES=false/);
    expect(modelServer().requests).toHaveLength(0);
    const events = await eventStore.read('r-audio');
    expect(events.at(-1)).toMatchObject({
      kind: 'run.failed',
      payload: { errorType: 'ConfigError' },
    });
  });

  it('sends an AudioBlock as input_audio on the chat completions path', async () => {
    vi.stubEnv('OPENAI_USE_RESPONSES', 'false');
    modelServer().push({ text: 'You said hello.' });
    const { deck } = await openTestDeck({ agents: [new Agent({ name: 'A', model: 'gpt-4o' })] });
    await deck.run('A', [new AudioBlock({ mediaType: 'audio/wav', dataB64: 'UklGRg==' })]);
    expect(JSON.stringify(modelServer().requests[0]?.body)).toContain(
      '"input_audio":{"data":"UklGRg==","format":"wav"}',
    );
  });

  for (const useResponses of ['true', 'false']) {
    it(`plays a tool round trip over HTTP (OPENAI_USE_RESPONSES=${useResponses})`, async () => {
      vi.stubEnv('OPENAI_USE_RESPONSES', useResponses);
      modelServer().push(
        { toolCalls: [{ name: 'find_slots', arguments: { day: 'friday' }, callId: 'call_fs' }] },
        { text: 'Friday 10am.' },
      );
      const findSlots = tool({
        name: 'find_slots',
        description: 'Free slots',
        parameters: z.object({ day: z.string() }),
        execute: ({ day }) => ({ day, slots: ['10am'] }),
      });
      const agent = new Agent({ name: 'Booker', model: 'gpt-4.1-mini', tools: [findSlots] });
      const { deck } = await openTestDeck({ agents: [agent] });
      const events = await collect(deck.stream('Booker', 'friday?'));
      // The answer's three chunks come at once: they may reach the deck as one delta.
      const deltas = events.flatMap((e) => (e.kind === 'text.delta' ? [e.payload.text] : []));
      expect(deltas.join('')).toBe('Friday 10am.');
      expect(events.map((e) => e.kind).filter((kind) => kind !== 'text.delta')).toEqual([
        'run.started',
        'model.call.started',
        'usage.reported',
        'model.call.completed',
        'tool.call.started',
        'tool.call.completed',
        'model.call.started',
        'usage.reported',
        'model.call.completed',
        'message.completed',
        'run.completed',
      ]);
      expect(events.findIndex((e) => e.kind === 'text.delta')).toBe(7);
      expect(events[5]).toMatchObject({
        payload: { callId: 'call_fs', output: { day: 'friday', slots: ['10am'] }, error: null },
      });
      const toolSchema = JSON.stringify(modelServer().requests[0]?.body.tools);
      expect(toolSchema).toContain('find_slots');
      expect(JSON.stringify(modelServer().requests[1]?.body)).toContain('call_fs');
      const completed = events.at(-1);
      expect(completed?.kind === 'run.completed' && completed.payload.usage?.requests).toBe(2);
    });
  }

  for (const useResponses of ['true', 'false']) {
    it(`joins the text deltas that reach the deck together, and keeps paced ones apart (OPENAI_USE_RESPONSES=${useResponses})`, async () => {
      vi.stubEnv('OPENAI_USE_RESPONSES', useResponses);
      const burst = Array.from({ length: 200 }, (_, i) => `t${i} `);
      // The server is in this process: a burst is written whole before the deck reads any of it.
      modelServer().push({ text: burst }, { text: ['one ', 'two ', 'three'], delayMs: 30 });
      const { deck } = await openTestDeck({ agents: [new Agent({ name: 'A', model: 'gpt-4o' })] });
      const textOf = (events: Awaited<ReturnType<typeof collect>>) =>
        events.flatMap((e) => (e.kind === 'text.delta' ? [e.payload.text] : []));
      const fast = await collect(deck.stream('A', 'talk fast'));
      expect(textOf(fast).length).toBeLessThan(10);
      expect(textOf(fast).join('')).toBe(burst.join(''));
      expect(fast.find((e) => e.kind === 'message.completed')).toMatchObject({
        payload: { content: [{ text: burst.join('') }] },
      });
      const paced = await collect(deck.stream('A', 'talk slowly'));
      expect(textOf(paced)).toEqual(['one ', 'two ', 'three']);
      modelServer().assertConsumed();
    });
  }

  for (const useResponses of ['true', 'false']) {
    it(`pauses and cancels mid-stream over HTTP: the cut model call ends quietly (OPENAI_USE_RESPONSES=${useResponses})`, async () => {
      vi.stubEnv('OPENAI_USE_RESPONSES', useResponses);
      const words = Array.from({ length: 40 }, (_, i) => `w${i} `);
      modelServer().push(
        { text: words, delayMs: 20 },
        { text: 'Short answer.' },
        { text: words, delayMs: 20 },
      );
      const { deck } = await openTestDeck({ agents: [new Agent({ name: 'A', model: 'gpt-4o' })] });
      const paused: Event[] = [];
      for await (const event of deck.stream('A', 'Tell me', { runId: `r-pause-${useResponses}` })) {
        paused.push(event);
        if (paused.filter((e) => e.kind === 'text.delta').length === 2) {
          await deck.pause(`r-pause-${useResponses}`);
        }
      }
      expect(paused.map((e) => e.kind).slice(-2)).toEqual(['control.observed', 'run.paused']);
      const resumed = await deck.resume(`r-pause-${useResponses}`);
      expect(resumed.at(-1)).toMatchObject({ kind: 'run.completed' });

      const cancelled: Event[] = [];
      for await (const event of deck.stream('A', 'Again', { runId: `r-cancel-${useResponses}` })) {
        cancelled.push(event);
        if (event.kind === 'text.delta') await deck.cancel(`r-cancel-${useResponses}`);
      }
      expect(cancelled.at(-1)).toMatchObject({ kind: 'run.cancelled' });
      modelServer().assertConsumed();
    });
  }

  it('talks to a server given by OPENAI_BASE_URL alone, without an API key', async () => {
    vi.stubEnv('OPENAI_API_KEY', '');
    modelServer().push({ text: 'Local answer.' });
    const { deck } = await openTestDeck({ agents: [new Agent({ name: 'A', model: 'llama3' })] });
    expect((await deck.run('A', 'hi')).output).toBe('Local answer.');
    expect(modelServer().requests[0]?.headers.authorization).toBe('Bearer no-key');
  });

  it('sends no trace export of its own unless asked', async () => {
    modelServer().push({ text: 'ok' });
    const { deck } = await openTestDeck({ agents: [new Agent({ name: 'A', model: 'gpt-4o' })] });
    await deck.run('A', 'hi');
    expect(modelServer().requests.map((r) => r.path)).toEqual(['/v1/responses']);
  });
});
