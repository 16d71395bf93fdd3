/**
 * `GET /health/ready`: 200 while every configured backend answers, 503 naming the one that
 * does not (with `Retry-After`), 503 `starting` before the deck opens. The outages of real
 * Postgres and Redis servers are in test/faults/.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { openTestDeck, testDeck } from '../../../test/support/decks.js';
import { EVENT_STORE_MIGRATIONS, SqliteEventStore } from '../../stores/sqlite/index.js';

afterEach(() => {
  vi.unstubAllEnvs();
});

describe('GET /health/ready', () => {
  it('answers 503 starting before the deck opens, while /health says starting too', async () => {
    const { deck } = testDeck();
    const response = await deck.app().request('/health/ready');
    expect(response.status).toBe(503);
    expect(await response.json()).toEqual({ status: 'starting', checks: [] });
  });

  it('answers 200 with each backend it asked when all answer (a session file is not asked)', async () => {
    const path = join(mkdtempSync(join(tmpdir(), 'agentdeck-ready-')), 'state.db');
    const eventStore = new SqliteEventStore({ path });
    const { deck } = await openTestDeck({ eventStore });
    const response = await deck.app().request('/health/ready');
    expect(response.status).toBe(200);
    const body = (await response.json()) as { status: string; checks: unknown[]; layout: unknown };
    expect(body.status).toBe('ready');
    expect(body.checks).toEqual([
      { role: 'events', backend: 'sqlite', ok: true, ms: expect.any(Number) },
    ]);
    // The event store's schema layout (CONTRIBUTING.md, "Migrations and rolling upgrades").
    const code = EVENT_STORE_MIGRATIONS.length;
    expect(body.layout).toEqual({
      version: code,
      code_version: code,
      oldest_usable: expect.any(Number),
      oldest_usable_release: expect.any(String),
    });
    await eventStore.close();
  });

  it('answers 503 naming Redis, with Retry-After, when the session server does not answer', async () => {
    vi.stubEnv('SERVICE_SESSION', 'redis://127.0.0.1:1');
    const { deck } = await openTestDeck();
    const response = await deck.app().request('/health/ready');
    expect(response.status).toBe(503);
    expect(response.headers.get('retry-after')).toMatch(/^\d+$/);
    const body = (await response.json()) as { status: string; detail: string; checks: unknown[] };
    expect(body.status).toBe('unavailable');
    expect(body.detail).toMatch(/Redis session store at redis:\/\/127\.0\.0\.1:1.*ECONNREFUSED/);
    expect(body.checks).toContainEqual(
      expect.objectContaining({ role: 'sessions', backend: 'redis', ok: false }),
    );
    expect((await deck.app().request('/health')).status).toBe(200); // alive all the same
  });
});
