/**
 * Plays one segment of a workflow run and yields its events live (stored, tapped, then
 * yielded). A segment starts a run (`run.started` with the initial state as one DataBlock)
 * or continues a paused one (`run.resumed`), records `node.updated` and `custom` events as
 * the graph produces them, and ends with exactly one of: `run.completed` (the final state
 * as one DataBlock; the thread's claim is freed), `run.interrupted` (waiting for a
 * person's answer) or `run.paused` (sleeping until a time), both of which keep the claim,
 * `run.failed`, or `run.cancelled`. A run that ends (completed, failed, cancelled) on a thread
 * that ends with it ({@link threadEndsWithRun}) has the thread's checkpoints dropped.
 */

import type { WorkflowDefinition, WorkflowRunSettings } from '../authoring/workflow-definition.js';
import { DataBlock } from '../core/blocks.js';
import { isBackendOutage, RunCancelledError } from '../core/errors.js';
import type { RunTrigger } from '../core/event-kinds.js';
import type { Event, EventDraft, NewEvent } from '../core/events.js';
import { InterruptResult, type WorkflowResult } from '../core/interrupt-result.js';
import type { ControlRequest } from '../core/store.js';
import { sleepingReason, timerPayload } from '../core/wakeups.js';
import { recordEnding, recordPause } from './control/events.js';
import type { OpenPausesMemo } from './open-pauses-memo.js';
import type { RunIdentity } from './recorder.js';
import { type LeaseDeps, logFailure, RunLease } from './run-lease.js';
import { createRunScope } from './run-scope.js';
import {
  type GraphChange,
  leftUntouched,
  type OpenPause,
  type SegmentEnd,
  type SegmentStart,
  type WorkflowEngine,
  type WorkflowState,
} from './workflow-engine.js';

export interface WorkflowRunDeps extends LeaseDeps {
  engine: WorkflowEngine;
  /** Where a paused run's open pauses are kept for its resume in this process. */
  openPauses?: OpenPausesMemo;
}

export interface WorkflowSegmentRequest {
  workflow: WorkflowDefinition;
  identity: RunIdentity;
  threadId: string;
  start: SegmentStart;
  context: unknown;
  /** The agent run that called this workflow as a tool; recorded on `run.started`. */
  parentRunId?: string;
  /** The schedule fire that started the run, recorded on `run.started`. */
  trigger?: RunTrigger;
  /** The resume request this segment continues, recorded on `run.resumed`. */
  resumeRequestId?: string | null;
  /** Control requests addressed before this segment (see `RunControl`). */
  handled?: readonly string[];
  /** This run's overrides of the workflow's LangGraph run settings. */
  settings?: WorkflowRunSettings;
  /**
   * The pause this segment continues (see {@link reopenedPause}): recorded again when a
   * backend outage stops the segment before it ends, so the run waits as it did.
   */
  reopen?: EventDraft | undefined;
  /** The answer's id (its idempotency key, or its value's digest), recorded on `run.resumed`. */
  answerId?: string | undefined;
  /** A queued run's retry after its worker died: recorded on `run.resumed` (it begins the segment). */
  retry?: { attempt: number; reason: string };
  /**
   * The thread already ended with this state (an answer took effect though its segment was
   * refused; see workflow-resume.ts): the segment records its completion without the engine.
   */
  ended?: WorkflowState;
  /**
   * A fork's run (#41): it continues its thread's copied checkpoint, yet begins the run with
   * `run.started` recording this state as its input.
   */
  begins?: WorkflowState;
  /** The thread's graph changed since it paused (#42): recorded on `run.resumed`. */
  graphChange?: GraphChange | null;
}

/** How the segment ended, for callers that want the result or the original exception. */
export interface WorkflowOutcome {
  result?: WorkflowResult;
  error?: unknown;
  /** Why the run was cancelled (it recorded `run.cancelled`), when it was. */
  cancelled?: string;
  /** The run stopped between nodes for a pause request (it recorded `run.paused`). */
  paused?: boolean;
}

/**
 * The claim key of a workflow thread: one run at a time per thread of a workflow. The name
 * is URI-encoded, so the first `:` after it always ends it (workflow `a:b`, thread `c` and
 * workflow `a`, thread `b:c` are two keys).
 */
export function threadClaimKey(workflow: string, threadId: string): string {
  return `thread:${encodeURIComponent(workflow)}:${threadId}`;
}

/** What continues a paused run: a person's answer, or the clock (`tick(now)`). */
export type WorkflowResume = { answer: unknown } | { wake: Date };

/** What `sleepUntil()` returns into a woken node. */
const WAKE_VALUE = true;

/**
 * The resume values for the thread's open pauses: an answer goes to the first open question
 * only (a fan-out's other questions are asked next), a wake-up to every timer due by then.
 * `null` when nothing fits: no open question, or no timer due.
 */
