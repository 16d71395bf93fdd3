/**
 * The Langfuse tracing observer against a local HTTP server standing in for Langfuse's OTLP
 * ingestion endpoint: what arrives (traces, observations, parent links, session id, usage,
 * levels), the settings that start it, and the errors SPEC.md lists for it.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createTraceId } from '@langfuse/tracing';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import { openTestDeck, testDeck } from '../../../test/support/decks.js';
import {
  type OtlpServer,
  otlpServer,
  type ReceivedSpan,
} from '../../../test/support/otlp-server.js';
import { approval } from '../../../test/support/workflows.js';
import {
  Agent,
  ConfigError,
  ConsoleObserver,
  type Context,
  InterruptResult,
  type Observer,
  tool,
} from '../../index.js';
import { MemoryEventStore } from '../../stores/memory/index.js';
import { ScriptedModel } from '../../testing/index.js';
import { resolveObservers } from '../defaults.js';
import { engineTraceId, runIds } from './ids.js';
import { LangfuseObserver } from './index.js';
import { importOptional, LANGFUSE_INSTALL_COMMAND } from './load.js';

const MARKER = 'CONTEXT-MARKER-7f3a9c';

class Calendar {
  readonly secret = MARKER;
  free(day: string) {
    return [`${day} 9am`];
  }
}

let server: OtlpServer;

beforeEach(async () => {
  server = await otlpServer();
});

afterEach(async () => {
  vi.unstubAllEnvs();
  await server.close();
});

const langfuse = (options = {}) =>
  new LangfuseObserver({
    publicKey: 'pk-test',
    secretKey: 'sk-test',
    baseUrl: server.url,
    ...options,
  });

function booker() {
  const findSlots = tool({
    name: 'find_slots',
    description: 'Free slots on a day',
    parameters: z.object({ day: z.string() }),
    context: Calendar,
    execute: async ({ day }, ctx: Context<Calendar>) => ({ day, slots: ctx.data.free(day) }),
  });
  const usage = { inputTokens: 1000, outputTokens: 500 };
  const model = new ScriptedModel(
    [
      { toolCalls: [{ name: 'find_slots', arguments: { day: 'tuesday' } }], usage },
      { text: 'Tuesday 9am is free.', usage },
    ],
    { name: 'gpt-4o-mini' },
  );
  return new Agent({ name: 'Booker', instructions: 'Book.', model, tools: [findSlots] });
}

const byName = (spans: ReceivedSpan[], name: string) => spans.filter((s) => s.name === name);
const one = (spans: ReceivedSpan[], name: string) => {
  const found = byName(spans, name);
  expect(found, `one observation named ${name}`).toHaveLength(1);
  return found[0] as ReceivedSpan;
};
const json = (value: unknown) => JSON.parse(value as string) as unknown;

describe('the Langfuse tracing observer', () => {
  it('renders an agent turn as one trace: tool calls and generations under the run, with session id and usage', async () => {
    const { deck } = await openTestDeck({
      agents: [booker()],
      context: Calendar,
      observers: [langfuse()],
    });
    const result = await deck.run('Booker', 'Book me Tuesday', {
      sessionId: 'user-42',
      context: new Calendar(),
    });
    await deck.close();

    expect(server.requests.length).toBeGreaterThan(0);
    for (const request of server.requests) {
      expect(request.path).toBe('/api/public/otel/v1/traces');
      expect(request.headers.authorization).toBe(`Basic ${btoa('pk-test:sk-test')}`);
    }
    const spans = server.spans();
    const ids = runIds(result.runId);
    expect(new Set(spans.map((s) => s.traceId))).toEqual(new Set([ids.traceId]));
    for (const span of spans) expect(span.attributes['session.id']).toBe('user-42');

    const root = one(spans, 'Booker');
    expect(root).toMatchObject({ spanId: ids.rootSpanId, parentSpanId: undefined });
    expect(root.attributes).toMatchObject({
      'langfuse.trace.name': 'Booker',
      'langfuse.observation.type': 'span',
      'langfuse.observation.input': 'Book me Tuesday',
      'langfuse.observation.output': 'Tuesday 9am is free.',
      'langfuse.observation.metadata.run_id': result.runId,
    });

    const call = one(spans, 'find_slots');
    expect(call.parentSpanId).toBe(root.spanId);
    expect(call.attributes['langfuse.observation.type']).toBe('tool');
    expect(json(call.attributes['langfuse.observation.input'])).toEqual({ day: 'tuesday' });
    expect(json(call.attributes['langfuse.observation.output'])).toEqual({
      day: 'tuesday',
      slots: ['tuesday 9am'],
    });

    const generations = byName(spans, 'gpt-4o-mini');
    expect(generations).toHaveLength(2);
    for (const generation of generations) {
      expect(generation.parentSpanId).toBe(root.spanId);
      expect(generation.attributes).toMatchObject({
        'langfuse.observation.type': 'generation',
        'langfuse.observation.model.name': 'gpt-4o-mini',
      });
      expect(json(generation.attributes['langfuse.observation.usage_details'])).toEqual({
        input: 1000,
        output: 500,
        total: 1500,
      });
      const cost = json(generation.attributes['langfuse.observation.cost_details']) as {
        total: number;
      };
      expect(cost.total).toBeCloseTo(0.00045, 9); // 1000 * 0.15 / 1e6 + 500 * 0.6 / 1e6
    }
    const outputs = generations.map((g) => g.attributes['langfuse.observation.output']);
    expect(outputs).toContain('Tuesday 9am is free.');
    // Each generation's input is the request the model saw (its model.call.started).
    const inputs = generations.map((g) =>
      json(g.attributes['langfuse.observation.input'] ?? 'null'),
    ) as Array<{ instructions: unknown; messages: unknown[] } | null>;
    expect(inputs.map((input) => input?.messages.length)).toEqual([1, 3]);
    expect(JSON.stringify(inputs[0]?.messages)).toContain('Book me Tuesday');
  });

  it('never puts the run context in a trace', async () => {
    const { deck } = await openTestDeck({
      agents: [booker()],
      context: Calendar,
      observers: [langfuse()],
    });
    await deck.run('Booker', 'Book me Tuesday', { sessionId: 's', context: new Calendar() });
    await deck.close();
    expect(server.spans().length).toBeGreaterThan(3);
    for (const request of server.requests) expect(request.body).not.toContain(MARKER);
  });

  it('renders a workflow run the same way; a run resumed in another process joins the same trace under its root', async () => {
    const name = 'approval';
    const checkpoints = `sqlite://${join(mkdtempSync(join(tmpdir(), 'agentdeck-lf-')), 'state.db')}`;
    const eventStore = new MemoryEventStore();
    const first = await openTestDeck({
      workflows: [approval({ name, durable: true })],
      checkpoints,
      eventStore,
      observers: [langfuse()],
    });
    const paused = await first.deck.run(name, { amount: 120 }, { sessionId: 'expense-17' });
    expect(paused).toBeInstanceOf(InterruptResult);
    const runId = (paused as InterruptResult).runId as string;
    await first.deck.close();

    // A second deck (a new observer that never saw the start) answers it.
    const second = await openTestDeck({
      workflows: [approval({ name, durable: true })],
      checkpoints,
      eventStore,
      observers: [langfuse()],
    });
    await second.deck.answer(runId, { approved: true });
    await second.deck.close();

    const spans = server.spans();
    const ids = runIds(runId);
    expect(new Set(spans.map((s) => s.traceId))).toEqual(new Set([ids.traceId]));
    for (const span of spans) {
      expect(span.attributes['session.id']).toBe('expense-17');
      expect(span.attributes['langfuse.trace.name']).toBe(name);
    }
    const root = one(spans, name);
    expect(root).toMatchObject({ spanId: ids.rootSpanId, parentSpanId: undefined });
    expect(root.attributes['langfuse.observation.metadata.status']).toBe('waiting_human');
    expect(json(root.attributes['langfuse.observation.output'])).toEqual({
      question: 'approve?',
      amount: 120,
    });
    expect(one(spans, 'prepare')).toMatchObject({ parentSpanId: root.spanId });
    expect(one(spans, 'prepare').attributes['langfuse.observation.type']).toBe('chain');

    const resumed = one(spans, `${name} resumed`);
    expect(resumed.parentSpanId).toBe(root.spanId);
    expect(resumed.attributes['langfuse.observation.metadata.status']).toBe('completed');
    expect(one(spans, 'ask').parentSpanId).toBe(resumed.spanId);
    expect(one(spans, 'finish').parentSpanId).toBe(resumed.spanId);
  });

  it('sets the level: ERROR for a failed run, WARNING for a cancelled one', async () => {
    const failing = new Agent({
      name: 'Failing',
      model: new ScriptedModel([{ error: 'upstream overloaded' }]),
    });
    const slow = new Agent({
      name: 'Slow',
      model: new ScriptedModel([{ text: ['a', 'b', 'c'], delayMs: 20 }]),
    });
    const { deck } = await openTestDeck({ agents: [failing, slow], observers: [langfuse()] });
    await expect(deck.run('Failing', 'hi')).rejects.toThrow();
    for await (const event of deck.stream('Slow', 'hi')) if (event.kind === 'text.delta') break;
    await deck.close();

    const failed = one(server.spans(), 'Failing');
    expect(failed.attributes['langfuse.observation.level']).toBe('ERROR');
    expect(failed.attributes['langfuse.observation.status_message']).toMatch(/upstream overloaded/);
    expect(failed.status?.code).toBe(2); // OpenTelemetry's ERROR
    const cancelled = one(server.spans(), 'Slow');
    expect(cancelled.attributes['langfuse.observation.level']).toBe('WARNING');
    expect(cancelled.attributes['langfuse.observation.metadata.status']).toBe('cancelled');
  });

  it("with sdkSpans, also exports the engine's own spans as a second, separate trace per turn", async () => {
    const { deck } = await openTestDeck({
      agents: [booker()],
      context: Calendar,
      observers: [langfuse({ sdkSpans: true })],
    });
    const result = await deck.run('Booker', 'Book me Tuesday', {
      sessionId: 'user-7',
      context: new Calendar(),
    });
    await deck.close();

    const spans = server.spans();
    const runTrace = runIds(result.runId).traceId;
    const engineTrace = engineTraceId(result.runId);
    expect(new Set(spans.map((s) => s.traceId))).toEqual(new Set([runTrace, engineTrace]));
    const engine = spans.filter((s) => s.traceId === engineTrace);
    for (const span of engine) {
      expect(span.attributes['langfuse.trace.name']).toBe('Booker (engine)');
      expect(span.attributes['session.id']).toBe('user-7');
    }
    // Not nested in the run's trace: its roots have no parent, and every parent is in it.
    const ids = new Set(engine.map((s) => s.spanId));
    const roots = engine.filter((s) => s.parentSpanId === undefined);
    expect(roots.length).toBeGreaterThan(0);
    for (const span of engine) if (span.parentSpanId) expect(ids).toContain(span.parentSpanId);
    const agent = engine.find((s) => s.attributes['langfuse.observation.type'] === 'agent');
    expect(agent?.name).toBe('Booker');
    const call = engine.find((s) => s.name === 'find_slots');
    expect(call?.attributes['langfuse.observation.type']).toBe('tool');
    expect(call?.attributes['langfuse.observation.input']).toBeUndefined();
    for (const request of server.requests) expect(request.body).not.toContain(MARKER);
  });

  it('an unreachable Langfuse costs the run nothing, and closing stays bounded', async () => {
    const gone = await otlpServer();
    await gone.close(); // nothing listens on its port any more
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
    const greeter = new Agent({ name: 'Greeter', model: new ScriptedModel([{ text: 'hi' }]) });
    const { deck } = await openTestDeck({
      agents: [greeter],
      observers: [langfuse({ baseUrl: gone.url, timeoutSeconds: 1 })],
    });
    expect((await deck.run('Greeter', 'hello')).output).toBe('hi');
    const started = performance.now();
    await deck.close();
    expect(performance.now() - started).toBeLessThan(5_000);
    warn.mockRestore();
  });

  it('derives the trace id as Langfuse does from a seed, so a run id finds its trace', async () => {
    expect(runIds('run-123').traceId).toBe(await createTraceId('run-123'));
  });
});

describe('which observers a deck starts', () => {
  const tracerEnv = () => {
    vi.stubEnv('SERVICE_TRACER_PUBLIC_KEY', 'pk-env');
    vi.stubEnv('SERVICE_TRACER_SECRET_KEY', 'sk-env');
    vi.stubEnv('SERVICE_TRACER_BASE_URL', server.url);
  };
  const greeter = () => new Agent({ name: 'Greeter', model: new ScriptedModel([{ text: 'hi' }]) });

  it('omitted: the tracing observer, from SERVICE_TRACER_* when both keys are set', async () => {
    tracerEnv();
    const { deck } = await openTestDeck({ agents: [greeter()] });
    await deck.run('Greeter', 'hello', { sessionId: 's-env' });
    await deck.close();
    expect(server.requests[0]?.headers.authorization).toBe(`Basic ${btoa('pk-env:sk-env')}`);
    expect(one(server.spans(), 'Greeter').attributes['session.id']).toBe('s-env');
  });

  it('omitted, without both keys: none, silently', () => {
    const warn = vi.spyOn(console, 'warn');
    expect(resolveObservers(undefined, {})).toEqual([]);
    expect(resolveObservers(undefined, { SERVICE_TRACER_PUBLIC_KEY: 'pk' })).toEqual([]);
    expect(warn).not.toHaveBeenCalled();
    const observers = resolveObservers(undefined, {
      SERVICE_TRACER_PUBLIC_KEY: 'pk',
      SERVICE_TRACER_SECRET_KEY: 'sk',
    });
    expect(observers).toHaveLength(1);
    expect(observers[0]).toBeInstanceOf(LangfuseObserver);
  });

  it('a list: exactly those, the tracing observer suppressed; [] : none at all', async () => {
    tracerEnv();
    const lines: string[] = [];
    const console = new ConsoleObserver({ stream: { write: (l: string) => lines.push(l) } });
    const listed: Observer[] = [console];
    expect(resolveObservers(listed)).toBe(listed);
    const withList = await openTestDeck({ agents: [greeter()], observers: listed });
    await withList.deck.run('Greeter', 'hello');
    await withList.deck.close();
    expect(lines.length).toBeGreaterThan(0);
    const none = await openTestDeck({ agents: [greeter()], observers: [] });
    await none.deck.run('Greeter', 'hello');
    await none.deck.close();
    expect(server.requests).toEqual([]);
  });

  it('named without keys: ConfigError at open, and the open is refused', async () => {
    vi.stubEnv('SERVICE_TRACER_PUBLIC_KEY', '');
    vi.stubEnv('SERVICE_TRACER_SECRET_KEY', '');
    const { deck } = testDeck({ agents: [greeter()], observers: [new LangfuseObserver()] });
    deck.build(); // build contacts nothing and checks no keys
    const error = await deck.open().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as Error).message).toMatch(
      /named but has no keys: set SERVICE_TRACER_PUBLIC_KEY and SERVICE_TRACER_SECRET_KEY/,
    );
    expect(deck.state).toBe('built');
  });

  it('a missing package: ConfigError saying what to install', async () => {
    const missing = '@langfuse/not-installed-anywhere';
    const error = await importOptional(missing, () => import(missing)).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as Error).message).toContain(`needs '${missing}'`);
    expect((error as Error).message).toContain(LANGFUSE_INSTALL_COMMAND);
    expect(LANGFUSE_INSTALL_COMMAND).toMatch(/^npm install @langfuse\/tracing @langfuse\/otel /);
  });
});
