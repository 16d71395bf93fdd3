/**
 * Plays one agent turn and yields its events live. Order of every event: stored, tapped,
 * yielded. Exactly one terminal event ends the run: `run.completed`; `run.failed` for any
 * error (engine, tool plumbing, session, store); `run.cancelled` when the consumer stops
 * reading, the deck closes, or the claim is lost. The engine and any running tool are
 * aborted before the claim is freed, and late history writes are fenced off, so the next
 * turn on the session starts clean.
 */
import type { AgentDefinition } from '../authoring/agent.js';
import { createRunScope, type WorkflowInvoker } from '../authoring/context.js';
import type { ContentBlock } from '../core/blocks.js';
import { errorMessage, errorTypeName } from '../core/errors.js';
import type { UsageReported } from '../core/event-kinds.js';
import type { Event, EventDraft } from '../core/events.js';
import type { ConversationSession } from '../core/sessions.js';
import type { EventStore } from '../core/store.js';
import type { AgentEngine } from './agent-engine.js';
import { sessionClaimKey } from './claims.js';
import type { LiveTurns } from './live-turns.js';
import { type EventTap, RunEndedError, type RunIdentity } from './recorder.js';
import { logFailure, RunLease } from './run-lease.js';
import { fencedSession } from './session-fence.js';
import { sumUsage } from './turn-result.js';

export interface AgentTurnDeps {
  store: EventStore;
  engine: AgentEngine;
  staleRunAfterSeconds: number;
  heartbeatSeconds?: number;
  sessionFor(sessionId: string): ConversationSession;
  taps: readonly EventTap[];
  liveTurns: LiveTurns;
}

export interface AgentTurnRequest {
  agent: AgentDefinition;
  input: ContentBlock[];
  identity: RunIdentity;
  context: unknown;
  /** Runs a workflow listed as a tool, as a child run of this turn. */
  runWorkflow: WorkflowInvoker;
}

/** How the turn ended, for callers that want the original exception (not just its name). */
export interface TurnOutcome {
  error?: unknown;
}

const CONSUMER_STOPPED = 'the consumer stopped reading the stream';

export async function* playAgentTurn(
  deps: AgentTurnDeps,
  request: AgentTurnRequest,
): AsyncGenerator<Event, TurnOutcome, undefined> {
  const { identity, agent } = request;
  const { runId } = identity;
  const claimKey = identity.sessionId === null ? null : sessionClaimKey(identity.sessionId);
  const lease = await RunLease.acquire(deps, identity, claimKey);
  const { recorder, controller } = lease;

  const scope = createRunScope({
    data: request.context ?? null,
    invocable: agent.name,
    runWorkflow: request.runWorkflow,
    runId,
    sessionId: identity.sessionId,
    signal: controller.signal,
  });
  let fence: ReturnType<typeof fencedSession> | null = null;
  let turn: AsyncIterator<EventDraft> | undefined;
  const usage: UsageReported[] = [];
  try {
    try {
      yield await recorder.record({
        kind: 'run.started',
        payload: { invocableType: 'agent', input: request.input },
      });
      if (identity.sessionId !== null) fence = fencedSession(deps.sessionFor(identity.sessionId));
      turn = deps.engine
        .playTurn({ agent, input: request.input, session: fence?.session ?? null, scope })
        [Symbol.asyncIterator]();
      for (;;) {
        const step = await turn.next();
        if (step.done) break;
        const draft = step.value;
        if (draft.kind === 'usage.reported') usage.push(draft.payload);
        if (draft.kind === 'run.completed' && draft.payload.usage === null) {
          draft.payload.usage = sumUsage(usage);
        }
        yield await recorder.record(draft);
      }
      return {};
    } catch (error) {
      const reason: string | null = lease.cancelReason;
      controller.abort();
      if (recorder.ended) return error instanceof RunEndedError ? {} : { error };
      const closing: EventDraft = reason
        ? { kind: 'run.cancelled', payload: { reason } }
        : {
            kind: 'run.failed',
            payload: { errorType: errorTypeName(error), message: errorMessage(error) },
          };
      let recorded: Event | null = null;
      try {
        recorded = await recorder.record(closing);
      } catch (recordError) {
        if (!(recordError instanceof RunEndedError)) {
          logFailure(`record ${closing.kind} for run '${runId}'`)(recordError);
        }
      }
      if (recorded) yield recorded;
      return reason ? {} : { error };
    }
  } finally {
    lease.cancel(CONSUMER_STOPPED);
    await closeQuietly(turn);
    fence?.close();
    if (!recorder.ended) {
      await recorder
        .record({ kind: 'run.cancelled', payload: { reason: lease.cancelReason } })
        .catch(logFailure(`record run.cancelled for run '${runId}'`));
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
