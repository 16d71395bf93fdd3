/**
 * One iteration of each kind `bench:workflow` measures, per engine: a 3-node run, an
 * interrupt + answer cycle, and a non-durable run over HTTP. Each takes what its phase opened
 * (workflow-phases.ts) and checks its result, so no engine can skip work; workflow-cases.ts
 * lists the cases built from them.
 */
import { Command } from '@langchain/langgraph';
import type { Mastra } from '@mastra/core';
import { type Deck, InterruptResult } from '../../src/index.js';
import { check, checkApproved, checkThreeSteps } from './workflow-shapes.js';

/** One iteration: run `i` (its own thread). */
export type Iterate = (i: number) => Promise<void>;

export interface Graph {
  invoke(input: unknown, options?: Record<string, unknown>): Promise<unknown>;
}

/**
 * Mastra's instances, opened once for the whole bench: its storage on a LibSQL file for the
 * SQLite phase, on `@mastra/pg` (a schema of the bench's scratch database) for the Postgres
 * phase, and in memory.
 */
export interface MastraEngines {
  libsql: Mastra;
  pg: Mastra;
  /**
   * The 16-at-once rows' own instances and stores, one per group: after concurrent work, later
   * runs of the same Mastra instance stay slower (measured on LibSQL: 0.5 ms to 1.9 ms per
   * run after concurrent runs; 16 at once, runs sharing an instance with concurrent cycles
   * went from about 5 ms to 27-43 ms), which would charge one row for another.
   */
  libsqlConcurrentRuns: Mastra;
  libsqlConcurrentCycles: Mastra;
  pgConcurrentRuns: Mastra;
  pgConcurrentCycles: Mastra;
  memory: Mastra;
}

export interface PhaseResources {
  deck: Deck;
  /** Raw LangGraph on the phase's checkpointer; `Fields`: the state as a `StateSchema`. */
  threeSteps: Graph;
  threeStepsFields: Graph;
  approval: Graph;
  approvalFields: Graph;
  /** Raw LangGraph with no checkpointer at all: LangGraph's own floor. */
  bare: Graph;
  bareFields: Graph;
  /** The deck's HTTP app, and a hand-written Hono route invoking the same graph. */
  deckApp: { request(path: string, init: RequestInit): Promise<Response> | Response };
  honoApp: { request(path: string, init: RequestInit): Promise<Response> | Response };
  mastra: MastraEngines;
  /** A prefix for thread ids, new per phase opening (Postgres keeps its tables across rounds). */
  prefix: string;
}

export type IterateOn = (open: PhaseResources) => Iterate;

/** Both durable modes a row can run raw LangGraph with; the deck's default is `'exit'`. */
export const EXIT = { durability: 'exit' } as const;

const postJson = (body: unknown): RequestInit => ({
  method: 'POST',
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify(body),
});

export const deckRun =
  (workflow: string): IterateOn =>
  ({ deck, prefix }) =>
  async (i) => {
    checkThreeSteps(await deck.run(workflow, { n: 0 }, { sessionId: `${prefix}d${i}` }));
  };

export const rawRun =
  (durability: Record<string, string>, fields = false): IterateOn =>
  (open) =>
  async (i) => {
    const config = { configurable: { thread_id: `${open.prefix}r${i}` }, ...durability };
    const graph = fields ? open.threeStepsFields : open.threeSteps;
    checkThreeSteps(await graph.invoke({ n: 0 }, config));
  };

/** Raw LangGraph with no checkpointer: nothing stored, LangGraph's own floor. */
export const bareRun =
  (fields = false): IterateOn =>
  ({ bare, bareFields }) =>
  async () => {
    checkThreeSteps(await (fields ? bareFields : bare).invoke({ n: 0 }));
  };

export const mastraRun =
  (which: keyof MastraEngines): IterateOn =>
  ({ mastra }) =>
  async () => {
    const run = await mastra[which].getWorkflow('threeSteps').createRun();
    const result = await run.start({ inputData: { n: 0, steps: [] } });
    check(result.status === 'success', `mastra run succeeded, got ${result.status}`);
    checkThreeSteps((result as { result: unknown }).result);
  };

export const rawCycle =
  (durability: Record<string, string>, fields = false): IterateOn =>
  ({ approval: zodState, approvalFields, prefix }) =>
  async (i) => {
    const approval = fields ? approvalFields : zodState;
    const config = { configurable: { thread_id: `${prefix}a${i}` }, ...durability };
    const paused = (await approval.invoke({ amount: i }, config)) as Record<string, unknown>;
    check(Array.isArray(paused.__interrupt__), 'raw graph paused on the interrupt');
    checkApproved(await approval.invoke(new Command({ resume: { approved: true } }), config), i);
  };

export const deckCycle =
  (workflow: string): IterateOn =>
  ({ deck, prefix }) =>
  async (i) => {
    const paused = await deck.run(workflow, { amount: i }, { sessionId: `${prefix}c${i}` });
    check(paused instanceof InterruptResult && paused.runId !== null, 'deck interrupted');
    checkApproved(
      await deck.answer((paused as InterruptResult).runId as string, { approved: true }),
      i,
    );
  };

export const mastraCycle =
  (which: keyof MastraEngines): IterateOn =>
  ({ mastra }) =>
  async (i) => {
    const workflow = mastra[which].getWorkflow('approval');
    const run = await workflow.createRun();
    const paused = await run.start({ inputData: { amount: i } });
    check(paused.status === 'suspended', `mastra suspended, got ${paused.status}`);
    // As an answer arriving later would: a new handle on the stored run, by its id.
    const later = await workflow.createRun({ runId: run.runId });
    const done = await later.resume({ step: 'ask', resumeData: { approved: true } });
    check(done.status === 'success', `mastra resumed, got ${done.status}`);
    checkApproved((done as { result: unknown }).result, i);
  };

export const overHttp =
  (app: 'deckApp' | 'honoApp', path: string): IterateOn =>
  (open) =>
  async () => {
    const response = await open[app].request(path, postJson({ n: 0 }));
    check(response.status === 200, `HTTP 200, got ${response.status}`);
    checkThreeSteps(await response.json());
  };

/**
 * Run iterations `from`.. with `concurrency` in flight until `count` are done or `deadline`
 * (a `performance.now()` time) passes; how many were done.
 */
export async function runBlock(
  iterate: Iterate,
  from: number,
  count: number,
  concurrency: number,
  deadline = Number.POSITIVE_INFINITY,
): Promise<number> {
  let next = from;
  const end = from + count;
  const worker = async () => {
    while (next < end && performance.now() < deadline) await iterate(next++);
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, count) }, worker));
  return next - from;
}
