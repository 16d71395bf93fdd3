/**
 * `serve()` once over a real socket with a real HTTP client (fetch): it opens the deck,
 * answers, and on SIGTERM lets an in-flight stream finish before it closes the deck.
 */
import { once } from 'node:events';
import { connect } from 'node:net';
import { describe, expect, it } from 'vitest';
import { testDeck } from '../../../test/support/decks.js';
import { parseSse } from '../../../test/support/http.js';
import { approval, threeSteps } from '../../../test/support/workflows.js';
import { Agent, ConfigError } from '../../index.js';
import { ScriptedModel } from '../../testing/index.js';
import { requestTimeoutMsFromEnv, serveSettingsFromEnv } from './options.js';
import { serve } from './serve.js';

describe('serve()', () => {
  it('opens the deck, serves over a socket, and on SIGTERM finishes in-flight requests before closing it', async () => {
    const chunks = Array.from({ length: 8 }, (_, i) => `w${i} `);
    const model = new ScriptedModel([{ text: chunks, delayMs: 25 }]);
    const { deck } = testDeck({
      agents: [new Agent({ name: 'Greeter', model })],
      workflows: [threeSteps()],
    });
    const sigtermBefore = process.listeners('SIGTERM');
    const server = await serve(deck, { host: '127.0.0.1', port: 0 });
    expect(deck.state).toBe('open');
    expect(server.url).toBe(`http://127.0.0.1:${server.port}`);

    const health = await fetch(`${server.url}/health`);
    expect(await health.json()).toEqual({
      status: 'ok',
      agents: ['Greeter'],
      workflows: ['three-steps'],
      skills: [],
    });
    const run = await fetch(`${server.url}/workflows/three-steps`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ n: 1 }),
    });
    expect(await run.json()).toEqual({ n: 4, steps: ['one', 'two', 'three'] });

    const streaming = await fetch(`${server.url}/agents/Greeter/chat?stream=true`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ session_id: 's', message: 'hi' }),
    });
    expect(streaming.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
    expect(streaming.headers.get('x-accel-buffering')).toBe('no');
    const reader = (streaming.body as ReadableStream<Uint8Array>).getReader();
    // The first read holds the first frame; on a loaded machine the next ones may come with it.
    const firstChunk = new TextDecoder().decode((await reader.read()).value);
    expect(firstChunk.startsWith('data: {"delta": "w0 "}\n\n')).toBe(true);

    // SIGTERM mid-stream (our handler, called as the signal would).
    const added = process.listeners('SIGTERM').filter((l) => !sigtermBefore.includes(l));
    expect(added).toHaveLength(1);
    added[0]?.('SIGTERM');
    let rest = '';
    for (let step = await reader.read(); !step.done; step = await reader.read()) {
      rest += new TextDecoder().decode(step.value);
    }
    const frames = parseSse(firstChunk + rest);
    expect(frames.at(-1)).toMatchObject({ event: 'done', data: { output: chunks.join('') } });
    await server.closed;
    expect(deck.state).toBe('closed');
    expect(process.listeners('SIGTERM')).toEqual(sigtermBefore);
    await expect(fetch(`${server.url}/health`)).rejects.toThrow();
  });

  it('ends streams that follow a waiting run at shutdown instead of waiting out the grace period', async () => {
    const { deck } = testDeck({ workflows: [approval()] });
    const server = await serve(deck, { host: '127.0.0.1', port: 0, handleSignals: false });
    const started = await fetch(`${server.url}/workflows/approval?thread_id=t`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ amount: 3 }),
    });
    expect(await started.json()).toMatchObject({ type: 'interrupt', thread_id: 't' });
    const runs = (await (await fetch(`${server.url}/runs`)).json()) as {
      runs: Array<{ run_id: string }>;
    };
    const tail = await fetch(`${server.url}/runs/${runs.runs[0]?.run_id}/events`);
    const body = tail.text();
    const t0 = performance.now();
    await server.close();
    expect(performance.now() - t0).toBeLessThan(2_000);
    const frames = parseSse(await body);
    expect(frames.at(-1)?.data).toMatchObject({ kind: 'run.interrupted' });
    expect(deck.state).toBe('closed');
  });

  it('cuts a request whose body trickles in for longer than requestTimeoutMs: 408, connection closed', async () => {
    const { deck } = testDeck({ workflows: [threeSteps()] });
    const lines: string[] = [];
    const server = await serve(deck, {
      host: '127.0.0.1',
      port: 0,
      handleSignals: false,
      requestTimeoutMs: 300,
      app: { log: (line) => lines.push(line) },
    });
    const socket = connect(server.port, '127.0.0.1');
    socket.on('error', () => {}); // a write after the server closed the connection
    let answer = '';
    socket.on('data', (chunk: Buffer) => {
      answer += chunk.toString('utf8');
    });
    const trickle = setInterval(() => socket.write(' '), 20);
    try {
      await once(socket, 'connect');
      const t0 = performance.now();
      socket.write(
        'POST /workflows/three-steps HTTP/1.1\r\nHost: 127.0.0.1\r\n' +
          'Content-Type: application/json\r\nContent-Length: 100000\r\n\r\n{',
      );
      // Bounded: without the limit the body would hold the connection for Node's 300 s.
      const closed = once(socket, 'close');
      await Promise.race([closed, new Promise((resolve) => setTimeout(resolve, 5_000))]);
      expect(answer).toMatch(/^HTTP\/1\.1 408 /);
      expect(socket.destroyed).toBe(true);
      expect(performance.now() - t0).toBeLessThan(2_000);
      await new Promise((resolve) => setImmediate(resolve));
      expect(lines).toEqual([]); // a client cut off is no server failure
    } finally {
      clearInterval(trickle);
      socket.destroy();
      await server.close();
    }
  });

  it('reads HOST, PORT and SERVICE_REQUEST_TIMEOUT_SECONDS, defaulting to 0.0.0.0:8000 and 60 s', () => {
    expect(serveSettingsFromEnv({})).toEqual({ host: '0.0.0.0', port: 8000 });
    expect(serveSettingsFromEnv({ HOST: '::1', PORT: '9001' })).toEqual({
      host: '::1',
      port: 9001,
    });
    expect(() => serveSettingsFromEnv({ PORT: 'eighty' })).toThrow(ConfigError);
    expect(requestTimeoutMsFromEnv({})).toBe(60_000);
    expect(requestTimeoutMsFromEnv({ SERVICE_REQUEST_TIMEOUT_SECONDS: '15' })).toBe(15_000);
    expect(() => requestTimeoutMsFromEnv({ SERVICE_REQUEST_TIMEOUT_SECONDS: '0.5' })).toThrow(
      ConfigError,
    );
  });
});
