/**
 * A2A while a backend is down, in process, with `@a2a-js/sdk`'s client over `deck.app()`: a
 * session backend (Redis) that refuses connections makes SendMessage and SendStreamingMessage
 * the same 503 with Retry-After as the chat route (before any task exists, so nothing is left
 * running), and an event store that is down makes GetTask a 503 too, never a JSON-RPC
 * "internal error" or a task that failed.
 */
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:net';
import { SendMessageRequest } from '@a2a-js/sdk';
import {
  ClientFactory,
  ClientFactoryOptions,
  DefaultAgentCardResolver,
  JsonRpcTransportFactory,
} from '@a2a-js/sdk/client';
import { describe, expect, it, vi } from 'vitest';
import { openTestDeck } from '../../../test/support/decks.js';
import { StoreUnavailableError } from '../../core/errors.js';
import { Agent } from '../../index.js';
import { MemoryEventStore } from '../../stores/memory/index.js';
import { ScriptedModel } from '../../testing/index.js';

/** A port nothing listens on (taken, then let go). */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** An event store whose reads fail while `down` is set, as a Postgres that went away. */
class FlakyStore extends MemoryEventStore {
  down = false;
  override async read(...args: Parameters<MemoryEventStore['read']>) {
    if (this.down)
      throw new StoreUnavailableError('postgres', 'Postgres at postgres://db is unreachable');
    return super.read(...args);
  }
}

function rpc(method: string, params: unknown) {
  return {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'a2a-version': '1.0' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  };
}

const hello = { message: { messageId: 'm-1', role: 'ROLE_USER', parts: [{ text: 'hi' }] } };

describe('A2A while a backend is down', () => {
  it('answers a send 503 with Retry-After when the session backend is down, streamed or not', async () => {
    vi.stubEnv('SERVICE_SESSION', `redis://127.0.0.1:${await closedPort()}`);
    const model = new ScriptedModel([]); // never asked: no run starts
    const { deck } = await openTestDeck({ agents: [new Agent({ name: 'Greeter', model })] });
    const app = deck.app({ log: () => {} });
    for (const method of ['SendMessage', 'SendStreamingMessage']) {
      const response = await app.request('/a2a/Greeter', rpc(method, hello));
      expect(response.status, method).toBe(503);
      expect(response.headers.get('retry-after')).toMatch(/^\d+$/);
      expect((await response.json()).detail).toMatch(/Redis session store/);
    }
    expect(await deck.pending()).toEqual([]);
  });

  it('answers GetTask 503 while the event store is down, and the task once it is back', async () => {
    const store = new FlakyStore();
    const model = new ScriptedModel([{ text: 'Hello.' }]);
    const { deck } = await openTestDeck({
      agents: [new Agent({ name: 'Greeter', model })],
      eventStore: store,
    });
    const app = deck.app({ log: () => {} });
    const inProcess: typeof fetch = async (input, init) =>
      app.request(input instanceof Request ? input : String(input), init);
    const factory = new ClientFactory(
      ClientFactoryOptions.createFrom(ClientFactoryOptions.default, {
        transports: [new JsonRpcTransportFactory({ fetchImpl: inProcess })],
        cardResolver: new DefaultAgentCardResolver({ fetchImpl: inProcess }),
      }),
    );
    const client = await factory.createFromUrl(
      'http://localhost/a2a/Greeter/.well-known/agent-card.json',
      '',
    );
    const sent = await client.sendMessage(
      SendMessageRequest.fromJSON({ message: { ...hello.message, messageId: randomUUID() } }),
    );
    const id = 'id' in sent ? sent.id : '';
    store.down = true;
    const refused = await app.request('/a2a/Greeter', rpc('GetTask', { id }));
    expect(refused.status).toBe(503);
    expect(refused.headers.get('retry-after')).toMatch(/^\d+$/);
    await expect(client.getTask({ tenant: '', id })).rejects.toThrow(/503/);
    store.down = false;
    expect((await client.getTask({ tenant: '', id })).id).toBe(id);
  });
});
