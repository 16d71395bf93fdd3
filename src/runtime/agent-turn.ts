/**
 * Plays one agent turn and yields its events live. Order of every event: stored, tapped,
 * yielded. Exactly one terminal event ends the run: `run.completed`; `run.failed` for any
 * error (engine, tool plumbing, session, store); `run.cancelled` when the consumer stops
 * reading, the deck closes, or the claim is lost. The engine and any running tool are
 * aborted before the claim is freed, and late history writes are fenced off, so the next
 * turn on the session starts clean.
 */
import type { AgentDefinition } from '../authoring/agent-definition.js';
import type { ContentBlock } from '../core/blocks.js';
import { isBackendOutage } from '../core/errors.js';
import type { RunTrigger, UsageReported } from '../core/event-kinds.js';
import type { Event, EventDraft } from '../core/events.js';
import type { ModelCallRecording } from '../core/model-calls.js';
import type { ConversationSession } from '../core/sessions.js';
import type { ControlRequest } from '../core/store.js';
import type { AgentEngine, ApprovalAnswer, HistoryMessage, TurnControl } from './agent-engine.js';
import { sessionClaimKey } from './claims.js';
import { recordEnding, recordPause } from './control/events.js';
import { RunEndedError, type RunIdentity } from './recorder.js';
import { type LeaseDeps, logFailure, RunLease } from './run-lease.js';
import { createRunScope, type WorkflowInvoker } from './run-scope.js';
import { fencedSession } from './session-fence.js';
import { sumUsage } from './turn-result.js';

export interface AgentTurnDeps extends LeaseDeps {
  engine: AgentEngine;
  sessionFor(sessionId: string): ConversationSession;
  /** What each turn records of its model requests (`SERVICE_RECORD_MODEL_CALLS`). @default 'off' */
  recordModelCalls?: ModelCallRecording;
}

export interface AgentTurnRequest {
  agent: AgentDefinition;
  input: ContentBlock[];
  identity: RunIdentity;
  context: unknown;
  /** Runs a workflow listed as a tool, as a child run of this turn. */
  runWorkflow: WorkflowInvoker;
  /**
   * Continue the paused run from what its engine saved, instead of starting from `input`;
   * with `answer`, a run waiting for a person's approval of a tool call.
   */
  continuation?: {
    saved: string;
    resumeRequestId: string | null;
    handled: readonly string[];
    answer?: ApprovalAnswer;
  };
  /** Whether a consumer reads the turn live (see `TurnRequest.live`). @default true */
  live?: boolean;
  /** The schedule fire that started the turn, recorded on `run.started`. */
  trigger?: RunTrigger;
  /** The caller's earlier messages (see `TurnRequest.history`). */
  history?: readonly HistoryMessage[];
  /** Added to the agent's instructions for this turn (see `TurnRequest.instructions`). */
  instructions?: string;
  /** A queued turn played again after its worker died: recorded on `run.resumed`, which begins it. */
  retry?: { attempt: number; reason: string };
}

/** How the turn ended, for callers that want the original exception (not just its name). */
export interface TurnOutcome {
  error?: unknown;
  /**
   * The turn stopped and keeps its claim: at a safe point for a pause (`run.paused`), or
   * for a person's approval of a tool call (`run.interrupted`, then `waiting` is set too).
   */
  paused?: boolean;
  waiting?: boolean;
}

const CONSUMER_STOPPED = 'the consumer stopped reading the stream';

