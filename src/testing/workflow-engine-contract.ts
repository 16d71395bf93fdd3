/**
 * The contract every `WorkflowEngine` passes (the LangGraph adapter and the scripted fake
 * alike): one vitest suite, run by each engine's own test file with a factory that sets up a
 * few named scenarios. It pins what the runtime relies on: a segment yields node updates and
 * returns how it ended; a question or a timer is an open pause the engine lists (by id, which
 * a resume addresses) until it is answered or woken; a timer is listed by `dueThreads` from
 * its time on and by `nextWakeup`; a pause request stops the segment before a node runs, and
 * `{ continue: true }` runs exactly the nodes left; a deleted thread is forgotten; a failure is
 * thrown; an aborted signal stops the segment within a bounded time; a durable thread lists
 * its checkpoints, and one copied to a new thread goes on from there with a state update,
 * the source thread unchanged (#41).
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { WorkflowDefinition } from '../authoring/workflow-definition.js';
import type { EventDraft } from '../core/events.js';
import { createRunScope } from '../runtime/run-scope.js';
import type { SegmentStart, WorkflowEngine } from '../runtime/workflow-engine.js';
import { drain, ENVELOPE_KINDS, STOP_WITHIN_MS, stopsWithin } from './engine-contract-support.js';

/** What the scenarios say; the contract checks them. */
export const WORKFLOW_CONTRACT = {
  question: { question: 'Approve the contract?' },
  answer: 'approved',
  wakeAt: '2031-02-03T04:05:06.000Z',
  failure: 'the contract node broke',
} as const;

/**
 * The scenarios a factory sets up, each an engine (workflow compiled, checkpointer attached)
 * and a workflow whose segments go so (each node named as given):
 * - `steps`: node `first` writes `{ a: 1 }`, then node `second` writes `{ b: 2 }`;
 * - `question`: node `ask` asks {@link WORKFLOW_CONTRACT}`.question` (`interrupt()`) and
 *   writes the answer to `answer`;
 * - `timer`: a durable workflow whose node `wait` sleeps until `WORKFLOW_CONTRACT.wakeAt`,
 *   then writes `{ woke: true }`;
 * - `hang`: node `wait` does not end until the run's signal aborts;
 * - `fail`: node `boom` throws `new Error(WORKFLOW_CONTRACT.failure)`;
 * - `checkpoints`: a durable workflow, with a checkpoint per step, whose node `first` writes `{ a: 1 }`, then node
 *   `second` writes `{ b: a * 10 }` from the state it is given (#41's forks).
 */
export type WorkflowContractScenario =
  | 'steps'
  | 'question'
  | 'timer'
  | 'hang'
  | 'fail'
  | 'checkpoints';

export interface WorkflowEngineSubject {
  engine: WorkflowEngine;
  workflow: WorkflowDefinition;
  /** Dispose of what the scenario started. @default `engine.close()` */
  dispose?(): Promise<void> | void;
}

export interface WorkflowEngineContractFactory {
  create(
    scenario: WorkflowContractScenario,
  ): Promise<WorkflowEngineSubject> | WorkflowEngineSubject;
}

/**
 * Register the workflow engine contract suite for one engine.
 *
 * @example
 * ```ts
 * describeWorkflowEngineContract('scripted', { create: (scenario) => scriptedSubject(scenario) });
 * ```
 */
