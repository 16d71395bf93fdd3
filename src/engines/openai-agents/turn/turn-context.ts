/**
 * The state of one turn that travels where no function signature shows it, in one place,
 * each channel with the rule it keeps. The engine's runner hands our model wrapper
 * (`whole-replies.ts`) a request and nothing of the turn, and runs its hooks on the runner,
 * not on the turn; and a compiled agent, with its model, is shared by every turn of that
 * agent, live or not. So a turn's loop makes a {@link TurnModelCalls} for the turn and
 * enters it around the runner's `run()` ({@link withTurnCalls}); the model wrapper and the
 * runner's tool hook find it through the turn's async context ({@link currentTurnCalls}).
 *
 * The rules:
 * 1. One `TurnModelCalls` per played segment of a turn, made by its loop (`streamed-loop.ts`,
 *    `plain-loop.ts`) and entered once. Only the turn's own model calls and tools see it: a
 *    deck run nested in one of its tools enters its own, and a headless `agent.run()` started
 *    from a tool runs outside any turn ({@link withoutTurn}), so its calls stream as the model
 *    does and are neither counted nor told to the turn.
 * 2. `whole` is fixed by the choice of loop (`loop-choice.ts`) and never changes.
 * 3. `streaming` is counted by the model wrapper while a streamed response of the turn is
 *    read: 0 or 1, since the engine makes one model call at a time. Above 0, no tool of the
 *    turn is running, which is what makes a pause between streamed items safe
 *    (`ModelCallGate.betweenItems`).
 * 4. The callbacks (`beforeCall`, `onResponse`, `onToolEnd`) are the plain loop's, given
 *    when it makes the calls, never assigned later. The first two are told by the wrapper's
 *    `getResponse`, which only the plain loop calls: the streamed loop calls
 *    `getStreamedResponse`, whose replay of a whole reply asks the inner model directly. So on
 *    the streamed loop they never fire. `beforeCall` may throw to stop the turn (a pause).
 * 5. `history` is the session's history the turn sends (after the agent's history policy),
 *    kept out of the engine's input: the engine copies, keys and tracks every input item on
 *    every turn, which made a turn's cost grow with its session. The model wrapper puts it
 *    before each of the turn's own requests (`whole-replies.ts`), so the model sees what it
 *    would have seen had the engine been given it.
 * 6. What the model saw (#41): `modelCalls` (absent when the deck records none) makes the
 *    drafts of each of the turn's own model requests, in the model wrapper; the deck's OpenAI
 *    client tells the turn the body it is handed (`sent`, `sent-bodies.ts`), just before the
 *    wrapper makes the request's draft. The plain loop takes the drafts by `onModelCall`; on
 *    the streamed loop they travel in the model's stream (`modelCallMark`), in its order, and
 *    those a failed or aborted stream dropped are in `unreadModelCalls` until the loop ends.
 * 7. Every runner the engine makes relays its `agent_tool_end` hook to the current turn's
 *    `onToolEnd` ({@link relayToolEnds}, once, when the runner is made). The hook is the
 *    runner's, shared by whatever runs on it, so the plain loop also checks that the tool ran
 *    in its own run scope.
 *
 * Set when an agent compiles rather than per turn, and read by a turn through the engine:
 * the approval policy of our tools and whether all tools are the deck's own
 * (`../compiled-agent.ts`); what our tools did in a run is kept beside its scope
 * (`../compile/tool-ledger.ts`).
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import type {
  AgentInputItem,
  ModelRequest,
  ModelResponse,
  RunContext,
  Runner,
} from '@openai/agents-core';
import type { EventDraft } from '../../../core/events.js';
import type { ModelCallLog, SentBody } from './model-call-log.js';

/** What a turn's model calls share with the loop that plays it (rules 2-6 above). */
export interface TurnModelCalls {
  /** Ask for whole replies (the turn is not read live). */
  readonly whole: boolean;
  /** Model calls of the turn whose response is being read now (0 or 1). */
  streaming: number;
  /** The history sent before the turn's own input in each model request (rule 5). */
  readonly history?: readonly AgentInputItem[];
  /** Plain loop: told before each model call, with its request; may throw to stop there. */
  readonly beforeCall?: (request: ModelRequest) => void;
  /** Plain loop: told each model call's whole response (and its `model.call.completed`, rule 6). */
  readonly onResponse?: (response: ModelResponse, completed: EventDraft | null) => void;
  /** The drafts of the turn's model requests (rule 6); absent when none are recorded. */
  readonly modelCalls?: ModelCallLog;
  /** The body the deck's client was handed for the model request being made (rule 6). */
  sent?: SentBody | undefined;
  /** Plain loop: told each `model.call.*` draft the wrapper makes outside a response (rule 6). */
  readonly onModelCall?: (draft: EventDraft) => void;
  /** Streamed loop: drafts sent in the model's stream and not yet read from it (rule 6). */
  readonly unreadModelCalls?: Set<EventDraft>;
  /** Plain loop: told each tool output (the runner's `agent_tool_end` hook). */
  readonly onToolEnd?: (
    context: RunContext<unknown>,
    toolCall: { callId?: string; name?: string },
    output: string,
  ) => void;
}

const turnCalls = new AsyncLocalStorage<TurnModelCalls>();

/** Run `body` (which starts the engine on a turn) with `calls` as the turn's (rule 1). */
export function withTurnCalls<T>(calls: TurnModelCalls, body: () => T): T {
  return turnCalls.run(calls, body);
}

/**
 * Run `body` outside any turn: a headless run started from a turn's tool (`agent.run()`)
 * must not be taken for that turn's own model calls, nor ask for its reply mode.
 */
export function withoutTurn<T>(body: () => T): T {
  return turnCalls.exit(body);
}

/** The model calls of the turn whose code is running now, if any. */
export function currentTurnCalls(): TurnModelCalls | undefined {
  return turnCalls.getStore();
}

/** Tell the turn playing on `runner` each tool's output (rule 7); call once, on a new runner. */
export function relayToolEnds(runner: Runner): Runner {
  runner.on('agent_tool_end', (context, _agent, _tool, output, details) => {
    currentTurnCalls()?.onToolEnd?.(context as RunContext<unknown>, details.toolCall, output);
  });
  return runner;
}
