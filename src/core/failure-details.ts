/**
 * What a failed run records beside its error's type and message (#41): the error's stack, and
 * the workflow node or the agent tool that failed with what it was given. An engine knows the
 * node or tool where it catches the error; the runtime builds `run.failed` far from there, so
 * the engine attaches a `FailureDetails` to the error itself (under a symbol: the error keeps
 * its class, its name and its message, so callers catch what they caught before) and the
 * runtime reads it back with `failurePayload()`.
 *
 * Both the input and the stack are capped: an input is anything a node or a tool received
 * (a whole state, a document) and a stack of nested causes can be long. Over the cap, the
 * input is replaced by a marker holding the start of its JSON, and the stack is cut with a
 * note of what was left out.
 */

import { errorMessage, errorTypeName } from './errors.js';
import type { RunFailed } from './event-kinds.js';

/** Where a run failed: the node or tool, what it was given, and a stack to use instead of the error's. */
export interface FailureDetails {
  /** The workflow node that threw. */
  node?: string;
  /** The agent tool whose call ended the run. */
  tool?: string;
  /** The node's input state, or the tool call's arguments. */
  input?: unknown;
  /** A stack that says more than the error's own (a wrapper's, with its cause's). */
  stack?: string;
}

/** The most of an input's JSON `run.failed` keeps, in characters (8 KB). */
export const MAX_FAILURE_INPUT_CHARS = 8192;
/** The most of a stack `run.failed` keeps, in characters (8 KB). */
export const MAX_FAILURE_STACK_CHARS = 8192;
/** The key of the marker that replaces an input over {@link MAX_FAILURE_INPUT_CHARS}. */
export const TRUNCATED_KEY = 'agentdeck:truncated';

/** Marks the details on an error, whichever copy of the package attached them. */
const DETAILS = Symbol.for('agentdeck.failure-details');

/**
 * Attach where `error` happened (merged over what a deeper layer attached: the layer nearest
 * the run names the node or tool of that run). A thrown value that is not an object has no
 * room for it and is left as it is. Returns `error`, to rethrow.
 * @example catch (error) { throw attachFailureDetails(error, { node: 'verify', input: state }); }
 */
export function attachFailureDetails<E>(error: E, details: FailureDetails): E {
  if ((typeof error !== 'object' && typeof error !== 'function') || error === null) return error;
  const merged = { ...failureDetailsOf(error), ...details };
  // The layer that names a node and the one that names a tool are different runs' layers:
  // the nearer one (attaching last) says which of the two this run failed in.
  if (details.tool !== undefined) delete merged.node;
  if (details.node !== undefined) delete merged.tool;
  try {
    Object.defineProperty(error, DETAILS, { value: merged, configurable: true });
  } catch {
    // A frozen error: recorded with its type, message and stack only.
  }
  return error;
}

/** The details attached to `error`, or `null`. */
export function failureDetailsOf(error: unknown): FailureDetails | null {
  if ((typeof error !== 'object' && typeof error !== 'function') || error === null) return null;
  return ((error as { [DETAILS]?: FailureDetails })[DETAILS] ?? null) as FailureDetails | null;
}

/** The `run.failed` payload for `error`: its type and message, stack, node or tool and input, capped. */
export function failurePayload(error: unknown): RunFailed {
  const details = failureDetailsOf(error);
  const stack = details?.stack ?? stackOf(error);
  return {
    errorType: errorTypeName(error),
    message: errorMessage(error),
    ...(stack ? { stack: capStack(stack) } : {}),
    ...(details?.node !== undefined ? { node: details.node } : {}),
    ...(details?.tool !== undefined ? { tool: details.tool } : {}),
    ...(details && 'input' in details ? { input: capInput(details.input) } : {}),
  };
}

/** An error's stack, then each cause's (`Caused by: ...`), up to a few levels. */
export function stackOf(error: unknown): string | undefined {
  const parts: string[] = [];
  let current: unknown = error;
  for (let depth = 0; depth < 5 && current instanceof Error; depth += 1) {
    parts.push(current.stack ?? `${current.name}: ${current.message}`);
    current = current.cause;
  }
  return parts.length > 0 ? parts.join('\nCaused by: ') : undefined;
}

/** `stack` cut at {@link MAX_FAILURE_STACK_CHARS}, saying how much was left out. */
export function capStack(stack: string): string {
  if (stack.length <= MAX_FAILURE_STACK_CHARS) return stack;
  const left = stack.length - MAX_FAILURE_STACK_CHARS;
  return `${stack.slice(0, MAX_FAILURE_STACK_CHARS)}\n… (${left} more characters of the stack left out)`;
}

/**
 * `input` as `run.failed` keeps it: as it is when its JSON fits {@link MAX_FAILURE_INPUT_CHARS},
 * else `{"agentdeck:truncated": {"chars": <its JSON's length>, "head": "<the JSON's start>"}}`.
 * Values JSON cannot hold (a cycle, a BigInt, a function) are written as text.
 */
export function capInput(input: unknown): unknown {
  let json: string | undefined;
  try {
    json = safeJson(input);
  } catch (error) {
    // A getter that throws, a toJSON that fails: the failure is still recorded, without it.
    return `[the input could not be written as JSON: ${errorMessage(error)}]`;
  }
  if (json === undefined) return null;
  if (json.length <= MAX_FAILURE_INPUT_CHARS) return JSON.parse(json);
  return { [TRUNCATED_KEY]: { chars: json.length, head: json.slice(0, MAX_FAILURE_INPUT_CHARS) } };
}

function safeJson(value: unknown): string | undefined {
  const seen = new WeakSet<object>();
  return JSON.stringify(value, (_key, item: unknown) => {
    if (typeof item === 'bigint') return item.toString();
    if (typeof item === 'function') return `[function ${item.name || 'anonymous'}]`;
    if (typeof item === 'object' && item !== null) {
      if (seen.has(item)) return '[circular or repeated]';
      seen.add(item);
    }
    return item;
  });
}
