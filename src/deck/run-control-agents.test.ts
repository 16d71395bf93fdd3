/**
 * Run control of agent turns (issue 7): pause and cancel are requests the run observes at
 * safe points; resume continues from the engine's saved state, so a tool that ran before
 * the pause never runs again; cancel aborts the model call and the tool in flight.
 */

import type { Model } from '@openai/agents-core';
import { describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import { collect, kinds, openTestDeck } from '../../test/support/decks.js';
import { Agent, ConflictError, type Event, tool } from '../index.js';
import { requestControl } from '../runtime/control/requests.js';
import { ScriptedModel, type ScriptedStep } from '../testing/index.js';

/** A tool that counts its calls and takes `ms` (or until aborted). */
function countingTool(ms: number) {
  const seen = { calls: 0, aborted: 0, started: false };
  const slow = tool({
    name: 'book',
    description: 'Books the room (a side effect: it must run once)',
    parameters: z.object({}),
    execute: async (_args, ctx) => {
      seen.calls += 1;
      seen.started = true;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, ms);
        ctx.signal.addEventListener('abort', () => {
          seen.aborted += 1;
          clearTimeout(timer);
          resolve();
        });
      });
      return `booked (context: ${String((ctx.data as { tenant?: string } | null)?.tenant)})`;
    },
  });
  return { slow, seen };
}

/** A sentence streamed slowly, then the tool call, then the answer. */
const holdingSteps: ScriptedStep[] = [
  {
    text: ['Let me ', 'book ', 'it.'],
    delayMs: 60,
    toolCalls: [{ name: 'book', arguments: {}, callId: 'call_book' }],
  },
  { text: 'Booked.' },
];

const toolThenText: ScriptedStep[] = [
  { toolCalls: [{ name: 'book', arguments: {}, callId: 'call_book' }] },
  { text: ['The room ', 'is booked.'] },
];

async function agentDeck(steps: ScriptedStep[], toolMs: number) {
  const model = new ScriptedModel(steps);
  const { slow, seen } = countingTool(toolMs);
  const opened = await openTestDeck({
    agents: [new Agent({ name: 'Booker', instructions: 'Book rooms.', model, tools: [slow] })],
  });
  return { ...opened, model, seen };
}

const ofKind = (events: readonly Event[], kind: Event['kind']) =>
  events.filter((e) => e.kind === kind);

