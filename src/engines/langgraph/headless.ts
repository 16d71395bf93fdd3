/**
 * The headless runners behind `Workflow.run()` and `Workflow.resume()`: the compiled graph
 * alone, no Deck, no Runtime, no events, no observers, no context (a node made with
 * `withContext` fails with a TypeError). Each Workflow object keeps its threads in its own
 * in-process MemorySaver, so `resume()` continues what `run()` paused in this process.
 */
import { randomUUID } from 'node:crypto';
import { Command, MemorySaver } from '@langchain/langgraph';
import type { WorkflowDefinition } from '../../authoring/workflow.js';
import { InvalidInputError } from '../../core/errors.js';
import { InterruptResult, type WorkflowResult } from '../../core/interrupt-result.js';
import type { WorkflowState } from '../../runtime/workflow-engine.js';
import { type CompiledGraph, compileGraph } from './graph.js';
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
  const graph = graphOf(workflow);
  const config = { configurable: { thread_id: threadId } };
  const state = await graph.getState(config);
  if (!state.tasks.some((task) => task.interrupts.length > 0)) {
    throw new InvalidInputError(
      `workflow '${workflow.name}' has no paused thread '${threadId}' in this process; ` +
        'resume the threadId an InterruptResult of this Workflow object returned',
    );
  }
  return play(workflow, new Command({ resume: resumeValue(value) }), threadId);
}

async function play(
  workflow: WorkflowDefinition,
  input: unknown,
  threadId: string,
): Promise<WorkflowResult> {
  const graph = graphOf(workflow);
  const config = { configurable: { thread_id: threadId } };
  await graph.invoke(input, config);
  const state = await graph.getState(config);
  const pending = state.tasks.flatMap((task) => task.interrupts);
  if (pending[0]) return new InterruptResult(pending[0].value, threadId, null);
  return state.values as WorkflowState;
}

function graphOf(workflow: WorkflowDefinition): CompiledGraph {
  let graph = compiled.get(workflow);
  if (!graph) {
    graph = compileGraph(workflow, new MemorySaver());
    compiled.set(workflow, graph);
  }
  return graph;
}
