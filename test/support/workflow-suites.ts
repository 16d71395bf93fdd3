/**
 * The human-in-the-loop and timer behaviour every checkpointer must give (memory, SQLite,
 * Postgres): interrupt, pending, answer, fan-out, sleepUntil, dueResumes and tick, through
 * the public Deck API. Workflow names carry a random suffix, so suites sharing a database
 * never see each other's threads.
 */
import { randomUUID } from 'node:crypto';
import { END, START, StateGraph } from '@langchain/langgraph';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  ConflictError,
  InterruptResult,
  interrupt,
  NotFoundError,
  sleepUntil,
  Workflow,
  withContext,
} from '../../src/index.js';
import { kinds, openTestDeck } from './decks.js';
import { approval, reminder } from './workflows.js';

class Reviewer {
  constructor(readonly name: string) {}
}

export function describeWorkflowCheckpointing(label: string, checkpoints: () => string): void {
  const suffix = () => randomUUID().slice(0, 8);

  describe(`human in the loop (${label} checkpointer)`, () => {
    it('pauses on interrupt(): run.interrupted, waiting_human, and the thread stays claimed', async () => {
      const name = `approval-${suffix()}`;
      const { deck, eventStore } = await openTestDeck({
        checkpoints: checkpoints(),
        workflows: [approval({ name, durable: true })],
      });
      const result = await deck.run(name, { amount: 120 }, { sessionId: 'order-7' });
      expect(result).toBeInstanceOf(InterruptResult);
      const paused = result as InterruptResult;
      expect(paused).toMatchObject({
        type: 'interrupt',
        payload: { question: 'approve?', amount: 120 },
        threadId: 'order-7',
      });
      const runId = paused.runId as string;
      expect(kinds(await eventStore.read(runId))).toEqual([
        'run.started',
        'node.updated',
        'run.interrupted',
      ]);
      expect(await deck.status(runId)).toBe('waiting_human');
      await expect(deck.run(name, { amount: 5 }, { sessionId: 'order-7' })).rejects.toThrow(
        ConflictError,
      );
    });

    it('lists pending runs across the catalog and answers them', async () => {
      const first = `approval-${suffix()}`;
      const second = `approval-${suffix()}`;
      const { deck, eventStore } = await openTestDeck({
        checkpoints: checkpoints(),
        workflows: [approval({ name: first, durable: true }), approval({ name: second })],
      });
      const a = (await deck.run(first, { amount: 1 }, { sessionId: 'a' })) as InterruptResult;
      const b = (await deck.run(second, { amount: 2 })) as InterruptResult;
      expect(await deck.pending()).toEqual([
        {
          runId: a.runId,
          threadId: 'a',
          payload: { question: 'approve?', amount: 1 },
          invocable: first,
          kind: 'workflow',
          reason: 'interrupt',
          sessionId: 'a',
        },
        {
          runId: b.runId,
          threadId: b.runId,
          payload: { question: 'approve?', amount: 2 },
          invocable: second,
          kind: 'workflow',
          reason: 'interrupt',
          sessionId: null,
        },
      ]);

      const done = await deck.answer(a.runId as string, { approved: true });
      expect(done).toEqual({ amount: 1, approved: true, visits: 1, note: 'amount 1 approved' });
      expect(kinds(await eventStore.read(a.runId as string))).toEqual([
        'run.started',
        'node.updated',
        'run.interrupted',
        'run.resumed',
        'node.updated',
        'node.updated',
        'run.completed',
      ]);
      expect((await deck.pending()).map((p) => p.runId)).toEqual([b.runId]);
      // The claim was freed at completion: the thread takes a new run.
      expect(await eventStore.claimHolder(`thread:${first}:a`)).toBeNull();
      expect(await deck.run(first, { amount: 3 }, { sessionId: 'a' })).toBeInstanceOf(
        InterruptResult,
      );
    });

    it('re-runs the interrupted node from its start, and only that node', async () => {
      const calls: string[] = [];
      const name = `counted-${suffix()}`;
      const State = z.object({ answer: z.string().optional(), before: z.number().default(0) });
      const counted = new Workflow({
        name,
        state: State,
        durable: true,
        graph: (state) =>
          new StateGraph(state)
            .addNode('setup', () => {
              calls.push('setup');
              return {};
            })
            .addNode('ask', () => {
              calls.push('ask');
              return { answer: interrupt<string>('name?') };
            })
            .addEdge(START, 'setup')
            .addEdge('setup', 'ask')
            .addEdge('ask', END),
      });
      const { deck } = await openTestDeck({ checkpoints: checkpoints(), workflows: [counted] });
      const paused = (await deck.run(name, {}, { sessionId: 't' })) as InterruptResult;
      expect(await deck.answer(paused.runId as string, 'Ada')).toMatchObject({ answer: 'Ada' });
      expect(calls).toEqual(['setup', 'ask', 'ask']);
    });

    it('returns the next InterruptResult when the answered run asks again', async () => {
      const name = `twice-${suffix()}`;
      const State = z.object({ first: z.string().optional(), second: z.string().optional() });
      const twice = new Workflow({
        name,
        state: State,
        graph: (state) =>
          new StateGraph(state)
            .addNode('one', () => ({ first: interrupt<string>('first?') }))
            .addNode('two', () => ({ second: interrupt<string>('second?') }))
            .addEdge(START, 'one')
            .addEdge('one', 'two')
            .addEdge('two', END),
      });
      const { deck } = await openTestDeck({ checkpoints: checkpoints(), workflows: [twice] });
      const asked = (await deck.run(name, {})) as InterruptResult;
      const again = await deck.answer(asked.runId as string, 'A');
      expect(again).toBeInstanceOf(InterruptResult);
      expect(again).toMatchObject({ payload: 'second?', runId: asked.runId });
      expect(await deck.pending()).toEqual([
        {
          runId: asked.runId,
          threadId: asked.threadId,
          payload: 'second?',
          invocable: name,
          kind: 'workflow',
          reason: 'interrupt',
          sessionId: null,
        },
      ]);
      expect(await deck.answer(asked.runId as string, 'B')).toEqual({ first: 'A', second: 'B' });
    });

    it('refuses to answer an unknown or already answered run, changing nothing', async () => {
      const name = `approval-${suffix()}`;
      const { deck, eventStore } = await openTestDeck({
        checkpoints: checkpoints(),
        workflows: [approval({ name })],
      });
      await expect(deck.answer('no-such-run', true)).rejects.toThrow(NotFoundError);
      const paused = (await deck.run(name, { amount: 9 })) as InterruptResult;
      const runId = paused.runId as string;
      await deck.answer(runId, { approved: false });
      const before = await eventStore.read(runId);
      await expect(deck.answer(runId, { approved: true })).rejects.toThrow(
        `run '${runId}' is not waiting for an answer (its status is completed); nothing was changed`,
      );
      expect(await eventStore.read(runId)).toEqual(before);
    });

    it('lets only one of two concurrent answers continue the run', async () => {
      const name = `approval-${suffix()}`;
      const { deck, eventStore } = await openTestDeck({
        checkpoints: checkpoints(),
        workflows: [approval({ name })],
      });
      const paused = (await deck.run(name, { amount: 4 })) as InterruptResult;
      const runId = paused.runId as string;
      const results = await Promise.allSettled([
        deck.answer(runId, { approved: true }),
        deck.answer(runId, { approved: false }),
      ]);
      const fulfilled = results.filter((r) => r.status === 'fulfilled');
      const rejected = results.filter((r) => r.status === 'rejected');
      expect(fulfilled).toHaveLength(1);
      expect((rejected[0] as PromiseRejectedResult).reason).toBeInstanceOf(
        // The loser either finds the lock taken or, if it came after, the run completed.
        (rejected[0] as PromiseRejectedResult).reason instanceof ConflictError
          ? ConflictError
          : NotFoundError,
      );
      const events = await eventStore.read(runId);
      expect(kinds(events).filter((k) => k === 'run.resumed')).toHaveLength(1);
      expect(kinds(events).filter((k) => k === 'run.completed')).toHaveLength(1);
    });

    it('records a sibling branch that completed while another interrupted', async () => {
      const name = `fan-out-${suffix()}`;
      const State = z.object({ left: z.string().optional(), right: z.string().optional() });
      const fanOut = new Workflow({
        name,
        state: State,
        graph: (state) =>
          new StateGraph(state)
            .addNode('ask-left', () => ({ left: interrupt<string>('left?') }))
            .addNode('fill-right', () => ({ right: 'done' }))
            .addEdge(START, 'ask-left')
            .addEdge(START, 'fill-right')
            .addEdge('ask-left', END)
            .addEdge('fill-right', END),
      });
      const { deck, eventStore } = await openTestDeck({
        checkpoints: checkpoints(),
        workflows: [fanOut],
      });
      const result = (await deck.run(name, {})) as InterruptResult;
      expect(result).toBeInstanceOf(InterruptResult);
      expect(result.payload).toBe('left?');
      const events = await eventStore.read(result.runId as string);
      expect(events.filter((e) => e.kind === 'node.updated').map((e) => e.payload)).toEqual([
        { node: 'fill-right', delta: { right: 'done' } },
      ]);
      expect(await deck.answer(result.runId as string, 'L')).toEqual({ left: 'L', right: 'done' });
    });

    it("asks a fan-out's questions one at a time, each answer going to its own question", async () => {
      const name = `two-questions-${suffix()}`;
      const State = z.object({ left: z.string().optional(), right: z.string().optional() });
      const both = new Workflow({
        name,
        state: State,
        graph: (state) =>
          new StateGraph(state)
            .addNode('ask-left', () => ({ left: interrupt<string>('left?') }))
            .addNode('ask-right', () => ({ right: interrupt<string>('right?') }))
            .addEdge(START, 'ask-left')
            .addEdge(START, 'ask-right')
            .addEdge('ask-left', END)
            .addEdge('ask-right', END),
      });
      const { deck } = await openTestDeck({ checkpoints: checkpoints(), workflows: [both] });
      // In an order of LangGraph's interrupt ids; each answer goes to the question shown.
      const first = (await deck.run(name, {})) as InterruptResult;
      const [shown, other] = first.payload === 'left?' ? ['left?', 'right?'] : ['right?', 'left?'];
      expect(first.payload).toBe(shown);
      const second = await deck.answer(first.runId as string, `${shown} answered`);
      expect(second).toBeInstanceOf(InterruptResult);
      expect((second as InterruptResult).payload).toBe(other);
      expect((await deck.pending()).map((p) => p.payload)).toEqual([other]);
      expect(await deck.answer(first.runId as string, `${other} answered`)).toEqual({
        left: 'left? answered',
        right: 'right? answered',
      });
    });

    it('passes the context given to answer() to the resumed node, or null when omitted', async () => {
      const name = `review-${suffix()}`;
      const seen: unknown[] = [];
      const State = z.object({ verdict: z.string().optional() });
      const review = new Workflow({
        name,
        state: State,
        graph: (state) =>
          new StateGraph(state)
            .addNode(
              'decide',
              withContext(Reviewer, (_s: z.infer<typeof State>, ctx) => {
                const verdict = interrupt<string>('verdict?');
                seen.push(ctx.data);
                return { verdict: `${verdict} by ${ctx.data?.name ?? 'nobody'}` };
              }),
            )
            .addEdge(START, 'decide')
            .addEdge('decide', END),
      });
      const { deck } = await openTestDeck({
        checkpoints: checkpoints(),
        context: Reviewer,
        workflows: [review],
      });
      const grace = new Reviewer('Grace');
      const first = (await deck.run(name, {}, { context: grace })) as InterruptResult;
      const linus = new Reviewer('Linus');
      expect(await deck.answer(first.runId as string, 'ok', { context: linus })).toEqual({
        verdict: 'ok by Linus',
      });
      expect(seen).toEqual([linus]);
      expect(seen[0]).toBe(linus);
      const second = (await deck.run(name, {}, { context: grace })) as InterruptResult;
      expect(await deck.answer(second.runId as string, 'ok')).toEqual({ verdict: 'ok by nobody' });
      expect(seen[1]).toBeNull();
    });
  });

  describe(`timers (${label} checkpointer)`, () => {
    const due = '2026-03-01T09:00:00Z';
    const before = new Date('2026-03-01T08:59:59Z');
    const after = new Date('2026-03-01T09:00:01Z');

    it('sleeps on sleepUntil(), is not pending, and is listed by dueResumes() once due', async () => {
      const name = `reminder-${suffix()}`;
      const { deck, eventStore } = await openTestDeck({
        checkpoints: checkpoints(),
        workflows: [reminder({ name })],
      });
      // `due` is in the past of the real clock: the thread still sleeps until a tick.
      const result = (await deck.run(name, { due }, { sessionId: 'r1' })) as InterruptResult;
      expect(result).toBeInstanceOf(InterruptResult);
      expect(result.payload).toEqual({
        type: 'agentdeck.timer',
        wake_at: '2026-03-01T09:00:00.000Z',
      });
      const events = await eventStore.read(result.runId as string);
      expect(events.at(-1)).toMatchObject({
        kind: 'run.paused',
        payload: { reason: 'sleeping until 2026-03-01T09:00:00.000Z' },
      });
      expect(await deck.status(result.runId as string)).toBe('paused');
      expect(await deck.pending()).toEqual([]);
      await expect(deck.answer(result.runId as string, 'now')).rejects.toThrow(NotFoundError);

      expect(await deck.dueResumes(before)).toEqual([]);
      expect(await deck.dueResumes(after)).toEqual([
        { workflow: name, threadId: 'r1', wakeAt: '2026-03-01T09:00:00.000Z' },
      ]);
      expect(await deck.dueResumes('2026-03-01T10:00:01+01:00')).toHaveLength(1);
    });

    it('tick() resumes a logged run through the Runtime, closing it and freeing the thread', async () => {
      const name = `reminder-${suffix()}`;
      const { deck, eventStore } = await openTestDeck({
        checkpoints: checkpoints(),
        workflows: [reminder({ name })],
      });
      const paused = (await deck.run(name, { due }, { sessionId: 'r2' })) as InterruptResult;
      expect(await deck.tick(before)).toEqual([]);
      const outcomes = await deck.tick(after);
      expect(outcomes).toEqual([
        {
          workflow: name,
          threadId: 'r2',
          runId: paused.runId,
          result: { due, reminded: true },
          error: null,
        },
      ]);
      expect(kinds(await eventStore.read(paused.runId as string))).toEqual([
        'run.started',
        'run.paused',
        'run.resumed',
        'node.updated',
        'node.updated',
        'run.completed',
      ]);
      expect(await eventStore.claimHolder(`thread:${name}:r2`)).toBeNull();
      expect(await deck.dueResumes(after)).toEqual([]);
    });

    it('wakes a timer once when two ticks overlap, and never early', async () => {
      const name = `twice-asleep-${suffix()}`;
      const State = z.object({ due: z.string(), woke: z.number().default(0) });
      const twice = new Workflow({
        name,
        state: State,
        durable: true,
        graph: (state) =>
          new StateGraph(state)
            .addNode('first', (s: z.infer<typeof State>) => {
              sleepUntil(s.due);
              return { woke: s.woke + 1 };
            })
            .addNode('second', () => {
              sleepUntil('2099-01-01T00:00:00Z');
              return {};
            })
            .addEdge(START, 'first')
            .addEdge('first', 'second')
            .addEdge('second', END),
      });
      const { deck, eventStore } = await openTestDeck({
        checkpoints: checkpoints(),
        workflows: [twice],
      });
      const paused = (await deck.run(name, { due }, { sessionId: 'once' })) as InterruptResult;
      const [a, b] = await Promise.all([deck.tick(after), deck.tick(after)]);
      const outcomes = [...(a ?? []), ...(b ?? [])];
      const woken = outcomes.filter((o) => o.error === null);
      expect(woken).toHaveLength(1);
      expect(woken[0]?.result).toEqual(
        new InterruptResult(
          { type: 'agentdeck.timer', wake_at: '2099-01-01T00:00:00.000Z' },
          'once',
          paused.runId,
        ),
      );
      const events = await eventStore.read(paused.runId as string);
      expect(kinds(events).filter((k) => k === 'run.resumed')).toHaveLength(1);
      expect(await deck.status(paused.runId as string)).toBe('paused');
      expect(await deck.dueResumes(after)).toEqual([]);
      expect(await deck.tick(after)).toEqual([]);
    });

    it('does not let an answer wake a timer, nor a tick answer a question', async () => {
      const name = `mixed-${suffix()}`;
      const State = z.object({ asked: z.string().optional(), slept: z.boolean().optional() });
      const mixed = new Workflow({
        name,
        state: State,
        durable: true,
        graph: (state) =>
          new StateGraph(state)
            .addNode('ask', () => ({ asked: interrupt<string>('ok?') }))
            .addNode('nap', () => {
              sleepUntil('2099-01-01T00:00:00Z');
              return { slept: true };
            })
            .addEdge(START, 'ask')
            .addEdge(START, 'nap')
            .addEdge('ask', END)
            .addEdge('nap', END),
      });
      const { deck } = await openTestDeck({ checkpoints: checkpoints(), workflows: [mixed] });
      const paused = (await deck.run(name, {}, { sessionId: 'm' })) as InterruptResult;
      expect(paused.payload).toBe('ok?');
      const next = await deck.answer(paused.runId as string, 'yes');
      expect(next).toBeInstanceOf(InterruptResult);
      expect((next as InterruptResult).payload).toEqual({
        type: 'agentdeck.timer',
        wake_at: '2099-01-01T00:00:00.000Z',
      });
      expect(await deck.status(paused.runId as string)).toBe('paused');
    });

    it('refuses a time without an offset, for sleepUntil() and for now', async () => {
      const name = `reminder-${suffix()}`;
      const { deck, eventStore } = await openTestDeck({
        checkpoints: checkpoints(),
        workflows: [reminder({ name })],
      });
      await expect(deck.dueResumes('2026-03-01T09:00:00')).rejects.toThrow(
        "now must be a Date or an ISO 8601 string with an offset (e.g. '2026-11-21T09:00:00Z' or '2026-11-21T10:00:00+01:00'), got '2026-03-01T09:00:00'",
      );
      await expect(deck.tick('tomorrow')).rejects.toThrow('now must be a Date');
      await expect(
        deck.run(name, { due: '2026-03-01 09:00' }, { sessionId: 'bad' }),
      ).rejects.toThrow('sleepUntil(when) must be a Date or an ISO 8601 string with an offset');
      const [run] = await eventStore.listRuns();
      expect(run?.status).toBe('failed');
    });
  });
}