describe('pausing an agent turn', () => {
  it('pauses after a running tool finishes, and resume never runs it again (exactly once)', async () => {
    const { deck, eventStore, model, seen } = await agentDeck(toolThenText, 300);
    const stream = deck.stream('Booker', 'Book room 4', { sessionId: 's-1', runId: 'r-once' });
    const events: Event[] = [];
    for await (const event of stream) {
      events.push(event);
      if (event.kind === 'tool.call.started')
        await deck.pause('r-once', { reason: 'check budget' });
    }
    expect(kinds(events).slice(-3)).toEqual([
      'tool.call.completed',
      'control.observed',
      'run.paused',
    ]);
    // The process playing the run wrote the request into its log before acting on it.
    const pausedLog = kinds(await eventStore.read('r-once'));
    expect(pausedLog.indexOf('control.requested')).toBeGreaterThan(0);
    expect(pausedLog.indexOf('control.requested')).toBeLessThan(
      pausedLog.indexOf('control.observed'),
    );
    expect(events.at(-1)?.payload).toEqual({ reason: 'check budget' });
    expect(await deck.status('r-once')).toBe('paused');
    expect(seen.calls).toBe(1);
    expect(await eventStore.readContinuation('r-once')).toEqual(expect.any(String));

    const continued = await deck.resume('r-once', { context: { tenant: 'acme' } });
    expect(kinds(continued)[0]).toBe('run.resumed');
    expect(kinds(continued).at(-1)).toBe('run.completed');
    expect(ofKind(continued, 'tool.call.started')).toHaveLength(0);
    expect(seen.calls).toBe(1);
    expect(await deck.status('r-once')).toBe('completed');
    expect(await eventStore.readContinuation('r-once')).toBeNull();
    // The totals count the model calls of both segments.
    const completedEvent = continued.at(-1);
    expect(completedEvent?.kind === 'run.completed' && completedEvent.payload.usage?.requests).toBe(
      2,
    );
    model.assertConsumed();
    // The second model call got the tool's output once, and the history holds the turn once.
    const items = JSON.stringify(await deck.sessionFor('s-1').getItems());
    expect(items.match(/Book room 4/g)).toHaveLength(1);
    expect(items.match(/"function_call_result"/g)).toHaveLength(1);
    expect(items.match(/The room is booked\./g)).toHaveLength(1);
    // One log entry: started, paused, resumed, completed, with seq gap-free.
    const log = await eventStore.read('r-once');
    expect(log.map((e) => e.seq)).toEqual(log.map((_, i) => i));
    expect(ofKind(log, 'run.started')).toHaveLength(1);
  });

  it('pauses before dispatching a tool: the held call runs once on resume, with the new context', async () => {
    // The pause comes while the model is answering with the tool call (no text to stop at).
    const scripted = new ScriptedModel(toolThenText);
    const { slow, seen } = countingTool(10);
    let deck: Awaited<ReturnType<typeof openTestDeck>>['deck'] | undefined;
    const model: Model = {
      getResponse: (request) => scripted.getResponse(request),
      async *getStreamedResponse(request) {
        if (scripted.calls.length === 0) await deck?.pause('r-before');
        yield* scripted.getStreamedResponse(request);
      },
    };
    ({ deck } = await openTestDeck({
      agents: [new Agent({ name: 'Booker', model, tools: [slow] })],
    }));
    const events = await collect(deck.stream('Booker', 'Book it', { runId: 'r-before' }));
    expect(kinds(events).slice(-3)).toEqual([
      'tool.call.started',
      'control.observed',
      'run.paused',
    ]);
    expect(seen.calls).toBe(0);

    const continued = await deck.resume('r-before', { context: { tenant: 'acme' } });
    expect(seen.calls).toBe(1);
    const completed = ofKind(continued, 'tool.call.completed')[0];
    expect(completed?.payload).toMatchObject({ output: 'booked (context: acme)' });
    expect(kinds(continued).at(-1)).toBe('run.completed');
    scripted.assertConsumed();
  });

  it('pauses between streamed items: the reply is cut short and asked again on resume', async () => {
    const words = Array.from({ length: 40 }, (_, i) => `w${i} `);
    const { deck, eventStore, model } = await agentDeck(
      [{ text: words, delayMs: 20 }, { text: 'Short answer.' }],
      10,
    );
    const events: Event[] = [];
    for await (const event of deck.stream('Booker', 'Tell me', { runId: 'r-mid' })) {
      events.push(event);
      if (ofKind(events, 'text.delta').length === 2) await deck.pause('r-mid');
    }
    expect(kinds(events).slice(-2)).toEqual(['control.observed', 'run.paused']);
    expect(ofKind(events, 'text.delta').length).toBeLessThan(10);
    expect(ofKind(events, 'message.completed')).toHaveLength(0);

    const continued = await deck.resume('r-mid');
    expect(kinds(continued).at(-1)).toBe('run.completed');
    const messages = ofKind(continued, 'message.completed').map(
      (e) => (e.payload as { messageId: string }).messageId,
    );
    expect(messages).toEqual(['r-mid:m1']); // the cut-short reply keeps m0, never completed
    model.assertConsumed();
    expect(await eventStore.readContinuation('r-mid')).toBeNull();
  });

  it('records every event the engine produced before it stops, even for a slow reader', async () => {
    const ran: string[] = [];
    const quick = tool({
      name: 'quick',
      description: 'fast',
      parameters: z.object({}),
      execute: async () => {
        ran.push('quick');
        return 'q';
      },
    });
    const { slow, seen } = countingTool(250);
    const model = new ScriptedModel([
      {
        toolCalls: [
          { name: 'quick', arguments: {}, callId: 'c_quick' },
          { name: 'book', arguments: {}, callId: 'c_book' },
        ],
      },
      { text: 'Both done.' },
    ]);
    const { deck, eventStore } = await openTestDeck({
      agents: [new Agent({ name: 'Par', model, tools: [quick, slow] })],
      // Timed for the events a turn has without model call records: the reader's lag is the point.
      recordModelCalls: 'off',
    });
    const stream = deck.stream('Par', 'go', { runId: 'r-par' });
    for await (const event of stream) {
      if (event.kind === 'tool.call.started' && event.payload.name === 'quick')
        await deck.pause('r-par');
      await new Promise((resolve) => setTimeout(resolve, 80)); // a slow reader
    }
    const log = await eventStore.read('r-par');
    const done = ofKind(log, 'tool.call.completed').map((e) => e.payload);
    expect(done).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ callId: 'c_quick' }),
        expect.objectContaining({ callId: 'c_book' }),
      ]),
    );
    expect(kinds(log).slice(-2)).toEqual(['control.observed', 'run.paused']);
    const continued = await deck.resume('r-par');
    expect(kinds(continued).at(-1)).toBe('run.completed');
    expect(ofKind(continued, 'tool.call.completed')).toHaveLength(0);
    expect([ran.length, seen.calls]).toEqual([1, 1]);
    model.assertConsumed();
  });

  it('pauses before a model call: nothing was asked yet, and resume asks it once', async () => {
    const { deck, model, seen } = await agentDeck(toolThenText, 10);
    const stream = deck.stream('Booker', 'Book it', { runId: 'r-first' });
    const first = await stream.next();
    expect(first.value?.kind).toBe('run.started');
    await deck.pause('r-first');
    const rest = await collect({ [Symbol.asyncIterator]: () => stream });
    expect(kinds(rest)).toEqual(['control.observed', 'run.paused']);
    expect(model.calls).toHaveLength(0);
    const continued = await deck.resume('r-first');
    expect(kinds(continued).at(-1)).toBe('run.completed');
    expect(model.calls).toHaveLength(2);
    expect(seen.calls).toBe(1);
  });

  it('stays paused when its reader stops at run.paused', async () => {
    const { deck, seen } = await agentDeck(holdingSteps, 10);
    let paused = false;
    for await (const event of deck.stream('Booker', 'Book it', { runId: 'r-stop' })) {
      if (event.kind === 'text.delta' && !paused) {
        paused = true;
        await deck.pause('r-stop');
      }
      if (event.kind === 'run.paused') break;
    }
    expect(await deck.status('r-stop')).toBe('paused');
    expect(kinds(await deck.resume('r-stop')).at(-1)).toBe('run.completed');
    expect(seen.calls).toBe(0); // the reply was cut short before its tool call; asked again, it answered
  });

  it('keeps the session claimed while paused: a new turn on it gets ConflictError', async () => {
    const { deck } = await agentDeck(toolThenText, 10);
    const stream = deck.stream('Booker', 'Book it', { sessionId: 's-held', runId: 'r-held' });
    await stream.next();
    await deck.pause('r-held');
    await collect({ [Symbol.asyncIterator]: () => stream });
    await expect(deck.run('Booker', 'another', { sessionId: 's-held' })).rejects.toBeInstanceOf(
      ConflictError,
    );
  });

  it('returns [] from resume when there is nothing to resume', async () => {
    const { deck } = await agentDeck([{ text: 'done' }], 10);
    const result = await deck.run('Booker', 'hi', { runId: 'r-done' });
    expect(result.output).toBe('done');
    expect(await deck.resume('r-done')).toEqual([]);
    expect(await deck.resume('no-such-run')).toEqual([]);
  });

  it('lets exactly one of two concurrent resumes continue the run', async () => {
    const { deck, seen } = await agentDeck(toolThenText, 10);
    const stream = deck.stream('Booker', 'Book it', { runId: 'r-race' });
    await stream.next();
    await deck.pause('r-race');
    await collect({ [Symbol.asyncIterator]: () => stream });
    const [a, b] = await Promise.all([deck.resume('r-race'), deck.resume('r-race')]);
    expect([a.length > 0, b.length > 0].sort()).toEqual([false, true]);
    expect(seen.calls).toBe(1);
    expect(await deck.status('r-race')).toBe('completed');
  });

  it('never leaves a run stuck when resume follows pause at once', async () => {
    const { deck, eventStore, seen } = await agentDeck(toolThenText, 200);
    const stream = deck.stream('Booker', 'Book it', { runId: 'r-quick' });
    const consumed = collect({ [Symbol.asyncIterator]: () => stream });
    await vi.waitFor(() => expect(seen.started).toBe(true));
    await deck.pause('r-quick');
    const resumed = await deck.resume('r-quick');
    await consumed;
    // Either the pause was withdrawn before it was observed (the turn simply completes), or
    // it was observed and the resume continued it: both end completed, the tool ran once.
    await vi.waitFor(async () => expect(await deck.status('r-quick')).toBe('completed'));
    expect(seen.calls).toBe(1);
    const log = await eventStore.read('r-quick');
    expect(ofKind(log, 'run.completed')).toHaveLength(1);
    expect(resumed.length === 0 || resumed.at(-1)?.kind === 'run.completed').toBe(true);
  });
});

