/**
 * Chats while the session backend is down, in process: `SERVICE_SESSION` names a Redis on a
 * port where nothing listens (a Redis that is down refuses connections the same way). A JSON
 * chat and a streamed one both answer 503 with `Retry-After` and the backend named, the
 * stream before its first byte (never a 200 whose only frame is `event: error`); and however
 * many turns are refused, the server log gets one line for the outage, as for any refusal,
 * also when the outage comes after the check (a session that fails once the stream began).
 * The fault suite does the same against a Redis it kills (test/faults/redis-outage.int.test.ts).
 */
import { createServer } from 'node:net';
import { describe, expect, it, vi } from 'vitest';
import { openTestDeck } from '../../../test/support/decks.js';
import { parseSse, postJson } from '../../../test/support/http.js';
import { StoreUnavailableError } from '../../core/errors.js';
import type { ConversationSession } from '../../core/sessions.js';
import { Agent } from '../../index.js';
import { ScriptedModel } from '../../testing/index.js';

/** A port nothing listens on (taken, then let go). */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

describe('chats while the session backend (Redis) is down', () => {
  it('answers 503 with Retry-After, streamed or not, and logs the refusals once', async () => {
    vi.stubEnv('SERVICE_SESSION', `redis://127.0.0.1:${await closedPort()}`);
    const model = new ScriptedModel([]); // never asked: no turn gets that far
    const { deck } = await openTestDeck({ agents: [new Agent({ name: 'Greeter', model })] });
    const lines: string[] = [];
    const app = deck.app({ log: (line) => lines.push(line) });
    try {
      for (let turn = 0; turn < 2; turn += 1) {
        for (const stream of [false, true]) {
          const response = await app.request(
            `/agents/Greeter/chat${stream ? '?stream=true' : ''}`,
            postJson({ session_id: `s-${turn}`, message: 'hi' }),
          );
          const body = await response.text();
          expect(response.status, `${stream ? 'streamed' : 'JSON'} chat: ${body}`).toBe(503);
          expect(response.headers.get('retry-after')).toMatch(/^\d+$/);
          expect(response.headers.get('content-type')).toMatch(/^application\/json/);
          expect(JSON.parse(body).detail).toMatch(/Redis session store at redis:\/\/127\.0\.0\.1/);
        }
      }
      expect(lines).toHaveLength(1);
      expect(lines[0]).toMatch(/^\[agentdeck\] refusing requests while .* is out: .*Redis/);
    } finally {
      await deck.close();
    }
  });

  it('logs turns that fail for the outage after a stream began once, not a line per turn', async () => {
    const down = () =>
      Promise.reject(
        new StoreUnavailableError(
          'redis',
          'Redis session store at redis://127.0.0.1:6390 could not read the session; redis is unavailable, retry later',
        ),
      );
    const session = (id: string): ConversationSession => ({
      getSessionId: async () => id,
      getItems: down,
      addItems: down,
      popItem: down,
      clearSession: down,
    });
    const model = new ScriptedModel([]);
    const { deck } = await openTestDeck({
      agents: [new Agent({ name: 'Greeter', model })],
      sessionFactory: session, // no backend to ask first: the turn finds the outage itself
    });
    const lines: string[] = [];
    const app = deck.app({ log: (line) => lines.push(line) });
    try {
      for (let turn = 0; turn < 3; turn += 1) {
        const streamed = await app.request(
          '/agents/Greeter/chat?stream=true',
          postJson({ session_id: `s-${turn}`, message: 'hi' }),
        );
        expect(parseSse(await streamed.text()).at(-1)).toEqual({
          event: 'error',
          data: { error: 'StoreUnavailableError' },
        });
        const json = await app.request(
          '/agents/Greeter/chat',
          postJson({ session_id: `j-${turn}`, message: 'hi' }),
        );
        expect(json.status).toBe(503);
      }
      expect(lines).toHaveLength(1);
      expect(lines[0]).toMatch(/^\[agentdeck\] refusing requests while a backend is out: Redis/);
    } finally {
      await deck.close();
    }
  });
});
