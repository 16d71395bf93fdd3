/**
 * What ends an agent turn, told for `run.failed` (#41). A tool that throws does not end the
 * turn: the model gets a readable error string (`compile/tool-errors.ts`). What does end it:
 *
 * - an error of ours a tool raises because the run itself is wrong (no context, a context of
 *   the wrong type, a deck-only tool played headless; a workflow tool whose child run failed
 *   that way): named at the tool's `errorFunction`;
 * - an error thrown by a tool's approval policy (`needsApproval`): named at the gate
 *   (`compile/approvals.ts`);
 * - anything else the engine wraps in its `ToolCallError` (a built tool without an error
 *   function): named here when exactly one call was running;
 * - the engine's `ToolTimeoutError`, and its `ModelBehaviorError` for a tool the agent does
 *   not have: named here from the error, with the arguments the model sent;
 * - the engine's `MaxTurnsExceededError`, a model's failure: no tool is the cause.
 *
 * The error keeps its class: the engine's `ToolCallError` stays one (its stack gains its
 * cause's), except around our own errors, which surface as themselves (a caller catches a
 * `ContextTypeError`, not the engine's wrapper).
 */
import { ModelBehaviorError, ToolCallError, ToolTimeoutError } from '@openai/agents-core';
import { DeckError } from '../../../core/errors.js';
import {
  attachFailureDetails,
  type FailureDetails,
  failureDetailsOf,
  stackOf,
} from '../../../core/failure-details.js';
import type { TurnTranscript } from './transcript.js';

/** The engine's message for a call of a tool the agent does not have. */
const TOOL_NOT_FOUND = /^Tool (\S+) not found in agent /;

/** `error` as the turn throws it to the runtime, with the tool that ended the turn attached. */
export function explainTurnFailure(error: unknown, transcript: TurnTranscript): unknown {
  if (error instanceof ToolCallError) {
    const inner = error.error;
    if (inner instanceof DeckError) return inner;
    const where = failureDetailsOf(inner) ?? runningCall(transcript);
    const stack = [stackOf(error), stackOf(inner)].filter(Boolean).join('\nCaused by: ');
    return attachFailureDetails(error, { ...where, ...(stack ? { stack } : {}) });
  }
  if (failureDetailsOf(error)) return error;
  if (error instanceof ToolTimeoutError) return named(error, error.toolName, transcript);
  if (error instanceof ModelBehaviorError) {
    const missing = TOOL_NOT_FOUND.exec(error.message)?.[1];
    if (missing) return named(error, missing, transcript);
  }
  return error;
}

/** The one call running when a tool's error ended the turn, or nothing when it is not known. */
function runningCall(transcript: TurnTranscript): FailureDetails {
  if (transcript.openCalls.size !== 1) return {};
  const [call] = transcript.openCalls.values();
  return call ? { tool: call.name, input: call.arguments } : {};
}

/** `error` naming `tool`, with the arguments of its latest call when the transcript saw it. */
function named(error: Error, tool: string, transcript: TurnTranscript): Error {
  const call = transcript.latestCalls.get(tool);
  return attachFailureDetails(error, { tool, ...(call ? { input: call.arguments } : {}) });
}
