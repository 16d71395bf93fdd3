/**
 * How a tool's failure reaches the model and the log. An ordinary failure (bad arguments,
 * a thrown error) becomes a readable `Error: tool 'x' failed: ...` string for the model and
 * is kept for `tool.call.completed`; a failure that means the run itself is wrong (no
 * context in a headless run, a context of the wrong type, a deck-only tool played
 * headless) fails the run instead, naming the tool and its arguments (`run.failed`'s `tool`
 * and `input`).
 */
import type { RunContext } from '@openai/agents-core';
import { ContextTypeError, errorMessage } from '../../../core/errors.js';
import { attachFailureDetails } from '../../../core/failure-details.js';
import { asRunScope } from '../../../runtime/run-scope.js';
import { toolLedger } from './tool-ledger.js';

/** Raised inside a tool when a headless run (no context) reaches a tool that needs one. */
export class MissingContextError extends Error {
  override name = 'MissingContextError';
}

/** Raised by a tool that only works inside a deck's run (a workflow tool), played headless. */
export class NeedsDeckError extends Error {
  override name = 'NeedsDeckError';
}

/** Errors that fail the run rather than go back to the model: the run itself is wrong. */
export function failsTheRun(error: unknown): boolean {
  return (
    error instanceof MissingContextError ||
    error instanceof NeedsDeckError ||
    error instanceof ContextTypeError
  );
}

/** Record a tool's failure on the run scope and return the text the model is sent. */
export function toolFailureText(
  toolName: string,
  error: unknown,
  engineContext: unknown,
  callId: string | undefined,
): string {
  const message = errorMessage(error);
  const text = `Error: tool '${toolName}' failed: ${message}`;
  const scope = asRunScope(engineContext);
  if (scope && callId) toolLedger(scope).errors.set(callId, message);
  else if (scope) toolLedger(scope).errorTexts.set(text, message);
  return text;
}

/**
 * The engine's `errorFunction` for a tool of ours: run-failing errors rethrown, naming the tool
 * and its arguments for `run.failed` (#41); others to the model.
 */
export function toolErrorFunction(toolName: string) {
  return (
    runContext: RunContext<unknown>,
    error: unknown,
    details?: { toolCall?: { callId?: string; arguments?: string } },
  ): string => {
    if (failsTheRun(error)) {
      throw attachFailureDetails(error, {
        tool: toolName,
        input: toolArguments(details?.toolCall?.arguments),
      });
    }
    return toolFailureText(toolName, error, runContext.context, details?.toolCall?.callId);
  };
}

/** A tool call's arguments as the model sent them (JSON text), parsed when they parse. */
export function toolArguments(text: string | undefined): unknown {
  if (text === undefined || text === '') return {};
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}
