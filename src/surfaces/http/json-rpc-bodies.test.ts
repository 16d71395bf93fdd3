/**
 * The JSON-RPC endpoints (`POST /mcp`, `POST /a2a/{name}`) answer a body they cannot take as
 * JSON-RPC 2.0 says, not with the 422 `{detail}` of the 1.2.1 routes: `-32700` for a body that
 * is not JSON, `-32600` for JSON that is not a request, status 400, no id. Bodies no client
 * library would send, so they are sent by hand; the other routes keep their 422.
 */
import { describe, expect, it } from 'vitest';
import { openTestDeck } from '../../../test/support/decks.js';
import { Agent } from '../../index.js';
import { ScriptedModel } from '../../testing/index.js';

const post = (body: string, headers: Record<string, string> = {}) => ({
  method: 'POST',
  headers: {
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
    ...headers,
  },
  body,
});

describe('a body a JSON-RPC endpoint cannot take', () => {
  it('is a JSON-RPC parse error or invalid request on /mcp and A2A, and still a 422 elsewhere', async () => {
    const model = new ScriptedModel([]); // never asked: nothing runs
    const { deck } = await openTestDeck({ agents: [new Agent({ name: 'Greeter', model })] });
    const app = deck.app({ log: () => {} });
    for (const path of ['/mcp', '/a2a/Greeter']) {
      const headers = path === '/mcp' ? {} : { 'a2a-version': '1.0' };
      const broken = await app.request(path, post('{bad', headers));
      expect(broken.status, path).toBe(400);
      expect(await broken.json()).toEqual({
        jsonrpc: '2.0',
        id: null,
        error: { code: -32700, message: 'Parse error: the request body is not valid JSON' },
      });
      const notRequest = await app.request(path, post('[1, 2]', headers));
      expect(notRequest.status, path).toBe(400);
      expect(await notRequest.json()).toMatchObject({
        id: null,
        error: { code: -32600, message: expect.stringMatching(/^Invalid Request: /) },
      });
    }
    const chat = await app.request('/agents/Greeter/chat', post('{bad'));
    expect(chat.status).toBe(422);
    expect(await chat.json()).toEqual({ detail: 'the request body is not valid JSON' });
  });
});
