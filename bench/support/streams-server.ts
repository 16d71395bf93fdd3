/**
 * The server under test of bench/streams.bench.ts, one child process per case so that each
 * has its own event loop, heap and RSS to measure: `deck` serves one agent as `service-serve`
 * does (`serve(deck)`, the default SQLite store on a temporary file, every event recorded,
 * the model client built from `OPENAI_BASE_URL`); `route` is the hand-written peer, a Hono
 * route running the same agent with `@openai/agents` `run(agent, message, { stream: true })`
 * and writing each text delta as an SSE frame, recording nothing (SDK tracing off).
 *
 * It answers the parent over IPC: `memory` (after a full GC when `gc` is set, for the idle
 * baseline; run with `--expose-gc`), `cpu` (user + system µs since start) and `profile`
 * (start, or stop and write a CPU profile to the path given).
 */
import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { serve as listen } from '@hono/node-server';
import { OpenAIResponsesModel, run, Agent as SdkAgent, setTracingDisabled } from '@openai/agents';
import { Hono } from 'hono';
import OpenAI from 'openai';
import { Agent, Deck } from '../../src/index.js';
import { serve } from '../../src/surfaces/http/serve.js';

export type ServerMessage =
  | { type: 'memory'; gc: boolean }
  | { type: 'cpu' }
  | { type: 'profile'; to: string | null }
  | { type: 'exit' };

export const STREAM_AGENT = 'streamer';
const INSTRUCTIONS = 'Answer at length.';

const mode = process.argv[2];
const baseURL = process.env.OPENAI_BASE_URL as string;

/** What closes the server before the process exits (the deck: its store, flushed). */
let close = async () => {};

async function deckServer(): Promise<string> {
  const agent = new Agent({ name: STREAM_AGENT, instructions: INSTRUCTIONS });
  const deck = await new Deck({ agents: [agent] }).open();
  const server = await serve(deck, { host: '127.0.0.1', port: 0 });
  close = () => server.close();
  return server.url;
}

async function routeServer(): Promise<string> {
  setTracingDisabled(true);
  const agent = new SdkAgent({
    name: STREAM_AGENT,
    instructions: INSTRUCTIONS,
    model: new OpenAIResponsesModel(new OpenAI({ apiKey: 'sk-bench', baseURL }), 'gpt-4o-mini'),
  });
  const app = new Hono();
  app.post('/agents/:name/chat', async (c) => {
    const { message } = await c.req.json<{ message: string }>();
    const result = await run(agent, message, { stream: true });
    const encoder = new TextEncoder();
    const body = new ReadableStream<Uint8Array>({
      async start(controller) {
        for await (const event of result) {
          if (event.type === 'raw_model_stream_event' && event.data.type === 'output_text_delta')
            controller.enqueue(
              encoder.encode(`data: ${JSON.stringify({ delta: event.data.delta })}\n\n`),
            );
        }
        await result.completed;
        const done = JSON.stringify({ output: result.finalOutput });
        controller.enqueue(encoder.encode(`event: done\ndata: ${done}\n\n`));
        controller.close();
      },
    });
    return new Response(body, { headers: { 'content-type': 'text/event-stream' } });
  });
  const server = listen({ fetch: app.fetch, hostname: '127.0.0.1', port: 0 });
  await new Promise((resolve) => server.once('listening', resolve));
  return `http://127.0.0.1:${(server.address() as { port: number }).port}`;
}

let profiler: Session | null = null;

async function answer(message: ServerMessage): Promise<unknown> {
  if (message.type === 'exit') {
    await close();
    process.exit(0);
  }
  if (message.type === 'memory') {
    const collect = (globalThis as { gc?: () => void }).gc;
    if (message.gc && collect) collect();
    const { rss, heapUsed } = process.memoryUsage();
    return { rss, heapUsed };
  }
  if (message.type === 'cpu') {
    const { user, system } = process.cpuUsage();
    return { cpuUs: user + system };
  }
  if (message.to === null) {
    profiler = new Session();
    profiler.connect();
    await profiler.post('Profiler.enable');
    await profiler.post('Profiler.start');
    return {};
  }
  const { profile } = (await profiler?.post('Profiler.stop')) ?? {};
  writeFileSync(message.to, JSON.stringify(profile));
  profiler?.disconnect();
  profiler = null;
  return {};
}

if (mode !== 'deck' && mode !== 'route') throw new Error(`streams-server: unknown mode '${mode}'`);
const url = mode === 'deck' ? await deckServer() : await routeServer();
process.send?.({ type: 'listening', url });
process.on('message', (message: ServerMessage) => {
  answer(message).then((reply) => process.send?.({ type: 'reply', reply }));
});
