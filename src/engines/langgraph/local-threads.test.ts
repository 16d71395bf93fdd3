/**
 * Threads of non-durable workflows on the real LangGraph engine, played by the Runtime: a
 * thread named by its run id is dropped when the run ends (completed, failed, cancelled), so
 * the engine's memory does not grow with the runs; one still waiting keeps its checkpoints
 * and answers; one the caller named keeps its state for a later call on the same id.
 */
import { END, MemorySaver, START, StateGraph } from '@langchain/langgraph';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { play } from '../../../test/support/runtimes.js';
import { threeSteps } from '../../../test/support/workflows.js';
import { Agent } from '../../authoring/agent.js';
import { Workflow } from '../../authoring/workflow.js';
import type { WorkflowDefinition } from '../../authoring/workflow-definition.js';
import { InterruptResult } from '../../core/interrupt-result.js';
import { Runtime } from '../../runtime/runtime.js';
import { MemoryEventStore } from '../../stores/memory/index.js';
import { ScriptedAgentEngine } from '../../testing/scripted-agent-engine.js';
import { LangGraphEngine } from './engine.js';
import { interrupt } from './nodes.js';

const Counter = z.object({ n: z.number(), fail: z.boolean().optional() });
const counter = new Workflow({
  name: 'counter',
  state: Counter,
  graph: (state: typeof Counter) =>
    new StateGraph(state)
      .addNode('one', (s: z.infer<typeof Counter>) => ({ n: s.n + 1 }))
      .addNode('two', (s: z.infer<typeof Counter>) => {
        if (s.fail) throw new Error('node two failed');
        return { n: s.n + 1 };
      })
      .addEdge(START, 'one')
      .addEdge('one', 'two')
      .addEdge('two', END),
});

const Approval = z.object({ approved: z.boolean().optional() });
const approval = new Workflow({
  name: 'approval',
  state: Approval,
  graph: (state: typeof Approval) =>
    new StateGraph(state)
      .addNode('ask', () => ({ approved: interrupt<boolean>({ question: 'approve?' }) }))
      .addEdge(START, 'ask')
      .addEdge('ask', END),
});

const steps = threeSteps();

const open: Runtime[] = [];
afterEach(async () => {
  while (open.length > 0) await open.pop()?.close();
});

function setUp(maxLocalThreads?: number) {
  const engine = new LangGraphEngine(maxLocalThreads === undefined ? {} : { maxLocalThreads });
  for (const workflow of [counter, approval, steps]) engine.compile(workflow);
  engine.attach(new MemorySaver());
  const store = new MemoryEventStore();
  const runtime = new Runtime({
    store,
    agentEngine: new ScriptedAgentEngine([]),
    workflowEngine: engine,
    sessionFor: () => {
      throw new Error('no agent sessions here');
    },
    catalog: {
      agents: new Map([['scripted', new Agent({ name: 'scripted' })]]),
      workflows: new Map<string, WorkflowDefinition>([
        [counter.name, counter],
        [approval.name, approval],
        [steps.name, steps],
      ]),
      schedules: new Map(),
    },
    settings: {
      staleRunAfterSeconds: 3600,
      retentionDays: null,
      recordModelCalls: 'on',
      heartbeatSeconds: 10,
      controlPollMs: 50,
      queueConcurrency: 0,
      queuePollMs: 500,
    },
  });
  open.push(runtime);
  return { engine, runtime, store };
}

describe('threads of non-durable workflows', () => {
  it('are dropped when their runs complete or fail, so none is kept after many runs', async () => {
    const { engine, runtime, store } = setUp();
    for (let i = 0; i < 50; i++) {
      const { outcome } = await play(runtime.streamWorkflow(counter, { n: i }));
      expect(outcome.result).toEqual({ n: i + 2 });
    }
    const failed = await play(
      runtime.streamWorkflow(counter, { n: 0, fail: true }, { runId: 'f' }),
    );
    expect(failed.outcome.error).toBeInstanceOf(Error);
    expect(await store.getRun('f')).toMatchObject({ status: 'failed' });
    expect(engine.localThreadCount()).toBe(0);
  });

  it('keep a waiting thread until it is answered, then drop it', async () => {
    const { engine, runtime } = setUp();
    await play(runtime.streamWorkflow(counter, { n: 1 }));
    const asked = await play(runtime.streamWorkflow(approval, {}, { runId: 'w-1' }));
    expect(asked.outcome.result).toEqual(
      new InterruptResult({ question: 'approve?' }, 'w-1', 'w-1'),
    );
    expect(engine.localThreadCount()).toBe(1);
    expect(await engine.openPauses(approval, 'w-1')).toHaveLength(1);
    const answered = await play(runtime.resumeWorkflow(approval, 'w-1', { answer: true }));
    expect(answered.outcome.result).toEqual({ approved: true });
    expect(engine.localThreadCount()).toBe(0);
  });

  it('drop a waiting thread when its run is cancelled at rest', async () => {
    const { engine, runtime, store } = setUp();
    await play(runtime.streamWorkflow(approval, {}, { runId: 'w-2' }));
    expect(engine.localThreadCount()).toBe(1);
    await runtime.requestControl('w-2', 'cancel', 'not needed');
    expect(await store.getRun('w-2')).toMatchObject({ status: 'cancelled' });
    expect(engine.localThreadCount()).toBe(0);
  });

  it('keep a thread the caller named: a later run on it continues its state', async () => {
    const { engine, runtime } = setUp();
    await play(runtime.streamWorkflow(steps, { n: 1 }, { sessionId: 'mine' }));
    expect(engine.localThreadCount()).toBe(1);
    const { outcome } = await play(runtime.streamWorkflow(steps, { n: 10 }, { sessionId: 'mine' }));
    expect(outcome.result).toEqual({
      n: 13,
      steps: ['one', 'two', 'three', 'one', 'two', 'three'],
    });
    expect(engine.localThreadCount()).toBe(1);
  });

  it('keep at most maxLocalThreads named threads, dropping the ones played longest ago, never a waiting one', async () => {
    const { engine, runtime } = setUp(3);
    // The oldest named thread waits for an answer: it is never dropped.
    await play(runtime.streamWorkflow(approval, {}, { sessionId: 'asks', runId: 'w-3' }));
    for (let i = 0; i < 6; i++) {
      await play(runtime.streamWorkflow(steps, { n: i }, { sessionId: `named-${i}` }));
    }
    // Three kept: the waiting one (which counts, but may not be dropped) and the two newest.
    expect(engine.localThreadCount()).toBe(3);
    expect(await engine.openPauses(approval, 'asks')).toHaveLength(1);
    // The newest named thread still carries its state.
    const { outcome } = await play(
      runtime.streamWorkflow(steps, { n: 0 }, { sessionId: 'named-5' }),
    );
    expect((outcome.result as { steps: string[] }).steps).toHaveLength(6);
    // The oldest plain one is gone: a run on its name starts afresh.
    const fresh = await play(runtime.streamWorkflow(steps, { n: 0 }, { sessionId: 'named-0' }));
    expect((fresh.outcome.result as { steps: string[] }).steps).toHaveLength(3);
    const answered = await play(runtime.resumeWorkflow(approval, 'w-3', { answer: true }));
    expect(answered.outcome.result).toEqual({ approved: true });
  });
});