describe('what a paused run keeps', () => {
  it('saves no trace of the context in its continuation', async () => {
    const { deck, eventStore } = await agentDeck(holdingSteps, 10);
    const marker = 'CTX-MARKER-7f3a';
    const stream = deck.stream('Booker', 'Book it', {
      runId: 'r-private',
      context: { tenant: marker, secret: marker },
    });
    let paused = false;
    for await (const event of stream) {
      if (event.kind === 'text.delta' && !paused) {
        paused = true;
        await deck.pause('r-private');
      }
    }
    const saved = await eventStore.readContinuation('r-private');
    expect(saved).toContain('Book it');
    expect(saved).not.toContain(marker);
    expect(JSON.stringify(await eventStore.read('r-private'))).not.toContain(marker);
  });

  it('holds its session until the stale-run timeout, which closes it as failed', async () => {
    vi.stubEnv('SERVICE_RUNTIME_STALE_RUN_AFTER_SECONDS', '1');
    try {
      const { deck, eventStore } = await agentDeck(
        [...toolThenText.slice(0, 1), { text: 'new turn' }],
        10,
      );
      const stream = deck.stream('Booker', 'Book it', { sessionId: 's-stale', runId: 'r-stale' });
      await stream.next();
      await deck.pause('r-stale');
      await collect({ [Symbol.asyncIterator]: () => stream });
      await expect(deck.run('Booker', 'next', { sessionId: 's-stale' })).rejects.toBeInstanceOf(
        ConflictError,
      );
      await new Promise((resolve) => setTimeout(resolve, 1_200));
      const next = await deck.run('Booker', 'next', { sessionId: 's-stale' });
      expect(next.output).toBe('new turn');
      expect(await deck.status('r-stale')).toBe('failed');
      expect(await eventStore.readContinuation('r-stale')).toBeNull();
      expect(await deck.resume('r-stale')).toEqual([]);
    } finally {
      vi.unstubAllEnvs();
    }
  });
});

