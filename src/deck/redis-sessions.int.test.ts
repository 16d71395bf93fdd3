/** Conversation memory in the real local Redis (SERVICE_SESSION=redis://...). */
import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { testDeck } from '../../test/support/decks.js';
import { parseExposition } from '../../test/support/prometheus.js';
import { Agent } from '../index.js';
import { MemoryEventStore } from '../stores/memory/index.js';
import { ScriptedModel } from '../testing/index.js';

const url = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
const prefix = `agentdeck-test:${randomUUID()}:`;
const redis = new Redis(url);

beforeEach(() => {
  vi.stubEnv('SERVICE_SESSION', url);
  vi.stubEnv('SERVICE_SESSION_KEY_PREFIX', prefix);
});
afterEach(() => vi.unstubAllEnvs());
afterAll(async () => {
  const keys = await redis.keys(`${prefix}*`);
  if (keys.length > 0) await redis.del(...keys);
  await redis.quit();
});

describe('Redis sessions', () => {
  it('stores the history in Redis and a later deck continues the conversation', async () => {
    const store = new MemoryEventStore();
    const first = new ScriptedModel([{ text: 'Hi Ada.' }]);
    const a = testDeck({
      agents: [new Agent({ name: 'A', model: first })],
      eventStore: store,
    }).deck;
    await a.open();
    await a.run('A', 'I am Ada.', { sessionId: 'conv' });
    await a.close();
    expect(await redis.llen(`${prefix}conv`)).toBe(2);

    const second = new ScriptedModel([{ text: 'You are Ada.' }]);
    const b = testDeck({
      agents: [new Agent({ name: 'A', model: second })],
      eventStore: store,
    }).deck;
    await b.open();
    await b.run('A', 'Who am I?', { sessionId: 'conv' });
    expect(JSON.stringify(second.calls[0]?.input)).toContain('I am Ada.');
    expect(await b.sessionFor('conv').getItems()).toHaveLength(4);
    const scrape = parseExposition(await (await b.app().request('/metrics')).text());
    expect(
      scrape.value('agentdeck_store_operation_duration_seconds_count', {
        store: 'sessions',
        backend: 'redis',
        operation: 'getItems',
      }),
    ).toBeGreaterThan(0);
  });
});
