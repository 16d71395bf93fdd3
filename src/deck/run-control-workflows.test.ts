/**
 * Run control of workflows (issue 7): a workflow's safe point is a node boundary. A pause
 * stops it there and resume continues from its last checkpoint (a completed node never
 * runs again); a cancel aborts the running node.
 */
import { END, START, StateGraph } from '@langchain/langgraph';
import { describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import { collect, kinds, openTestDeck } from '../../test/support/decks.js';
import { type Event, InterruptResult, Workflow } from '../index.js';

const State = z.object({ n: z.number(), steps: z.array(z.string()).optional() });
type S = z.infer<typeof State>;

/** `slow` (takes `ms`, or until aborted) -> `two` -> `three`, counting each node's runs. */
function slowFirst(ms: number, durable = false) {
  const runs = { slow: 0, two: 0, three: 0, aborted: 0 };
  const step = (name: 'two' | 'three') => (s: S) => {
    runs[name] += 1;
    return { n: s.n + 1, steps: [...(s.steps ?? []), name] };
  };
  const workflow = new Workflow({
    name: 'slow-first',
    state: State,
    durable,
    graph: (state) =>
      new StateGraph(state)
        .addNode('slow', async (s: S, config: { signal?: AbortSignal }) => {
          runs.slow += 1;
          await new Promise<void>((resolve) => {
            const timer = setTimeout(resolve, ms);
            config.signal?.addEventListener('abort', () => {
              runs.aborted += 1;
              clearTimeout(timer);
              resolve();
            });
          });
          return { n: s.n + 1, steps: [...(s.steps ?? []), 'slow'] };
        })
        .addNode('two', step('two'))
        .addNode('three', step('three'))
        .addEdge(START, 'slow')
        .addEdge('slow', 'two')
        .addEdge('two', 'three')
        .addEdge('three', END),
  });
  return { workflow, runs };
}

async function startSlow(deck: { stream: (...a: never[]) => AsyncIterable<Event> }, runId: string) {
  const stream = (
    deck.stream as (n: string, i: unknown, o: unknown) => AsyncGenerator<Event, void, undefined>
  )('slow-first', { n: 0 }, { runId, sessionId: `thread-${runId}` });
  const first = await stream.next();
  expect(first.value?.kind).toBe('run.started');
  return stream;
}

describe('pausing a workflow at a node boundary', () => {
  it('stops after the running node completes and resumes from the checkpoint', async () => {
    for (const durable of [false, true]) {
      const { workflow, runs } = slowFirst(150, durable);
      const { deck, eventStore } = await openTestDeck({ workflows: [workflow] });
      const runId = `wf-pause-${durable}`;
      const stream = await startSlow(deck as never, runId);
      const consumed = collect({ [Symbol.asyncIterator]: () => stream });
      await vi.waitFor(() => expect(runs.slow).toBe(1));
      await deck.pause(runId, { reason: 'maintenance' });
      const events = await consumed;
      expect(kinds(events)).toEqual(['node.updated', 'control.observed', 'run.paused']);
      expect(events[0]?.payload).toMatchObject({ node: 'slow' });
      expect(events.at(-1)?.payload).toEqual({ reason: 'maintenance' });
      expect(await deck.status(runId)).toBe('paused');
      expect(runs.slow).toBe(1);

      const continued = await deck.resume(runId);
      expect(kinds(continued)[0]).toBe('run.resumed');
      expect(kinds(continued).at(-1)).toBe('run.completed');
      expect(runs).toMatchObject({ slow: 1, two: 1, three: 1 }); // each node ran once
      const completed = continued.at(-1);
      expect(completed?.kind === 'run.completed' && completed.payload.output[0]).toMatchObject({
        data: { n: 3, steps: ['slow', 'two', 'three'] },
      });
      const log = await eventStore.read(runId);
      expect(log.map((e) => e.seq)).toEqual(log.map((_, i) => i));
      await deck.close();
    }
  });

  it('deck.run of a workflow paused between nodes resolves to an interrupt with no question', async () => {
    const { workflow, runs } = slowFirst(150);
    const { deck } = await openTestDeck({ workflows: [workflow] });
    const running = deck.run('slow-first', { n: 0 }, { runId: 'wf-run-paused', sessionId: 't-p' });
    await vi.waitFor(() => expect(runs.slow).toBe(1));
    await deck.pause('wf-run-paused', { reason: 'maintenance' });
    // Not a RunCancelledError (an HTTP 500): the same answer POST /workflows/{name} gives.
    expect(await running).toEqual(new InterruptResult(null, 't-p', 'wf-run-paused'));
    expect(await deck.status('wf-run-paused')).toBe('paused');
    await deck.resume('wf-run-paused');
    expect(await deck.status('wf-run-paused')).toBe('completed');
  });

  it('pauses before the first node when asked before it starts', async () => {
    const { workflow, runs } = slowFirst(10);
    const { deck } = await openTestDeck({ workflows: [workflow] });
    const stream = await startSlow(deck as never, 'wf-early');
    await deck.pause('wf-early');
    const events = await collect({ [Symbol.asyncIterator]: () => stream });
    expect(kinds(events)).toEqual(['control.observed', 'run.paused']);
    expect(runs.slow).toBe(0);
    const continued = await deck.resume('wf-early');
    expect(kinds(continued).at(-1)).toBe('run.completed');
    expect(runs).toMatchObject({ slow: 1, two: 1, three: 1 });
  });

  it('cancels a running node through its signal', async () => {
    const { workflow, runs } = slowFirst(10_000);
    const { deck } = await openTestDeck({ workflows: [workflow] });
    const stream = await startSlow(deck as never, 'wf-cancel');
    const consumed = collect({ [Symbol.asyncIterator]: () => stream });
    await vi.waitFor(() => expect(runs.slow).toBe(1));
    const asked = performance.now();
    await deck.cancel('wf-cancel', { reason: 'wrong input' });
    const events = await consumed;
    expect(performance.now() - asked).toBeLessThan(1_000);
    expect(runs.aborted).toBe(1);
    expect(kinds(events).slice(-2)).toEqual(['control.observed', 'run.cancelled']);
    expect(await deck.status('wf-cancel')).toBe('cancelled');
    expect(runs.two).toBe(0);
  });

  it('ends a paused workflow on cancel and frees its thread', async () => {
    const { workflow } = slowFirst(50);
    const { deck, eventStore } = await openTestDeck({ workflows: [workflow] });
    const stream = await startSlow(deck as never, 'wf-pc');
    await deck.pause('wf-pc');
    await collect({ [Symbol.asyncIterator]: () => stream });
    expect(await deck.status('wf-pc')).toBe('paused');
    await deck.cancel('wf-pc');
    expect(await deck.status('wf-pc')).toBe('cancelled');
    expect(await eventStore.claimHolder('thread:slow-first:thread-wf-pc')).toBeNull();
    expect(await deck.resume('wf-pc')).toEqual([]);
  });
});
