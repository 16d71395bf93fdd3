/**
 * The port an agent engine implements. The runtime owns the envelope (ids, seq, claims,
 * terminal events); an engine only turns one agent turn into event drafts, live.
 *
 * Tested by the agent engine contract (src/testing/agent-engine-contract.ts), which the
 * openai-agents adapter (src/engines/openai-agents/engine.test.ts) and the scripted fake
 * (src/testing/scripted-engines.test.ts) pass.
 */
import type { AgentDefinition } from '../authoring/agent-definition.js';
import type { ContentBlock } from '../core/blocks.js';
import type { EventDraft } from '../core/events.js';
import type { ModelCallRecording } from '../core/model-calls.js';
import type { ConversationSession } from '../core/sessions.js';
import type { RunScope } from './run-scope.js';

export interface TurnRequest {
  agent: AgentDefinition;
  input: ContentBlock[];
  /** The conversation history to read and extend, or `null` for a one-off turn. */
  session: ConversationSession | null;
  scope: RunScope;
  /**
   * Continue a paused turn from what its engine saved (`control.suspend`) instead of
   * starting one from `input`; `null` for a new turn.
   */
  continuation: string | null;
  /**
   * A person's answer to the tool call the continued turn waits for (it stopped with
   * `run.interrupted`, reason `approval`): the call runs, or the model is told it was
   * rejected. Absent when the turn continues from a pause.
   */
  answer?: ApprovalAnswer;
  /** Messages the run completed before a continued segment, so message ids stay unique. */
  messagesBefore?: number;
  /** What to record of each model request (`model.call.*`). @default 'off' */
  recordModelCalls?: ModelCallRecording;
  /**
   * A continued segment's earlier model calls: how many (call ids go on from there) and the
   * digests of the values they stored, which this segment does not store again. Absent: none.
   */
  modelCallsBefore?: ModelCallsBefore;
  /**
   * Earlier messages of the conversation, given by the caller (a stateless API call): sent to
   * the model before `input`, after the session's own history; with a session, added to it
   * too. Absent: none.
   */
  history?: readonly HistoryMessage[];
  /** Text added after the agent's own instructions for this turn (a caller's system message). */
  instructions?: string;
  control: TurnControl;
  /**
   * Whether a consumer reads the turn as it happens (`deck.stream`, SSE): `text.delta` per
   * token. `false` (`deck.run`, JSON chat) lets the engine ask the model for whole replies,
   * each recorded as one `text.delta` chunk. @default true
   */
  live?: boolean;
}

/** What a continued segment's run recorded of model calls before it (see `TurnRequest.modelCallsBefore`). */
export interface ModelCallsBefore {
  calls: number;
  values: ReadonlySet<string>;
}

/** An earlier message of a conversation a caller gives a turn (see `TurnRequest.history`). */
export interface HistoryMessage {
  role: 'user' | 'assistant';
  text: string;
}

/** A person's answer to a tool call held for approval (`deck.answer(runId, answer)`). */
export interface ApprovalAnswer {
  approved: boolean;
  /** Why it was rejected, told to the model (and recorded). */
  reason?: string | null;
  /**
   * The call this answer is for (its `call_id`, as `pending()` showed it). Given, an answer
   * reaching a run that now asks about another call is refused (ConflictError), so a retried
   * or doubled answer never approves a call nobody saw.
   */
  callId?: string | null;
  /**
   * The answer's id (its idempotency key, or its value's digest), recorded on `run.resumed`
   * so a retry finds its outcome (`runtime/answer-replay.ts`); engines ignore it. @default none
   */
  answerId?: string;
}

/** How a turn is paused (SPEC.md "Agent run control"). */
export interface TurnControl {
  /** Whether the turn should pause at its next safe point. */
  pauseRequested(): boolean;
  /**
   * Save the continuation of a turn that stopped at a safe point (any process sharing the
   * store may continue it). The engine then yields `run.paused` and ends.
   */
  suspend(continuation: string): Promise<void>;
}

export interface AgentEngine {
  /** Check and compile a definition at `build()`; throws ConfigError. Idempotent. */
  compile(agent: AgentDefinition): void;
  /**
   * Play one turn. Yields drafts as the model produces them; the last one is
   * `run.completed`, `run.paused` when it stopped for a pause at a safe point, or
   * `run.interrupted` (reason `approval`) when a tool call waits for a person (both after
   * saving its continuation). Throws the turn's error on failure. Stops promptly when
   * `scope.signal` aborts.
   */
  playTurn(request: TurnRequest): AsyncIterable<EventDraft>;
  /** Release clients. */
  close(): Promise<void>;
}
