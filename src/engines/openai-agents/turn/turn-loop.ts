/**
 * A turn loop: one of the engine's two ways of playing a turn (`StreamedLoop`, the engine's
 * streamed run, and `PlainLoop`, its plain one), as the adapter drives it. Both yield the
 * same canonical drafts for the same turn, stop at the same safe points, and end the same
 * way; which one plays a turn is chosen in one place (`loop-choice.ts`, with the table of
 * when each runs). The engine (`../engine.ts`) owns what is common: the input, the pause's
 * continuation, the conversation written once the turn completes, the terminal draft.
 */
import type { AgentInputItem, Runner, RunState } from '@openai/agents-core';
import type { EventDraft } from '../../../core/events.js';
import type { RunScope } from '../../../runtime/run-scope.js';
import type { CompiledAgent } from '../compiled-agent.js';
import type { ModelCallLog } from './model-call-log.js';
import type { ModelCallGate } from './safe-points.js';
import type { TurnTranscript } from './transcript.js';

/** What the engine runs: a new turn's message (with its history), or a paused turn's state. */
export type TurnInput = string | AgentInputItem[] | RunState<RunScope | undefined, CompiledAgent>;

/** One turn to play: what either loop is given. */
export interface TurnPlay {
  /** The engine's runner (it relays tool ends to the turn, `turn-context.ts` rule 7). */
  runner: Runner;
  agent: CompiledAgent;
  input: TurnInput;
  /** The session's history sent before `input` in every model request (`turn-context.ts` rule 5). */
  history: readonly AgentInputItem[];
  scope: RunScope;
  /** The turn's pause and cancel (`safe-points.ts`). */
  gate: ModelCallGate;
  /** Maps what the engine shows to drafts, numbering the turn's messages. */
  transcript: TurnTranscript;
  /** Maximum model calls in the turn. */
  maxTurns: number;
  /** Records each model request of the turn (`turn-context.ts` rule 6); absent: none recorded. */
  modelCalls?: ModelCallLog | undefined;
}

/** What a played turn ends with, on either loop (the engine's result). */
export interface TurnEnd {
  /** The engine's state: what a turn paused before a tool saves. */
  readonly state: { toString(): string };
  /** Tool calls held for approval: the turn paused before dispatching them. */
  readonly interruptions: readonly unknown[];
  /** The run's input (not the history before it) and the items the turn added, in order. */
  readonly history: readonly AgentInputItem[];
  readonly finalOutput: unknown;
}

export interface TurnLoop {
  /** Which of the engine's loops this is. */
  readonly name: 'streamed' | 'plain';
  /** Whether the turn's model calls ask for whole replies (`TurnModelCalls.whole`). */
  readonly wholeReplies: boolean;
  /**
   * Play `turn`, yielding its drafts as they happen. Returns the engine's result, or `null`
   * when a pause stopped the plain loop before a model call (`gate.pausedInput` is where to
   * go on from). Throws what the engine threw; a cancel (the scope's signal) wins over a
   * pause it raced. A loop stopped early (cancel, consumer gone) lets the engine wind down
   * first, bounded (`settle.ts`).
   */
  play(turn: TurnPlay): AsyncGenerator<EventDraft, TurnEnd | null>;
}