export function addressResume(
  open: readonly OpenPause[],
  resume: WorkflowResume,
): Record<string, unknown> | null {
  if ('answer' in resume) {
    const question = open.find((p) => p.wakeAt === null);
    return question ? { [question.id]: resume.answer } : null;
  }
  const due = open.filter(
    (p) => p.wakeAt !== null && Date.parse(p.wakeAt) <= resume.wake.getTime(),
  );
  return due.length > 0 ? Object.fromEntries(due.map((p) => [p.id, WAKE_VALUE])) : null;
}

/**
 * The event that puts a run back where a resume found it: the question an answer went to
 * (`run.interrupted`), or the sleep a wake-up ended (`run.paused`).
 */
export function reopenedPause(
  open: readonly OpenPause[],
  resume: WorkflowResume,
  threadId: string,
): EventDraft | undefined {
  if ('answer' in resume) {
    const question = open.find((p) => p.wakeAt === null);
    return question && { kind: 'run.interrupted', payload: askedPayload(question, threadId) };
  }
  const wakeAt = open
    .map((p) => p.wakeAt)
    .filter((at): at is string => at !== null)
    .sort()[0];
  return wakeAt === undefined
    ? undefined
    : { kind: 'run.paused', payload: { reason: sleepingReason(wakeAt) } };
}

/** What a caller gets for a segment's end: the final state, or an InterruptResult (a timer's payload is its SleepRequest). */
export function segmentResult(
  end: SegmentEnd,
  threadId: string,
  runId: string | null,
): WorkflowResult {
  if (end.type === 'completed') return end.state;
  if (end.type === 'sleeping')
    return new InterruptResult(timerPayload(end.wakeAt), threadId, runId);
  return new InterruptResult(end.payload, threadId, runId, end.answerSchema);
}

/** `run.interrupted`'s payload for a question: what it asks and, if declared, the answer's shape. */
function askedPayload(
  question: { payload: unknown; answerSchema?: Record<string, unknown> },
  threadId: string,
): Extract<EventDraft, { kind: 'run.interrupted' }>['payload'] {
  const shape = question.answerSchema ? { answerSchema: question.answerSchema } : {};
  return { payload: question.payload, threadId, ...shape };
}

/**
 * Whether a run's thread ends with the run: a non-durable workflow's thread named by the run
 * id (no `sessionId`). Nothing can continue it once the run has ended, so its checkpoints are
 * dropped then (and a server running such runs for days keeps flat memory). A thread the
 * caller named keeps its state for a later call with the same id while the deck lives (SPEC:
 * "a later call with the same id resumes it"); a durable thread lives in its checkpointer
 * until retention removes it.
 */
export function threadEndsWithRun(workflow: WorkflowDefinition, sessionId: string | null): boolean {
  return !workflow.durable && sessionId === null;
}

const CONSUMER_STOPPED = 'the consumer stopped reading the stream';

