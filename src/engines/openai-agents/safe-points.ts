/**
 * The safe points of an agent turn (SPEC.md "Agent run control"), where a requested pause
 * stops it without losing or repeating work:
 * - before a tool is dispatched: our tools carry an approval policy that asks for approval
 *   exactly when a pause is pending, so the engine stops with the call undispatched and a
 *   resumable state (its own human-approval mechanism);
 * - after a batch of tool outputs, before the next model call: the engine is aborted there
 *   (only the model call is lost, and it is made again on resume).
 * The state is serialized without the run scope (see `createRunScope`), and the turn's
 * conversation is written by us, not by the engine (an engine session cannot resume a turn
 * aborted after its tools ran).
 */
import {
  type AgentInputItem,
  type Agent as EngineAgent,
  RunContext,
  RunState,
} from '@openai/agents-core';
import { asRunScope, type RunScope } from '../../authoring/context.js';
import { InvalidInputError } from '../../core/errors.js';

/** The approval policy of our tools: approval is asked (and the turn stops) only for a pause. */
export async function pauseBeforeDispatch(runContext: RunContext<unknown>): Promise<boolean> {
  return asRunScope(runContext.context)?.pauseRequested() ?? false;
}

/** What a paused turn saves: the engine's state, and how much of its input was history. */
interface Continuation {
  engine: 'openai-agents';
  state: string;
  /** Items of the run's input (history and the turn's message): the rest is the turn's output. */
  inputLength: number;
}

export function saveContinuation(state: { toString(): string }, inputLength: number): string {
  const continuation: Continuation = {
    engine: 'openai-agents',
    state: state.toString(),
    inputLength,
  };
  return JSON.stringify(continuation);
}

/**
 * The engine state to continue a paused turn from, bound to this run's scope; calls held
 * at a pause are approved (they run now, once).
 */
export async function restoreContinuation(
  agent: EngineAgent<RunScope | undefined>,
  saved: string,
  scope: RunScope,
): Promise<{ state: RunState<RunScope | undefined, EngineAgent>; inputLength: number }> {
  let continuation: Continuation;
  try {
    continuation = JSON.parse(saved) as Continuation;
  } catch (error) {
    throw new InvalidInputError(`the saved continuation of run '${scope.runId}' is not JSON`, {
      cause: error,
    });
  }
  if (continuation.engine !== 'openai-agents' || typeof continuation.state !== 'string') {
    throw new InvalidInputError(
      `the saved continuation of run '${scope.runId}' was not written by the openai-agents engine`,
    );
  }
  const state = await RunState.fromStringWithContext(
    agent,
    continuation.state,
    new RunContext<RunScope | undefined>(scope),
  );
  for (const held of state.getInterruptions()) state.approve(held);
  return { state: state as never, inputLength: continuation.inputLength };
}

/** The engine's input items for a turn's message (the engine takes a bare string as one user message). */
export function asItems(input: string | AgentInputItem[]): AgentInputItem[] {
  return typeof input === 'string' ? [{ type: 'message', role: 'user', content: input }] : input;
}
