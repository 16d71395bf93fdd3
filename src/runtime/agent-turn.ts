/**
 * Plays one agent turn and yields its events live. Order of every event: stored, tapped,
 * yielded. Exactly one terminal event ends the run: `run.completed`, `run.failed`, or
 * `run.cancelled` when the consumer stops reading (the engine is aborted). The session
 * claim is taken before anything is recorded and freed when the turn ends.
 */
import type { AgentDefinition } from '../authoring/agent.js';
import { createRunScope } from '../authoring/context.js';
import type { ContentBlock } from '../core/blocks.js';
import { errorMessage, errorTypeName } from '../core/errors.js';
import type { UsageReported } from '../core/event-kinds.js';
import { type Event, isTerminal } from '../core/events.js';
import type { ConversationSession } from '../core/sessions.js';
import type { EventStore } from '../core/store.js';
import type { AgentEngine } from './agent-engine.js';
import { acquireClaim, sessionClaimKey } from './claims.js';
import { type EventTap, type RunIdentity, RunRecorder } from './recorder.js';
import { sumUsage } from './turn-result.js';

export interface AgentTurnDeps {
  store: EventStore;
  engine: AgentEngine;
  staleRunAfterSeconds: number;
  sessionFor(sessionId: string): ConversationSession;
  taps: readonly EventTap[];
}

export interface AgentTurnRequest {
  agent: AgentDefinition;
  input: ContentBlock[];
  identity: RunIdentity;
  context: unknown;
}

/** How the turn ended, for callers that want the original exception (not just its name). */
export interface TurnOutcome {
  error?: unknown;
}

export async function* playAgentTurn(
  deps: AgentTurnDeps,
  request: AgentTurnRequest,
): AsyncGenerator<Event, TurnOutcome, undefined> {
  const { identity, agent } = request;
  const claimKey = identity.sessionId === null ? null : sessionClaimKey(identity.sessionId);
  if (claimKey) {
    await acquireClaim(deps.store, claimKey, identity.runId, deps.staleRunAfterSeconds, deps.taps);
  }
  const recorder = new RunRecorder(deps.store, identity, deps.taps);
  const controller = new AbortController();
  const scope = createRunScope({
    data: request.context ?? null,
    runId: identity.runId,
    sessionId: identity.sessionId,
    signal: controller.signal,
  });
  let ended = false;
  const usage: UsageReported[] = [];
  try {
    yield await recorder.record({
      kind: 'run.started',
      payload: { invocableType: 'agent', input: request.input },
    });
    const session = identity.sessionId === null ? null : deps.sessionFor(identity.sessionId);
    try {
      for await (const draft of deps.engine.playTurn({
        agent,
        input: request.input,
        session,
        scope,
      })) {
        if (draft.kind === 'usage.reported') usage.push(draft.payload);
        if (draft.kind === 'run.completed' && draft.payload.usage === null) {
          draft.payload.usage = sumUsage(usage);
        }
        const event = await recorder.record(draft);
        if (isTerminal(event)) ended = true;
        yield event;
      }
    } catch (error) {
      if (controller.signal.aborted) throw error;
      ended = true;
      yield await recorder.record({
        kind: 'run.failed',
        payload: { errorType: errorTypeName(error), message: errorMessage(error) },
      });
      return { error };
    }
    return {};
  } finally {
    if (!ended) {
      controller.abort();
      await recorder.record({
        kind: 'run.cancelled',
        payload: { reason: 'the consumer stopped reading the stream' },
      });
    }
    if (claimKey) await deps.store.release(claimKey, identity.runId);
  }
}