export async function* playAgentTurn(
  deps: AgentTurnDeps,
  request: AgentTurnRequest,
): AsyncGenerator<Event, TurnOutcome, undefined> {
  const { identity, agent, continuation } = request;
  const { runId } = identity;
  const claimKey = identity.sessionId === null ? null : sessionClaimKey(identity.sessionId);
  const answer = continuation?.answer;
  const start: EventDraft = continuation
    ? {
        kind: 'run.resumed',
        payload: {
          requestId: continuation.resumeRequestId,
          ...(answer
            ? { answer: { approved: answer.approved, reason: answer.reason ?? null } }
            : {}),
          ...(answer?.answerId ? { answerId: answer.answerId } : {}),
        },
      }
    : request.retry
      ? { kind: 'run.resumed', payload: { requestId: null, retry: request.retry } }
      : {
          kind: 'run.started',
          payload: { invocableType: 'agent', input: request.input, ...request.trigger },
        };
  const lease = await RunLease.acquire(
    deps,
    identity,
    claimKey,
    continuation?.handled ?? [],
    start,
    // A continued turn looks at once: a cancel may have come while it was at rest, or while
    // it was stopping (found still running, nobody acted on it).
    continuation !== undefined,
  );
  const { recorder, controller } = lease;
  // The pause the engine stopped for (it may be withdrawn by a resume while it stops).
  let pauseSeen: ControlRequest | null = null;
  let suspended = false;
  const control: TurnControl = {
    pauseRequested: () => {
      pauseSeen = lease.pauseRequest ?? pauseSeen;
      return lease.pauseRequest !== null;
    },
    suspend: (saved) => {
      suspended = true;
      return deps.store.saveContinuation(runId, saved);
    },
  };

  const scope = createRunScope({
    data: request.context ?? null,
    invocable: agent.name,
    runWorkflow: request.runWorkflow,
    runId,
    sessionId: identity.sessionId,
    signal: controller.signal,
    pauseRequested: control.pauseRequested,
  });
  let fence: ReturnType<typeof fencedSession> | null = null;
  let turn: AsyncIterator<EventDraft> | undefined;
  let paused = false;
  const usage: UsageReported[] = [];
  // Whether the turn's first event is in the log: before, there is no run to end.
  let begun = false;
  try {
    try {
      const first = lease.started ? recorder.adopt(lease.started) : await recorder.record(start);
      begun = true;
      yield first;
      // A continued turn's totals include the model calls made before it paused.
      // and its message ids go on from those of the earlier segments (a reply cut short by
      // the pause keeps its id, never reused).
      // So do its model call ids, and the values its earlier model calls stored are not
      // stored again (read only here: a fresh turn pays nothing for it).
      const messageIds = new Set<string>();
      const modelCallsBefore = { calls: 0, values: new Set<string>() };
      if (continuation) {
        for (const event of await deps.store.read(runId)) {
          if (event.kind === 'usage.reported') usage.push(event.payload);
          if (event.kind === 'text.delta' || event.kind === 'message.completed') {
            messageIds.add(event.payload.messageId);
          }
          if (event.kind === 'model.call.started') {
            modelCallsBefore.calls += 1;
            for (const digest of Object.keys(event.payload.values)) {
              modelCallsBefore.values.add(digest);
            }
          }
        }
      }
      const messagesBefore = messageIds.size;
      if (identity.sessionId !== null) fence = fencedSession(deps.sessionFor(identity.sessionId));
      turn = deps.engine
        .playTurn({
          agent,
          input: request.input,
          session: fence?.session ?? null,
          scope,
          continuation: continuation?.saved ?? null,
          ...(answer ? { answer } : {}),
          messagesBefore,
          recordModelCalls: deps.recordModelCalls ?? 'off',
          ...(continuation ? { modelCallsBefore } : {}),
          ...(request.history ? { history: request.history } : {}),
          ...(request.instructions ? { instructions: request.instructions } : {}),
          control,
          live: request.live ?? true,
        })
        [Symbol.asyncIterator]();
      for (;;) {
        const step = await turn.next();
        if (step.done) break;
        const draft = step.value;
        if (draft.kind === 'run.paused' || draft.kind === 'run.interrupted') {
          await lease.confirmNotClosed();
        }
        if (draft.kind === 'run.paused') {
          const pauseEvents = await recordPause(recorder, pauseSeen);
          paused = true;
          await lease.keep();
          for (const event of pauseEvents) yield event;
          return { paused };
        }
        if (draft.kind === 'run.interrupted') {
          // A tool call waits for a person: recorded, and the session stays claimed.
          const event = await recorder.record(draft);
          paused = true;
          await lease.keep();
          yield event;
          return { paused, waiting: true };
        }
        if (draft.kind === 'usage.reported') usage.push(draft.payload);
        if (draft.kind === 'run.completed') {
          if (draft.payload.usage === null) draft.payload.usage = sumUsage(usage);
          // The engine is done (it wrote the turn's history first): free the claim with it.
          yield await lease.end(draft);
          continue;
        }
        yield await recorder.record(draft);
      }
      return {};
    } catch (error) {
      const reason: string | null = lease.cancelReason;
      controller.abort();
      // Its first event could not be written (the store went down): nothing to end, and the
      // caller is told which backend failed (a 503), not handed a run with no events.
      if (!begun && isBackendOutage(error)) throw error;
      if (recorder.ended) {
        // Its terminal event is waiting for the store (PendingEndings): say which backend failed.
        if (isBackendOutage(error)) throw error;
        return error instanceof RunEndedError ? {} : { error };
      }
      for (const event of await recordEnding(
        recorder,
        { reason, request: lease.cancelRequest },
        error,
      )) {
        yield event;
      }
      return reason ? {} : { error };
    }
  } finally {
    // A run that ended has nothing left running (a failure aborted it above): aborting its
    // signal would only cost the turn a stack trace and a round of abort listeners.
    if (!paused && !recorder.ended) lease.cancel(CONSUMER_STOPPED);
    await closeQuietly(turn);
    fence?.close();
    if (begun && !recorder.ended && !paused) {
      await recorder
        .record({ kind: 'run.cancelled', payload: { reason: lease.cancelReason } })
        .catch(logFailure(`record run.cancelled for run '${runId}'`));
    }
    // A run that ended (not paused) has nothing left to continue.
    if ((continuation || suspended) && !paused) {
      await deps.store.dropContinuation(runId).catch(logFailure(`forget run '${runId}' state`));
    }
    await lease.release();
    lease.finish();
  }
}

/** Let the engine wind down (its generator waits, bounded, for the engine to settle). */
async function closeQuietly(turn: AsyncIterator<EventDraft> | undefined): Promise<void> {
  try {
    await turn?.return?.();
  } catch {
    // The turn already failed; its error was recorded.
  }
}
