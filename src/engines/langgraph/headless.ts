/**
 * The headless runners behind `Workflow.run()` and `Workflow.resume()`: the compiled graph
 * alone, no Deck, no Runtime, no events, no observers, no context (a node made with
 * `withContext` fails with a TypeError). Each Workflow object keeps its threads in its own
 * in-process MemorySaver, so `resume()` continues what `run()` paused in this process.
 */
import { randomUUID } from 'node:crypto';
import { Command, MemorySaver } from '@langchain/langgraph';
import {
  DEFAULT_DURABILITY,
  type WorkflowDefinition,
} from '../../authoring/workflow-definition.js';
import { checkAnswer } from '../../core/answer-schema.js';
import { InvalidInputError } from '../../core/errors.js';
import { InterruptResult, type WorkflowResult } from '../../core/interrupt-result.js';
import type { OpenPause, WorkflowState } from '../../runtime/workflow-engine.js';
import { type CompiledGraph, compileGraph, openPausesOf } from './graph.js';
import { resumeValue } from './nodes.js';

const compiled = new WeakMap<WorkflowDefinition, CompiledGraph>();

export async function runWorkflowHeadless(
  workflow: WorkflowDefinition,
  input: WorkflowState,
  threadId: string = randomUUID(),
): Promise<WorkflowResult> {
  return play(workflow, input, threadId);
}

export async function resumeWorkflowHeadless(
  workflow: WorkflowDefinition,
  threadId: string,
  value: unknown,
): Promise<WorkflowResult> {
  const open = await openPausesOf(graphOf(workflow), threadId);
  if (open.length === 0) {
    throw new InvalidInputError(
      `workflow '${workflow.name}' has no paused thread '${threadId}' in this process; ` +
        'resume the threadId an InterruptResult of this Workflow object returned',
    );
  }
  // The value goes to the first open pause (the one the InterruptResult showed).
  const first = open[0] as OpenPause;
  if (first.answerSchema) checkAnswer(first.answerSchema, value);
  return play(workflow, new Command({ resume: { [first.id]: resumeValue(value) } }), threadId);
}

async function play(
  workflow: WorkflowDefinition,
  input: unknown,
  threadId: string,
): Promise<WorkflowResult> {
  const graph = graphOf(workflow);
  const config = { configurable: { thread_id: threadId } };
  await graph.invoke(input, {
    ...config,
    durability: workflow.durability ?? DEFAULT_DURABILITY,
    ...workflow.runSettings,
  });
  const [pause] = await openPausesOf(graph, threadId);
  if (pause) return new InterruptResult(pause.payload, threadId, null, pause.answerSchema);
  return (await graph.getState(config)).values as WorkflowState;
}

function graphOf(workflow: WorkflowDefinition): CompiledGraph {
  let graph = compiled.get(workflow);
  if (!graph) {
    graph = compileGraph(workflow, new MemorySaver());
    compiled.set(workflow, graph);
  }
  return graph;
}
