/**
 * Workflow runs through the Deck: results, what the log records, live streaming, custom
 * events, failures, threads, input checks, the context, and early stops.
 */
import {
  Annotation,
  END,
  type LangGraphRunnableConfig,
  START,
  StateGraph,
} from '@langchain/langgraph';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { collect, kinds, openTestDeck, testDeck } from '../../test/support/decks.js';
import { approval, threeSteps } from '../../test/support/workflows.js';
import {
  ConfigError,
  DataBlock,
  type Event,
  InterruptResult,
  InvalidInputError,
  interrupt,
  RunCancelledError,
  Workflow,
  withContext,
} from '../index.js';
import { MemoryEventStore } from '../stores/memory/index.js';

class Ledger {
  readonly entries: string[] = [];
}

const Notes = z.object({ text: z.string().default(''), count: z.number().default(0) });
type NotesState = z.infer<typeof Notes>;

/** One node over `Notes`; the graph runs START -> node -> END. */
function oneNode(name: string, node: (s: NotesState, config: LangGraphRunnableConfig) => unknown) {
  return new Workflow({
    name,
    state: Notes,
    graph: (state) =>
      new StateGraph(state)
        // biome-ignore lint/suspicious/noExplicitAny: a test node returns whatever it is given
        .addNode('only', node as any)
        .addEdge(START, 'only')
        .addEdge('only', END),
  });
}