export async function* playWorkflowSegment(
  deps: WorkflowRunDeps,
  request: WorkflowSegmentRequest,
): AsyncGenerator<Event, WorkflowOutcome, undefined> {
  const { identity, workflow, threadId, start } = request;
  const initial = 'input' in start ? start.input : request.begins;
  const first: EventDraft =
    initial !== undefined && !request.retry
      ? {
          kind: 'run.started',
          payload: {
            invocableType: 'workflow',
            input: [new DataBlock(initial)],
            ...(request.parentRunId ? { parentRunId: request.parentRunId } : {}),
            ...request.trigger,
          },
        }
      : {
          kind: 'run.resumed',
          payload: {
            requestId: request.resumeRequestId ?? null,
            ...(request.answerId ? { answerId: request.answerId } : {}),
            ...(request.retry ? { retry: request.retry } : {}),
            ...(request.graphChange ? { graph: request.graphChange } : {}),
          },
        };
  const lease = await RunLease.acquire(
    deps,
    identity,
    threadClaimKey(workflow.name, threadId),
    request.handled ?? [],
    first,
  );
  const { recorder } = lease;
  // The pause request the run stops for at a node boundary, once a node saw it.
  let pausing: ControlRequest | null = null;
  const scope = createRunScope({
    data: request.context ?? null,
    invocable: workflow.name,
    runId: identity.runId,
    sessionId: identity.sessionId,
    signal: lease.signal,
    // Asked by each node before it runs (the engine's safe point).
    pauseRequested: () => {
      pausing ??= lease.pauseRequest;
      return pausing !== null;
    },
  });
  let segment: AsyncGenerator<EventDraft, SegmentEnd, undefined> | undefined;
  let paused = false;
  // Whether the segment's first event is in the log: before, there is no run to end.
  let begun = false;
  try {
    try {
      const firstEvent = lease.started
        ? recorder.adopt(lease.started)
        : await recorder.record(first);
      begun = true;
      yield firstEvent;
      segment = request.ended
        ? alreadyEnded(request.ended)
        : deps.engine.playSegment({
            workflow,
            threadId,
            start,
            scope,
            ...(request.settings ? { settings: request.settings } : {}),
          });
      let step = await segment.next();
      while (!step.done) {
        yield await recorder.record(step.value);
        step = await segment.next();
      }
      const end = step.value;
      if (end.type === 'completed') {
        // The thread is free with the run's completion (one write when the store can).
        const completed = await lease
          .end({
            kind: 'run.completed',
            payload: { output: [new DataBlock(end.state)], usage: null },
          })
          .catch((error: unknown) => {
            // An answer that took effect (the graph wrote its checkpoint) is not refused: its
            // ending waits in PendingEndings and is written once the store is back.
            if (request.reopen && isBackendOutage(error)) return null;
            throw error;
          });
        await lease.release();
        if (completed) yield completed;
        return { result: end.state };
      }
      await lease.confirmNotClosed();
      // The claim is kept with the pause event (one write on Postgres), never before it: a
      // crash between two writes leaves a paused run whose claim has its lease, not a
      // running run whose claim has none.
      const pausedEvent = await lease.pause(
        end.type === 'interrupted'
          ? { kind: 'run.interrupted', payload: askedPayload(end, threadId) }
          : { kind: 'run.paused', payload: { reason: sleepingReason(end.wakeAt) } },
      );
      paused = true;
      if (end.open) deps.openPauses?.remember(identity.runId, pausedEvent.seq, end.open);
      yield pausedEvent;
      return { result: segmentResult(end, threadId, identity.runId) };
    } catch (error) {
      const reason = lease.cancelReason;
      lease.controller.abort();
      // A terminal event waiting for the store (PendingEndings): say which backend failed.
      if (recorder.ended && isBackendOutage(error)) throw error;
      // Its first event could not be written (the store went down): nothing to end, and the
      // caller is told which backend failed (a 503), not handed a run with no events.
      if (!begun && isBackendOutage(error)) throw error;
      if (recorder.ended || paused) return reason ? { cancelled: reason } : { error };
      if (request.reopen && !reason && isBackendOutage(error) && leftUntouched(error)) {
        // Refused for an outage before the graph changed anything (its checkpoint read or its
        // final write failed): the thread still waits where it did, so the run waits again.
        const reopened = await recorder.record(request.reopen).catch((recordError) => {
          // The log is out too: the pause is written as soon as it is back.
          if (!isBackendOutage(recordError) || !deps.endings) throw recordError;
          const draft = { ...identity, ...request.reopen } as NewEvent;
          deps.endings.add(draft, null, (stored) => recorder.adopt(stored));
          return null;
        });
        paused = true;
        await lease.keep();
        if (reopened) yield reopened;
        return { error };
      }
      if (pausing && !reason) {
        const pauseEvents = await recordPause(recorder, pausing);
        paused = true;
        await lease.keep();
        for (const event of pauseEvents) yield event;
        return { paused };
      }
      for (const event of await recordEnding(
        recorder,
        { reason, request: lease.cancelRequest },
        error,
      )) {
        yield event;
      }
      return reason ? { cancelled: reason } : { error };
    }
  } finally {
    // Stop the graph unless it ended on its own (completed, failed, or paused).
    if (!paused && !recorder.ended) lease.cancel(CONSUMER_STOPPED);
    await segment?.return(undefined as never).catch(() => {});
    if (begun && !recorder.ended && !paused) {
      await recorder
        .record({ kind: 'run.cancelled', payload: { reason: lease.cancelReason } })
        .catch(logFailure(`record run.cancelled for run '${identity.runId}'`));
    }
    await lease.release();
    lease.finish();
    if (!paused && threadEndsWithRun(workflow, identity.sessionId)) {
      await deps.engine
        .deleteThread(workflow, threadId)
        .catch(logFailure(`drop the thread of run '${identity.runId}'`));
    }
  }
}

/** The segment of a thread that has already ended with `state`. */
// biome-ignore lint/correctness/useYield: a segment with no events, only its end
async function* alreadyEnded(state: WorkflowState): AsyncGenerator<EventDraft, SegmentEnd> {
  return { type: 'completed', state };
}

/** Play a workflow run to its end and return its result (final state or InterruptResult); a failure throws. */
export async function settle(
  generator: AsyncGenerator<Event, WorkflowOutcome, undefined>,
  /** A step the caller already took. */
  first?: IteratorResult<Event, WorkflowOutcome>,
): Promise<WorkflowResult> {
  let step = first ?? (await generator.next());
  let last: Event | undefined;
  while (!step.done) {
    last = step.value;
    step = await generator.next();
  }
  const outcome = step.value;
  if (outcome.error !== undefined) throw outcome.error;
  if (outcome.paused && last) {
    // Stopped between nodes for a pause request: as the HTTP route answers it, an interrupt
    // with no question; `resume()` goes on.
    return new InterruptResult(null, last.sessionId ?? last.runId, last.runId);
  }
  if (outcome.result === undefined) {
    throw new RunCancelledError(
      `the workflow run was cancelled before it finished: ${outcome.cancelled ?? 'its consumer stopped'}`,
    );
  }
  return outcome.result;
}
