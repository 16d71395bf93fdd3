/**
 * Test support: one HTTP request over a real socket with `node:http`, which, unlike fetch,
 * sends the `Host` a test gives (DNS rebinding, client addresses); and a deck served by
 * `serve()` in the test's process for the length of a callback.
 */
import { type IncomingHttpHeaders, request } from 'node:http';
import type { AppOptions } from '../../src/surfaces/http/options.js';
import { type RunningServer, serve } from '../../src/surfaces/http/serve.js';
import { testDeck } from './decks.js';
import { approval } from './workflows.js';

export interface Answer {
  status: number;
  headers: IncomingHttpHeaders;
  body: string;
}

/** One request to `address:port`, with the headers given (`Host` included). */
export function call(
  address: string,
  port: number,
  path: string,
  options: { method?: string; headers?: Record<string, string>; body?: unknown } = {},
): Promise<Answer> {
  const body = options.body === undefined ? undefined : JSON.stringify(options.body);
  const headers = { ...(body ? { 'content-type': 'application/json' } : {}), ...options.headers };
  return new Promise((resolve, reject) => {
    const sent = request({ host: address, port, path, method: options.method ?? 'GET', headers });
    sent.on('error', reject);
    sent.on('response', (response) => {
      let text = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => {
        text += chunk;
      });
      response.on('end', () =>
        resolve({ status: response.statusCode ?? 0, headers: response.headers, body: text }),
      );
    });
    sent.end(body);
  });
}

/** `serve()` a deck with the `approval` workflow on `host` (port 0), run `body`, then close it. */
export async function whileServed(
  host: string,
  app: AppOptions,
  body: (port: number) => Promise<void>,
): Promise<void> {
  const { deck } = testDeck({ workflows: [approval()] });
  const server: RunningServer = await serve(deck, { host, port: 0, handleSignals: false, app });
  try {
    await body(server.port);
  } finally {
    await server.close();
  }
}