export function describeWorkflowEngineContract(
  name: string,
  factory: WorkflowEngineContractFactory,
): void {
  describe(`WorkflowEngine contract: ${name}`, () => {
    const subjects: WorkflowEngineSubject[] = [];
    afterEach(async () => {
      for (const subject of subjects.splice(0)) {
        await (subject.dispose ? subject.dispose() : subject.engine.close());
      }
    });
    const open = async (scenario: WorkflowContractScenario) => {
      const subject = await factory.create(scenario);
      subjects.push(subject);
      return { ...subject, threadId: `contract-${crypto.randomUUID()}` };
    };
    const nodesOf = (drafts: readonly EventDraft[]) =>
      drafts.flatMap((d) => (d.kind === 'node.updated' ? [d.payload.node] : []));

    it('plays a segment to completion: node updates in order, then the final state', async () => {
      const { engine, workflow, threadId } = await open('steps');
      engine.compile(workflow); // idempotent
      const segment = await drain(engine.playSegment(request(workflow, threadId, { input: {} })));
      expect(segment.error).toBeUndefined();
      expect(nodesOf(segment.drafts)).toEqual(['first', 'second']);
      expect(segment.drafts.filter((d) => ENVELOPE_KINDS.has(d.kind))).toEqual([]);
      expect(segment.end).toEqual({
        type: 'completed',
        state: expect.objectContaining({ a: 1, b: 2 }),
      });
      expect(await engine.openPauses(workflow, threadId)).toEqual([]);
    });

    it('stops before a node when a pause is requested; { continue: true } runs only the nodes left', async () => {
      const { engine, workflow, threadId } = await open('steps');
      let asked = 0;
      const paused = await drain(
        engine.playSegment(request(workflow, threadId, { input: {} }, () => ++asked >= 2)),
      );
      expect(paused.error).toBeDefined();
      expect(nodesOf(paused.drafts)).toEqual(['first']);
      const continued = await drain(
        engine.playSegment(request(workflow, threadId, { continue: true })),
      );
      expect(continued.error).toBeUndefined();
      expect(nodesOf(continued.drafts)).toEqual(['second']);
      expect(continued.end).toEqual({
        type: 'completed',
        state: expect.objectContaining({ a: 1, b: 2 }),
      });
    });

    it('ends interrupted on a question, lists it as an open pause, and completes once it is answered', async () => {
      const { engine, workflow, threadId } = await open('question');
      const asked = await drain(engine.playSegment(request(workflow, threadId, { input: {} })));
      expect(asked.error).toBeUndefined();
      expect(asked.end).toMatchObject({ type: 'interrupted', payload: WORKFLOW_CONTRACT.question });
      const pauses = await engine.openPauses(workflow, threadId);
      expect(pauses).toEqual([
        { id: expect.any(String), payload: WORKFLOW_CONTRACT.question, wakeAt: null },
      ]);
      expectKnownPauses(asked.end, pauses);
      const id = pauses[0]?.id as string;
      expect(id).not.toBe('');
      const answered = await drain(
        engine.playSegment(
          request(workflow, threadId, { resume: { [id]: WORKFLOW_CONTRACT.answer } }),
        ),
      );
      expect(answered.error).toBeUndefined();
      expect(answered.end).toEqual({
        type: 'completed',
        state: expect.objectContaining({ answer: WORKFLOW_CONTRACT.answer }),
      });
      expect(await engine.openPauses(workflow, threadId)).toEqual([]);
    });

    it('ends sleeping on a timer, due from its time on (dueThreads, nextWakeup), and completes once woken', async () => {
      const { engine, workflow, threadId } = await open('timer');
      const { wakeAt } = WORKFLOW_CONTRACT;
      const slept = await drain(engine.playSegment(request(workflow, threadId, { input: {} })));
      expect(slept.error).toBeUndefined();
      expect(slept.end).toMatchObject({ type: 'sleeping', wakeAt });
      const pauses = await engine.openPauses(workflow, threadId);
      expect(pauses).toEqual([{ id: expect.any(String), payload: expect.anything(), wakeAt }]);
      expectKnownPauses(slept.end, pauses);
      const mine = (due: { threadId: string }[]) => due.filter((d) => d.threadId === threadId);
      expect(mine(await engine.dueThreads(new Date(Date.parse(wakeAt) - 1)))).toEqual([]);
      expect(mine(await engine.dueThreads(new Date(wakeAt)))).toEqual([
        { workflow: workflow.name, threadId, wakeAt },
      ]);
      expect(await engine.nextWakeup()).toBe(wakeAt);

      const id = pauses[0]?.id as string;
      const woken = await drain(
        engine.playSegment(request(workflow, threadId, { resume: { [id]: true } })),
      );
      expect(woken.error).toBeUndefined();
      expect(woken.end).toEqual({
        type: 'completed',
        state: expect.objectContaining({ woke: true }),
      });
      expect(mine(await engine.dueThreads(new Date(8.64e15)))).toEqual([]);
      expect(await engine.nextWakeup()).toBeNull();
    });

    it('forgets a deleted thread: no open pause, no timer, and a new run starts afresh', async () => {
      const { engine, workflow, threadId } = await open('timer');
      await drain(engine.playSegment(request(workflow, threadId, { input: {} })));
      await engine.deleteThread(workflow, `never-${threadId}`); // unknown: nothing happens
      expect(await engine.openPauses(workflow, threadId)).toHaveLength(1);
      await engine.deleteThread(workflow, threadId);
      expect(await engine.openPauses(workflow, threadId)).toEqual([]);
      expect(await engine.dueThreads(new Date(8.64e15))).toEqual([]);
      expect(await engine.nextWakeup()).toBeNull();
      const again = await drain(engine.playSegment(request(workflow, threadId, { input: {} })));
      expect(again.end).toMatchObject({ type: 'sleeping', wakeAt: WORKFLOW_CONTRACT.wakeAt });
    });

    it('throws a node failure, reporting no ending', async () => {
      const { engine, workflow, threadId } = await open('fail');
      const failed = await drain(engine.playSegment(request(workflow, threadId, { input: {} })));
      expect(String((failed.error as Error | undefined)?.message)).toContain(
        WORKFLOW_CONTRACT.failure,
      );
      expect(failed.end).toBeUndefined();
    });

    it("lists a durable thread's checkpoints, newest first, each with its state and next nodes", async () => {
      const { engine, workflow, threadId } = await open('checkpoints');
      await drain(engine.playSegment(request(workflow, threadId, { input: { a: 0 } })));
      const listed = (await engine.checkpoints?.(workflow, threadId)) ?? [];
      expect(listed.map((c) => [c.writtenBy, c.next])).toEqual([
        [['second'], []],
        [['first'], ['second']],
        [[], ['first']],
      ]);
      expect(listed.map((c) => c.values)).toEqual([
        expect.objectContaining({ a: 1, b: 10 }),
        expect.objectContaining({ a: 1 }),
        expect.objectContaining({ a: 0 }),
      ]);
      expect(listed.map((c) => c.step)).toEqual([2, 1, 0]);
      expect(new Set(listed.map((c) => c.id)).size).toBe(3);
      expect(await engine.checkpoints?.(workflow, `never-${threadId}`)).toEqual([]);
    });

    it('copies a checkpoint to a new thread, which goes on from it with an update; the source is unchanged', async () => {
      const { engine, workflow, threadId } = await open('checkpoints');
      await drain(engine.playSegment(request(workflow, threadId, { input: { a: 0 } })));
      const before = (await engine.checkpoints?.(workflow, threadId)) ?? [];
      const middle = before[1];
      const copy = `${threadId}-copy`;
      const copied = await engine.copyCheckpoint?.(workflow, threadId, middle?.id ?? '', copy);
      expect(copied).toMatchObject({ id: middle?.id, next: ['second'] });
      const played = await drain(
        engine.playSegment(request(workflow, copy, { continue: true, update: { a: 5 } })),
      );
      expect(played.error).toBeUndefined();
      expect(nodesOf(played.drafts)).toEqual(['second']);
      expect(played.end).toEqual({
        type: 'completed',
        state: expect.objectContaining({ a: 5, b: 50 }),
      });
      expect(await engine.checkpoints?.(workflow, threadId)).toEqual(before);
      await expect(
        engine.copyCheckpoint?.(workflow, threadId, middle?.id ?? '', copy),
      ).rejects.toMatchObject({ code: 'conflict' });
      await expect(
        engine.copyCheckpoint?.(workflow, threadId, 'no-such-checkpoint', `${copy}-2`),
      ).rejects.toMatchObject({ code: 'not_found' });
    });

    it(`stops within ${STOP_WITHIN_MS} ms once its signal aborts`, async () => {
      const { engine, workflow, threadId } = await open('hang');
      const controller = new AbortController();
      const running = drain(
        engine.playSegment(
          request(workflow, threadId, { input: {} }, () => false, controller.signal),
        ),
      );
      const { stopped, elapsedMs } = await stopsWithin(running, controller);
      expect(stopped, `the segment was still going ${elapsedMs} ms after the abort`).toBe(true);
      expect((await running).end).toBeUndefined();
    });
  });
}

function request(
  workflow: WorkflowDefinition,
  threadId: string,
  start: SegmentStart,
  pauseRequested: () => boolean = () => false,
  signal: AbortSignal = new AbortController().signal,
) {
  const scope = createRunScope({
    data: null,
    invocable: workflow.name,
    runId: `contract-${crypto.randomUUID()}`,
    sessionId: threadId,
    signal,
    pauseRequested,
  });
  return { workflow, threadId, start, scope };
}

/** A segment end that says which pauses are open (optional) says what `openPauses` reads. */
function expectKnownPauses(end: unknown, pauses: readonly unknown[]): void {
  const known = (end as { open?: readonly unknown[] } | undefined)?.open;
  if (known !== undefined) expect(known).toEqual(pauses);
}
