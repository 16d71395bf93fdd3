/**
 * Playing an experiment (#41, docs/evals.md): each dataset item is an ordinary recorded run
 * of the agent (the variant applied: `withVariant()`) or the workflow, started through the
 * Runtime as every run is, its `run.started` marked `experiment: {id, item}`. When a run
 * stops playing, each scorer grades it and its score is appended to the run as a
 * `score.recorded` event, after its terminal event: stores keep an event after the end
 * (status folds never leave a terminal status, and the evals contract checks it), which
 * keeps a run's own record, up to its end, exactly what it would be outside an experiment.
 * A scorer that throws records no score: a `custom` event `{type: 'score.failed'}` says so,
 * and the experiment goes on. Items play `concurrency` at a time.
 */
import type { AgentDefinition } from '../authoring/agent-definition.js';
import type { Scorer } from '../authoring/scorer.js';
import type { AgentVariant } from '../authoring/variant.js';
import { withVariant } from '../authoring/variant.js';
import type { WorkflowDefinition } from '../authoring/workflow-definition.js';
import type { AgentInput } from '../core/blocks.js';
import { errorMessage } from '../core/errors.js';
import type { DatasetItem, EvalStore, ExperimentRecord } from '../core/evals.js';
import type { EventPayloads } from '../core/event-kinds.js';
import type { Event, NewEvent } from '../core/events.js';
import type { EventStore } from '../core/store.js';
import type { Runtime } from '../runtime/runtime.js';
import { outputOf, runEnding } from './dataset-items.js';
import { SCORE_FAILED } from './experiment-results.js';

/** What an experiment plays, resolved and checked before it starts. */
export interface ExperimentPlan {
  record: ExperimentRecord;
  /** Each item with what its run plays, in dataset order. */
  items: { item: DatasetItem; input: AgentInput | Record<string, unknown> }[];
  agent: AgentDefinition | null;
  workflow: WorkflowDefinition | null;
  variant: AgentVariant | undefined;
  scorers: Scorer[];
  concurrency: number;
}

export interface PlayParts {
  runtime: Runtime;
  store: EventStore;
  evals: EvalStore;
}

/** Play every item of `plan`, `concurrency` at a time; resolves when all have been scored. */
export async function playExperiment(parts: PlayParts, plan: ExperimentPlan): Promise<void> {
  const queue = [...plan.items];
  const worker = async () => {
    for (let next = queue.shift(); next; next = queue.shift()) {
      await playItem(parts, plan, next.item, next.input);
    }
  };
  await Promise.all(Array.from({ length: Math.min(plan.concurrency, queue.length) }, worker));
}

async function playItem(
  parts: PlayParts,
  plan: ExperimentPlan,
  item: DatasetItem,
  input: AgentInput | Record<string, unknown>,
): Promise<void> {
  const { record } = plan;
  const options = {
    ...(record.namespace !== null ? { namespace: record.namespace } : {}),
    trigger: { experiment: { id: record.id, item: item.id } },
  };
  const played = plan.agent
    ? parts.runtime.streamAgent(
        withVariant(plan.agent, plan.variant),
        input as AgentInput,
        options,
        false,
      )
    : parts.runtime.streamWorkflow(plan.workflow as WorkflowDefinition, input, options);
  let runId: string | null = null;
  try {
    for await (const event of played) {
      if (runId === null) {
        runId = event.runId;
        await parts.evals.setExperimentRun(record.id, item.id, runId);
      }
    }
  } catch {
    // A failed run is recorded as such (run.failed); its result says so. One that never
    // started (refused before its first event) has no run, and shows as not started.
  }
  if (runId !== null) await scoreRun(parts, plan, item, runId);
}

async function scoreRun(
  parts: PlayParts,
  plan: ExperimentPlan,
  item: DatasetItem,
  runId: string,
): Promise<void> {
  const events = await parts.store.read(runId);
  const { started, ended } = runEnding(events);
  if (!started) return;
  const output =
    ended?.kind === 'run.completed' ? outputOf(ended.payload.output, plan.workflow !== null) : null;
  const scored: NewEvent[] = [];
  for (const scorer of plan.scorers) {
    try {
      const { value, comment } = await scorer.score({
        input: item.input,
        output,
        reference: item.reference,
        runId,
      });
      scored.push(
        on(started, 'score.recorded', {
          name: scorer.name,
          value,
          passed: scorer.passes(value),
          comment,
          experiment: plan.record.id,
        }),
      );
    } catch (error) {
      const data = {
        type: SCORE_FAILED,
        name: scorer.name,
        experiment: plan.record.id,
        error: `scorer '${scorer.name}' failed: ${errorMessage(error)}`,
      };
      scored.push(on(started, 'custom', { data }));
    }
  }
  if (scored.length) await parts.store.append(scored);
}

/** An event on the run `first` belongs to, with its envelope. */
function on<K extends 'score.recorded' | 'custom'>(
  first: Event,
  kind: K,
  payload: EventPayloads[K],
): NewEvent {
  const { runId, sessionId, namespace, origin } = first;
  return { runId, sessionId, namespace, origin, kind, payload } as NewEvent;
}