describe('resuming from elsewhere', () => {
  it('plays a resume recorded by a process with no runtime (the service command)', async () => {
    const { deck, eventStore, seen } = await agentDeck(toolThenText, 10);
    const stream = deck.stream('Booker', 'Book it', { runId: 'r-cli' });
    await stream.next();
    await deck.pause('r-cli');
    await collect({ [Symbol.asyncIterator]: () => stream });
    await requestControl(eventStore, null, 'r-cli', 'resume', null);
    await vi.waitFor(async () => expect(await deck.status('r-cli')).toBe('completed'), {
      timeout: 5_000,
    });
    expect(seen.calls).toBe(1);
  });

  it('answers HTTP resume with the status and event count of the continuation', async () => {
    const { deck, eventStore } = await agentDeck(toolThenText, 10);
    const stream = deck.stream('Booker', 'Book it', { runId: 'r-http' });
    await stream.next();
    await deck.pause('r-http');
    await collect({ [Symbol.asyncIterator]: () => stream });
    const app = deck.app();
    const response = await app.request('/runs/r-http/resume', { method: 'POST' });
    expect(response.status).toBe(200);
    const log = await eventStore.read('r-http');
    const resumedAt = log.findIndex((e) => e.kind === 'run.resumed');
    expect(await response.json()).toEqual({
      run_id: 'r-http',
      status: 'completed',
      events: log.length - resumedAt,
    });
    const again = await app.request('/runs/r-http/resume', { method: 'POST' });
    expect(again.status).toBe(409);
  });
});

