/**
 * `deck.answer()` for every run that waits for a person: a workflow's `interrupt()` (the
 * interrupted node re-runs and `interrupt()` returns the value), and an agent's tool call
 * held for approval (`{ approved: true }` runs it, `{ approved: false, reason }` tells the
 * model it was rejected; the turn goes on in the same run). And how a played agent turn
 * becomes its result, for `deck.run()` and for an answer.
 */

import type { AgentDefinition } from '../authoring/agent-definition.js';
import type { Workflow } from '../authoring/workflow.js';
import { checkAnswer } from '../core/answer-schema.js';
import { InvalidInputError, NotFoundError, RunFailedError } from '../core/errors.js';
import type { Event } from '../core/events.js';
import type { WorkflowResult } from '../core/interrupt-result.js';
import type { RunSummary } from '../core/store.js';
import type { ApprovalAnswer } from '../runtime/agent-engine.js';
import type { TurnOutcome } from '../runtime/agent-turn.js';
import { answeredTurnResult, answerIdOf, replayedAnswer } from '../runtime/answer-replay.js';
import { pausedRun } from '../runtime/paused-run.js';
import { type TurnResult, turnResultFrom } from '../runtime/turn-result.js';
import { settle } from '../runtime/workflow-run.js';
import type { OpenParts } from './open-parts.js';
import { lastLifecycleEvent } from './pending.js';

/** What an answer needs of the deck: its open parts and its catalog. */
export interface AnswerParts {
  parts: Pick<OpenParts, 'runtime' | 'store'>;
  // biome-ignore lint/suspicious/noExplicitAny: agents of any context type
  agents: ReadonlyMap<string, AgentDefinition<any, any>>;
  workflows: ReadonlyMap<string, Workflow>;
}

export async function answerRun(
  { parts, agents, workflows }: AnswerParts,
  runId: string,
  value: unknown,
  context: unknown,
  idempotencyKey?: string,
  namespace?: string,
): Promise<WorkflowResult> {
  const { runtime, store } = parts;
  const found = await store.getRun(runId);
  // Another tenant's run (docs/tenants.md) is unknown: the NotFoundError of a run never recorded.
  const summary = namespace === undefined || found?.namespace === namespace ? found : null;
  const workflow = summary ? workflows.get(summary.origin) : undefined;
  const agent = summary && !workflow ? agents.get(summary.origin) : undefined;
  if (!summary || (!workflow && !agent)) {
    throw new NotFoundError(
      summary
        ? `run '${runId}' is not a run of an agent or workflow in this catalog (it ran '${summary.origin}')`
        : `no run '${runId}' in the event log; pass a run id that pending() listed`,
    );
  }
  const answerId = answerIdOf(value, idempotencyKey);
  // A retry of an answer that took effect (its key seen, the run moved on): its outcome.
  const replay =
    idempotencyKey && summary.status !== 'waiting_human'
      ? await replayedAnswer(store, runId, answerId)
      : null;
  if (replay) return replay;
  // An answer of the wrong shape is refused before anything is recorded (#41).
  const schema = summary.status === 'waiting_human' ? await answerSchemaOf(store, summary) : null;
  if (workflow) {
    if (schema) checkAnswer(schema, value);
    const options = { context, checked: summary, answerId };
    return settle(runtime.resumeWorkflow(workflow, runId, { answer: value }, options));
  }
  // A run that does not wait is said so before its answer is judged.
  await pausedRun(store, runId, 'waiting_human');
  const answer = { ...approvalAnswer(value, runId, schema), answerId };
  const options = { context, resumeRequestId: null, answer };
  const result = await turnOf(runtime.resumeAgent(agent as AgentDefinition, runId, options), runId);
  // The turn goes on: the next call waiting, or its result (a mapping like a final state).
  return answeredTurnResult(result);
}

/** Play an agent turn to its end: its result, or the error that failed it. */
export async function turnOf(
  generator: AsyncGenerator<Event, TurnOutcome, undefined>,
  runId?: string,
): Promise<TurnResult> {
  const events: Event[] = [];
  let step = await generator.next();
  while (!step.done) {
    events.push(step.value);
    step = await generator.next();
  }
  const outcome: TurnOutcome = step.value;
  if (outcome.error !== undefined) throw outcome.error;
  const failed = events.find((e) => e.kind === 'run.failed');
  if (failed?.kind === 'run.failed') {
    throw new RunFailedError(failed.runId, failed.payload.errorType, failed.payload.message);
  }
  return turnResultFrom(events, events[0]?.runId ?? runId ?? '');
}

/** The JSON Schema the run's open question recorded for its answer (#41), or `null`. */
async function answerSchemaOf(store: AnswerParts['parts']['store'], summary: RunSummary) {
  const asked = await lastLifecycleEvent(store, summary.runId, summary.lastSeq);
  return asked?.kind === 'run.interrupted' ? (asked.payload.answerSchema ?? null) : null;
}

/**
 * A person's answer to a tool call held for approval: `{ approved, reason?, call_id? }`,
 * checked. With the tool's reason schema (`tool({ approvalReason })`), a rejection's reason is
 * required and must match it, an approval's may be given and must match it; a reason that is
 * not text is told to the model (and recorded) as its JSON.
 */
export function approvalAnswer(
  value: unknown,
  runId: string,
  reasonSchema: Record<string, unknown> | null = null,
): ApprovalAnswer {
  const answer = value as { approved?: unknown; reason?: unknown; call_id?: unknown } | null;
  const optionalText = (v: unknown) => v === undefined || v === null || typeof v === 'string';
  if (
    typeof answer !== 'object' ||
    answer === null ||
    typeof answer.approved !== 'boolean' ||
    (!reasonSchema && !optionalText(answer.reason)) ||
    !optionalText(answer.call_id)
  ) {
    throw new InvalidInputError(
      `run '${runId}' waits for a person to approve a tool call: answer { "approved": true } or { "approved": false, "reason": ${reasonSchema ? 'a reason matching the answer_schema pending() showed' : '"..."'} } (with the "call_id" pending() showed), not ${JSON.stringify(value) ?? String(value)}`,
    );
  }
  const given = answer.reason !== undefined && answer.reason !== null;
  if (reasonSchema && (given || !answer.approved)) {
    checkAnswer(reasonSchema, given ? answer.reason : undefined, 'answer.reason');
  }
  const text = (v: unknown) => (typeof v === 'string' ? v : null);
  const reason =
    given && typeof answer.reason !== 'string'
      ? JSON.stringify(answer.reason)
      : text(answer.reason);
  return { approved: answer.approved, reason, callId: text(answer.call_id) };
}

/** A run's events without the runtime's return value (not for users). */
export async function* dropReturn(generator: AsyncGenerator<Event, unknown, undefined>) {
  yield* generator;
}
