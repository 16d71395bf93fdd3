/**
 * The run context reaches every site by reference and never lands in storage: after runs
 * whose context holds a marker string (an agent turn whose tool, instructions and hooks
 * read it, and a workflow paused and answered), no row of the SQLite file (events and
 * checkpoints share it), no key of the Redis session store, no trace sent to Langfuse (a
 * local stand-in), no line a JSON-lines observer wrote, and no row of Postgres' checkpoint
 * tables holds it.
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { PassThrough } from 'node:stream';
import { END, START, StateGraph } from '@langchain/langgraph';
import { Redis } from 'ioredis';
import pg from 'pg';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import { testDeck } from '../../test/support/decks.js';
import { otlpServer } from '../../test/support/otlp-server.js';
import {
  Agent,
  type InterruptResult,
  interrupt,
  needsContext,
  tool,
  Workflow,
  withContext,
} from '../index.js';
import { ConsoleObserver } from '../observers/console.js';
import { LangfuseObserver } from '../observers/langfuse/index.js';
import { SqliteEventStore } from '../stores/sqlite/index.js';
import { ScriptedModel } from '../testing/index.js';

class Vault {
  readonly secret = `ctx-marker-${randomUUID()}`;
}

const State = z.object({ seen: z.boolean().optional(), answer: z.string().optional() });

function guarded(name: string) {
  return new Workflow({
    name,
    state: State,
    durable: true,
    graph: (state) =>
      new StateGraph(state)
        .addNode(
          'check',
          withContext(Vault, (_s: z.infer<typeof State>, ctx) => ({
            seen: ctx.data.secret.startsWith('ctx-marker-'),
          })),
        )
        .addNode('ask', () => ({ answer: interrupt<string>('go?') }))
        .addEdge(START, 'check')
        .addEdge('check', 'ask')
        .addEdge('ask', END),
  });
}

async function pauseAndAnswer(deck: ReturnType<typeof testDeck>['deck'], name: string) {
  const vault = new Vault();
  const paused = (await deck.run(
    name,
    {},
    { sessionId: `t-${randomUUID()}`, context: vault },
  )) as InterruptResult;
  expect(await deck.answer(paused.runId as string, 'yes', { context: vault })).toEqual({
    seen: true,
    answer: 'yes',
  });
  return vault.secret;
}

/** An agent whose tool, instructions and hook all read the vault (and say they did). */
function vaultAgent() {
  const model = new ScriptedModel([
    { toolCalls: [{ name: 'peek', arguments: { why: 'audit' } }] },
    { text: 'The vault is fine.' },
  ]);
  const peek = tool({
    name: 'peek',
    description: 'Look into the vault',
    parameters: z.object({ why: z.string() }),
    context: Vault,
    execute: (_args, ctx) => ({ sealed: ctx.data.secret.startsWith('ctx-marker-') }),
  });
  return new Agent({
    name: 'Keeper',
    model,
    tools: [peek],
    instructions: needsContext(Vault, (ctx) => `Guard a vault of ${ctx.data.secret.length} chars.`),
    hooks: { onEnd: needsContext(Vault, (ctx) => void ctx.data.secret) },
  });
}

const redisUrl = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

afterEach(() => vi.unstubAllEnvs());

describe('the context never lands in storage', () => {
  it('leaves no trace in the SQLite events and checkpoints, the Redis sessions, traces or observer output', async () => {
    const prefix = `agentdeck-test:${randomUUID()}:`;
    const tracer = await otlpServer();
    const lines = new PassThrough();
    let written = '';
    lines.on('data', (chunk: Buffer) => {
      written += chunk.toString();
    });
    vi.stubEnv('SERVICE_SESSION', redisUrl);
    vi.stubEnv('SERVICE_SESSION_KEY_PREFIX', prefix);
    const path = join(mkdtempSync(join(tmpdir(), 'agentdeck-ctx-')), 'state.db');
    const eventStore = new SqliteEventStore({ path });
    const { deck } = testDeck({
      context: Vault,
      eventStore,
      checkpoints: `sqlite://${path}`,
      agents: [vaultAgent()],
      workflows: [guarded('guarded')],
      observers: [
        new LangfuseObserver({
          publicKey: 'pk-test',
          secretKey: 'sk-test',
          baseUrl: tracer.url,
          sdkSpans: true,
        }),
        new ConsoleObserver({ format: 'json', stream: lines }),
      ],
    });
    await deck.open();
    const secret = await pauseAndAnswer(deck, 'guarded');
    const vault = Object.assign(new Vault(), { secret });
    const turn = await deck.run('Keeper', 'Check the vault', {
      sessionId: 'keeper',
      context: vault,
    });
    expect(turn.output).toBe('The vault is fine.');
    await deck.close(); // flushes the observers
    await eventStore.close();
    await tracer.close();

    expect(tracer.spans().length).toBeGreaterThan(10);
    for (const request of tracer.requests) expect(request.body).not.toContain(secret);
    expect(written.split('\n').length).toBeGreaterThan(10);
    expect(written).not.toContain(secret);

    const redis = new Redis(redisUrl);
    try {
      const keys = await redis.keys(`${prefix}*`);
      expect(keys).toEqual([`${prefix}keeper`]);
      const items = await redis.lrange(`${prefix}keeper`, 0, -1);
      expect(items.length).toBeGreaterThanOrEqual(4); // user, tool call, tool result, reply
      for (const item of items) expect(item).not.toContain(secret);
      await redis.del(...keys);
    } finally {
      await redis.quit();
    }

    const db = new DatabaseSync(path, { readOnly: true });
    const tables = db
      .prepare("SELECT name FROM sqlite_master WHERE type = 'table'")
      .all()
      .map((row) => String(row.name));
    expect(tables).toEqual(expect.arrayContaining(['events', 'lg_checkpoints', 'lg_writes']));
    let rows = 0;
    for (const table of tables) {
      for (const row of db.prepare(`SELECT * FROM "${table}"`).all()) {
        rows += 1;
        expect(dump(row), `a row of ${table}`).not.toContain(secret);
      }
    }
    db.close();
    expect(rows).toBeGreaterThan(10);
  });

  it('leaves no trace in the Postgres checkpoint tables', async () => {
    const url = process.env.TEST_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
    const name = `guarded-${randomUUID().slice(0, 8)}`;
    const { deck } = testDeck({ context: Vault, checkpoints: url, workflows: [guarded(name)] });
    await deck.open();
    const secret = await pauseAndAnswer(deck, name);
    await deck.close();

    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      let rows = 0;
      for (const table of ['checkpoints', 'checkpoint_blobs', 'checkpoint_writes']) {
        const result = await client.query(`SELECT * FROM ${table} WHERE thread_id LIKE $1`, [
          `${name}:%`,
        ]);
        for (const row of result.rows) {
          rows += 1;
          expect(dump(row), `a row of ${table}`).not.toContain(secret);
        }
      }
      expect(rows).toBeGreaterThan(5);
    } finally {
      await client.end();
    }
  });
});

/** A row as text, blobs included (decoded as UTF-8, which is how JSON is stored in them). */
function dump(row: Record<string, unknown>): string {
  return Object.values(row)
    .map((value) => {
      if (value instanceof Uint8Array) return Buffer.from(value).toString('utf8');
      // pg returns JSONB columns (checkpoint, metadata) as objects.
      return typeof value === 'object' && value !== null ? JSON.stringify(value) : String(value);
    })
    .join('\u0000');
}