describe('cancelling an agent turn', () => {
  it('aborts a slow tool at once and records control.observed, then run.cancelled', async () => {
    const { deck, eventStore, seen } = await agentDeck(toolThenText, 10_000);
    const stream = deck.stream('Booker', 'Book it', { sessionId: 's-c', runId: 'r-cancel' });
    const consumed = collect({ [Symbol.asyncIterator]: () => stream });
    await vi.waitFor(() => expect(seen.started).toBe(true));
    const asked = performance.now();
    await deck.cancel('r-cancel', { reason: 'user gave up' });
    const events = await consumed;
    expect(performance.now() - asked).toBeLessThan(1_000);
    expect(seen.aborted).toBe(1);
    expect(kinds(events).slice(-2)).toEqual(['control.observed', 'run.cancelled']);
    expect(events.at(-1)?.payload).toEqual({ reason: 'user gave up' });
    const [request] = await eventStore.readControl('r-cancel');
    expect(events.at(-2)?.payload).toEqual({ verb: 'cancel', requestId: request?.requestId });
    // The session is free again.
    expect(await eventStore.claimHolder('session:s-c')).toBeNull();
  });

  it('aborts a long generation in well under a second', async () => {
    const chunks = Array.from({ length: 100 }, (_, i) => `w${i} `);
    const { deck } = await agentDeck([{ text: chunks, delayMs: 100 }], 10);
    const stream = deck.stream('Booker', 'Tell me a long story', { runId: 'r-long' });
    const events: Event[] = [];
    let asked = 0;
    for await (const event of stream) {
      events.push(event);
      if (event.kind === 'text.delta' && asked === 0) {
        asked = performance.now();
        await deck.cancel('r-long');
      }
    }
    expect(performance.now() - asked).toBeLessThan(1_000);
    expect(ofKind(events, 'text.delta').length).toBeLessThan(20);
    expect(kinds(events).at(-1)).toBe('run.cancelled');
  });

  it('ends a paused run on cancel, frees its session and forgets its saved state', async () => {
    const { deck, eventStore } = await agentDeck([...toolThenText, { text: 'fresh' }], 10);
    const stream = deck.stream('Booker', 'Book it', { sessionId: 's-p', runId: 'r-paused' });
    await stream.next();
    await deck.pause('r-paused');
    await collect({ [Symbol.asyncIterator]: () => stream });
    await deck.cancel('r-paused');
    expect(await deck.status('r-paused')).toBe('cancelled');
    expect(kinds(await eventStore.read('r-paused')).slice(-3)).toEqual([
      'control.requested',
      'control.observed',
      'run.cancelled',
    ]);
    expect(await eventStore.readContinuation('r-paused')).toBeNull();
    expect(await deck.resume('r-paused')).toEqual([]);
  });

  it('ends a run that a cancel reached while it was stopping for a pause', async () => {
    const { deck, eventStore } = await agentDeck(holdingSteps, 10);
    const stream = deck.stream('Booker', 'Book it', { sessionId: 's-pc', runId: 'r-pc' });
    let paused = false;
    for await (const event of stream) {
      if (event.kind === 'text.delta' && !paused) {
        paused = true;
        await deck.pause('r-pc');
      }
      if (event.kind === 'control.observed') await deck.cancel('r-pc', { reason: 'too late' });
    }
    await vi.waitFor(async () => expect(await deck.status('r-pc')).toBe('cancelled'));
    const log = await eventStore.read('r-pc');
    expect(kinds(log).slice(-3)).toEqual([
      'control.requested',
      'control.observed',
      'run.cancelled',
    ]);
    expect(await eventStore.claimHolder('session:s-pc')).toBeNull();
    expect(await deck.resume('r-pc')).toEqual([]);
  });

  it('records nothing after the end when two cancels race on a paused run', async () => {
    const { deck, eventStore } = await agentDeck(toolThenText, 10);
    const stream = deck.stream('Booker', 'Book it', { runId: 'r-2c' });
    await stream.next();
    await deck.pause('r-2c');
    await collect({ [Symbol.asyncIterator]: () => stream });
    await Promise.all([deck.cancel('r-2c'), deck.cancel('r-2c')]);
    const log = await eventStore.read('r-2c');
    expect(kinds(log).at(-1)).toBe('run.cancelled');
    expect(ofKind(log, 'run.cancelled')).toHaveLength(1);
  });

  it('does nothing for a request on a finished run', async () => {
    const { deck, eventStore } = await agentDeck([{ text: 'done' }], 10);
    await deck.run('Booker', 'hi', { runId: 'r-fin' });
    const before = await eventStore.read('r-fin');
    await deck.pause('r-fin');
    await deck.cancel('r-fin');
    expect(await eventStore.read('r-fin')).toEqual(before);
    expect(await deck.status('r-fin')).toBe('completed');
  });
});
