/**
 * A deck on `SERVICE_EVENTS=postgres://...` with `SERVICE_CHECKPOINT` unset: the events and
 * the workflow checkpoints both go to that database, so a second deck (as a second server
 * process would) finds the paused run, answers it, and reads the whole log. The test makes
 * a database of its own (PostgresSaver's tables live in its `public` schema) and drops it.
 */
import pg from 'pg';
import { afterAll, beforeAll, expect, it, vi } from 'vitest';
import { Deck, InterruptResult } from '../src/index.js';
import { PostgresEventStore } from '../src/stores/postgres/events.js';
import { adminQuery, scratchDatabase } from './support/postgres.js';
import { parseExposition } from './support/prometheus.js';
import { approval } from './support/workflows.js';

const { name: database, url } = scratchDatabase();

beforeAll(() => adminQuery(`CREATE DATABASE ${database}`));
afterAll(async () => {
  vi.unstubAllEnvs();
  await adminQuery(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`);
});

it('keeps events and checkpoints in the SERVICE_EVENTS database: another deck answers the run', async () => {
  vi.stubEnv('SERVICE_EVENTS', url.href);
  vi.stubEnv('SERVICE_CHECKPOINT', '');
  const first = await new Deck({ workflows: [approval({ durable: true })] }).open();
  const paused = await first.run('approval', { amount: 5 }, { sessionId: 'expense-1' });
  await first.close();
  expect(paused).toBeInstanceOf(InterruptResult);
  const runId = (paused as InterruptResult).runId as string;

  const second = await new Deck({ workflows: [approval({ durable: true })] }).open();
  try {
    expect((await second.pending()).map((p) => p.runId)).toEqual([runId]);
    expect(await second.answer(runId, { approved: true })).toMatchObject({
      approved: true,
      note: 'amount 5 approved',
    });
    expect(await second.status(runId)).toBe('completed');
    // The store and checkpointer timed under their backend's name (GET /metrics).
    const scrape = parseExposition(await (await second.app().request('/metrics')).text());
    const ops = 'agentdeck_store_operation_duration_seconds_count';
    expect(scrape.value(ops, { store: 'events', backend: 'postgres' })).toBeGreaterThan(0);
    expect(scrape.value(ops, { store: 'checkpoints', backend: 'postgres' })).toBeGreaterThan(0);
  } finally {
    await second.close();
  }

  const store = new PostgresEventStore({ url: url.href });
  const events = await store.read(runId);
  await store.close();
  expect(events.map((event) => event.seq)).toEqual(events.map((_, i) => i));
  expect(events[0]?.kind).toBe('run.started');
  expect(events.map((event) => event.kind)).toContain('run.interrupted');
  expect(events.at(-1)?.kind).toBe('run.completed');
  const client = new pg.Client({ connectionString: url.href });
  await client.connect();
  const { rows } = await client.query<{ n: number }>('SELECT count(*)::int AS n FROM checkpoints');
  await client.end();
  expect(rows[0]?.n).toBeGreaterThan(0);
});