describe('workflow runs', () => {
  it('returns the final state and records the initial and final states as one DataBlock each', async () => {
    const { deck, eventStore } = await openTestDeck({ workflows: [threeSteps()] });
    const result = await deck.run('three-steps', { n: 1 });
    expect(result).toEqual({ n: 4, steps: ['one', 'two', 'three'] });

    const [run] = await eventStore.listRuns();
    const events = await eventStore.read(run?.runId ?? '');
    expect(kinds(events)).toEqual([
      'run.started',
      'node.updated',
      'node.updated',
      'node.updated',
      'run.completed',
    ]);
    const started = events[0];
    expect(started?.kind === 'run.started' && started.payload).toEqual({
      invocableType: 'workflow',
      input: [new DataBlock({ n: 1 })],
    });
    const completed = events.at(-1);
    expect(completed?.kind === 'run.completed' && completed.payload.output).toEqual([
      new DataBlock({ n: 4, steps: ['one', 'two', 'three'] }),
    ]);
    expect(events[1]).toMatchObject({
      kind: 'node.updated',
      origin: 'three-steps',
      payload: { node: 'one', delta: { n: 2, steps: ['one'] } },
    });
    expect(await deck.status(run?.runId ?? '')).toBe('completed');
  });

  it('streams node.updated live, one per completed node, then one terminal event', async () => {
    let releaseSecond: () => void = () => {};
    const gate = new Promise<void>((resolve) => {
      releaseSecond = resolve;
    });
    const Pair = z.object({ a: z.number().default(0), b: z.number().default(0) });
    const slow = new Workflow({
      name: 'slow',
      state: Pair,
      graph: (state) =>
        new StateGraph(state)
          .addNode('first', () => ({ a: 1 }))
          .addNode('second', async () => {
            await gate;
            return { b: 2 };
          })
          .addEdge(START, 'first')
          .addEdge('first', 'second')
          .addEdge('second', END),
    });
    const { deck } = await openTestDeck({ workflows: [slow] });
    const seen: Event[] = [];
    for await (const event of deck.stream('slow', {})) {
      seen.push(event);
      // The first node's update arrives while the second node is still waiting.
      if (event.kind === 'node.updated' && event.payload.node === 'first') releaseSecond();
    }
    expect(kinds(seen)).toEqual(['run.started', 'node.updated', 'node.updated', 'run.completed']);
    expect(seen.map((e) => (e.kind === 'node.updated' ? e.payload.node : null))).toEqual([
      null,
      'first',
      'second',
      null,
    ]);
  });

  it("records what a node writes to LangGraph's custom stream as custom events", async () => {
    const progress = oneNode('progress', (s, config) => {
      config.writer?.({ step: 'half' });
      config.writer?.({ step: 'done' });
      return { count: s.count + 1 };
    });
    const { deck } = await openTestDeck({ workflows: [progress] });
    const events = await collect(deck.stream('progress', {}));
    expect(kinds(events)).toEqual([
      'run.started',
      'custom',
      'custom',
      'node.updated',
      'run.completed',
    ]);
    expect(events.filter((e) => e.kind === 'custom').map((e) => e.payload)).toEqual([
      { data: { step: 'half' } },
      { data: { step: 'done' } },
    ]);
  });

  it('ends the run with run.failed when a node throws, and rethrows the error', async () => {
    class LedgerClosedError extends Error {
      override name = 'LedgerClosedError';
    }
    const failing = oneNode('failing', () => {
      throw new LedgerClosedError('the ledger for 2026 is closed');
    });
    const { deck, eventStore } = await openTestDeck({ workflows: [failing] });
    await expect(deck.run('failing', {})).rejects.toThrow(LedgerClosedError);
    const [run] = await eventStore.listRuns();
    const events = await eventStore.read(run?.runId ?? '');
    expect(kinds(events)).toEqual(['run.started', 'run.failed']);
    expect(events[1]?.payload).toEqual({
      errorType: 'LedgerClosedError',
      message: 'the ledger for 2026 is closed',
      stack: expect.stringContaining('LedgerClosedError: the ledger for 2026 is closed'),
      node: 'only',
      input: { text: '', count: 0 }, // the state the node was given (the schema's defaults)
    });
    expect(run?.status).toBe('failed');
    // The thread is free again.
    expect(await eventStore.claimHolder(`thread:failing:${run?.runId}`)).toBeNull();
  });

  it('keeps a thread across calls with the same sessionId', async () => {
    const { deck } = await openTestDeck({ workflows: [threeSteps()] });
    await deck.run('three-steps', { n: 1 }, { sessionId: 'thread-1' });
    const second = await deck.run('three-steps', { n: 10 }, { sessionId: 'thread-1' });
    expect(second).toEqual({ n: 13, steps: ['one', 'two', 'three', 'one', 'two', 'three'] });
    const other = await deck.run('three-steps', { n: 10 }, { sessionId: 'thread-2' });
    expect(other).toEqual({ n: 13, steps: ['one', 'two', 'three'] });
  });

  it('uses the run id as the thread when no sessionId is given', async () => {
    const { deck } = await openTestDeck({ workflows: [approval()] });
    const result = await deck.run('approval', { amount: 3 });
    expect(result).toBeInstanceOf(InterruptResult);
    const paused = result as InterruptResult;
    expect(paused.threadId).toBe(paused.runId);
  });

  it('refuses a durable workflow run without a sessionId, recording nothing', async () => {
    const { deck, eventStore } = await openTestDeck({
      workflows: [approval({ durable: true })],
    });
    await expect(deck.run('approval', { amount: 3 })).rejects.toThrow(InvalidInputError);
    await expect(deck.run('approval', { amount: 3 })).rejects.toThrow(
      "workflow 'approval' is durable: pass sessionId",
    );
    expect(await eventStore.listRuns()).toEqual([]);
  });

  it('refuses a sessionId with a NUL character (Postgres cannot store one), recording nothing', async () => {
    const { deck, eventStore } = await openTestDeck({
      workflows: [approval({ durable: true })],
    });
    const run = deck.run('approval', { amount: 3 }, { sessionId: 'thread\u0000one' });
    await expect(run).rejects.toThrow(InvalidInputError);
    await expect(run).rejects.toThrow('holds a NUL character');
    expect(await eventStore.listRuns()).toEqual([]);
  });

  it('refuses an initial state that is not a mapping or does not fit the schema, recording nothing', async () => {
    const { deck, eventStore } = await openTestDeck({ workflows: [threeSteps()] });
    await expect(deck.run('three-steps', [] as never)).rejects.toThrow(
      "workflow 'three-steps' takes its initial state as an object mapping, got an array",
    );
    await expect(deck.run('three-steps', { n: 'one' })).rejects.toThrow(
      "invalid initial state for workflow 'three-steps': n: Invalid input: expected number, received string",
    );
    expect(await eventStore.listRuns()).toEqual([]);
  });

  it('refuses at build a graph() that returns no graph, or a graph that does not compile', async () => {
    const notAGraph = new Workflow({
      name: 'not-a-graph',
      state: Notes,
      graph: () => ({}) as never,
    });
    const first = testDeck({ workflows: [notAGraph] }).deck;
    expect(() => first.build()).toThrow(ConfigError);
    expect(() => first.build()).toThrow(
      "workflow 'not-a-graph': graph() must return an uncompiled StateGraph",
    );
    await first.close();
    const dangling = new Workflow({
      name: 'dangling',
      state: Notes,
      graph: (state) =>
        new StateGraph(state)
          .addNode('a', () => ({}))
          .addEdge(START, 'a')
          .addEdge('a', 'nowhere' as never),
    });
    expect(() => testDeck({ workflows: [dangling] }).deck.build()).toThrow(
      "workflow 'dangling': its graph does not compile",
    );
  });

  it('hands nodes the run context by reference', async () => {
    const ledger = new Ledger();
    const seen: unknown[] = [];
    const booking = oneNode(
      'booking',
      withContext(Ledger, (s: NotesState, ctx) => {
        seen.push(ctx.data);
        ctx.data.entries.push(s.text);
        return { count: ctx.data.entries.length };
      }),
    );
    const { deck } = await openTestDeck({ context: Ledger, workflows: [booking] });
    expect(await deck.run('booking', { text: 'rent' }, { context: ledger })).toMatchObject({
      count: 1,
    });
    expect(seen[0]).toBe(ledger);
    expect(ledger.entries).toEqual(['rent']);
  });

  it('ends the run with run.cancelled and frees the thread when the consumer stops early', async () => {
    const { deck, eventStore } = await openTestDeck({ workflows: [threeSteps()] });
    let runId = '';
    for await (const event of deck.stream('three-steps', { n: 1 }, { sessionId: 'early' })) {
      runId = event.runId;
      if (event.kind === 'node.updated') break;
    }
    const events = await eventStore.read(runId);
    expect(events.at(-1)?.kind).toBe('run.cancelled');
    expect(await eventStore.claimHolder('thread:three-steps:early')).toBeNull();
    expect(await deck.run('three-steps', { n: 1 }, { sessionId: 'early' })).toMatchObject({
      n: expect.any(Number),
    });
  });

  it('ends a streamed run that a node paused with run.interrupted, and passes a null answer through', async () => {
    const Answer = z.object({ answer: z.unknown() });
    const ask = new Workflow({
      name: 'ask',
      state: Answer,
      graph: (state) =>
        new StateGraph(state)
          .addNode('question', () => ({ answer: interrupt<unknown>('anything?') ?? 'was null' }))
          .addEdge(START, 'question')
          .addEdge('question', END),
    });
    const { deck } = await openTestDeck({ workflows: [ask] });
    const events = await collect(deck.stream('ask', {}));
    expect(kinds(events)).toEqual(['run.started', 'run.interrupted']);
    expect(events[1]?.payload).toEqual({ payload: 'anything?', threadId: events[0]?.runId });
    expect(await deck.answer(events[0]?.runId as string, null)).toEqual({ answer: 'was null' });
  });

  it('cancels a workflow run in flight when the deck closes', async () => {
    const stuck = oneNode(
      'stuck',
      (_s, config) =>
        new Promise((_resolve, reject) => {
          config.signal?.addEventListener('abort', () => reject(new Error('aborted')));
        }),
    );
    const { deck, eventStore } = await openTestDeck({ workflows: [stuck] });
    const stream = deck.stream('stuck', {}, { sessionId: 'busy' });
    const started = await stream.next();
    const runId = (started.value as Event).runId;
    const rest = collect(stream);
    await deck.close();
    await rest.catch(() => {});
    const events = await eventStore.read(runId);
    expect(kinds(events)).toEqual(['run.started', 'run.cancelled']);
    expect(events[1]?.payload).toEqual({ reason: 'the deck closed while the turn was running' });
    expect(await eventStore.claimHolder('thread:stuck:busy')).toBeNull();
  });

  it("refuses to answer a run whose thread is not in this deck's checkpointer, changing nothing", async () => {
    const eventStore = new MemoryEventStore();
    const first = await openTestDeck({ eventStore, workflows: [approval()] });
    const paused = (await first.deck.run('approval', { amount: 2 })) as InterruptResult;
    await first.deck.close();
    // A new deck shares the log, but the non-durable thread lived in the first deck's memory.
    const { deck } = await openTestDeck({ eventStore, workflows: [approval()] });
    const before = await eventStore.read(paused.runId as string);
    await expect(deck.answer(paused.runId as string, { approved: true })).rejects.toThrow(
      `run '${paused.runId}' waits in the event log, but thread '${paused.threadId}' has no open pause for it in this deck's checkpointer: workflow 'approval' is not durable`,
    );
    expect(await eventStore.read(paused.runId as string)).toEqual(before);
  });

  it('accepts a LangGraph Annotation as the state', async () => {
    const Tally = Annotation.Root({
      items: Annotation<string[]>({ reducer: (a, b) => a.concat(b), default: () => [] }),
    });
    const tally = new Workflow({
      name: 'tally',
      state: Tally,
      graph: (state) =>
        new StateGraph(state)
          .addNode('add', () => ({ items: ['b'] }))
          .addEdge(START, 'add')
          .addEdge('add', END),
    });
    const { deck } = await openTestDeck({ workflows: [tally] });
    expect(await deck.run('tally', { items: ['a'] })).toEqual({ items: ['a', 'b'] });
  });

  it('rejects run() with RunCancelledError, naming the reason, when the deck closes mid-run', async () => {
    const stuck = oneNode(
      'stuck',
      (_s, config) =>
        new Promise((_resolve, reject) => {
          config.signal?.addEventListener('abort', () => reject(new Error('aborted')));
        }),
    );
    const { deck } = await openTestDeck({ workflows: [stuck] });
    const running = deck.run('stuck', {});
    const outcome = running.catch((error: unknown) => error);
    await new Promise((resolve) => setTimeout(resolve, 20));
    await deck.close();
    const error = await outcome;
    expect(error).toBeInstanceOf(RunCancelledError);
    expect(String(error)).toContain('the deck closed while the turn was running');
  });
});
