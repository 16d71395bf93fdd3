/**
 * The script format shared by `ScriptedModel` (in-process) and `scriptedModelServer()`
 * (OpenAI-compatible HTTP). A script is a list of steps; each model call consumes exactly
 * one step, in order. A call with no step left, or a script left unconsumed when checked,
 * is an error: tests fail loudly instead of hanging or passing by accident.
 */

/**
 * One tool call the scripted model asks for.
 *
 * @example
 * ```ts
 * const call: ScriptedToolCall = { name: 'get_weather', arguments: { city: 'Paris' }, callId: 'call_w' };
 * ```
 */
export interface ScriptedToolCall {
  /** Tool name as the agent exposes it. */
  name: string;
  /** Arguments; an object is JSON-encoded, a string is sent as is. */
  arguments?: Record<string, unknown> | string;
  /** Call id; generated (`call_<n>`) when omitted. */
  callId?: string;
}

/**
 * Token usage the scripted model reports for one call (`totalTokens` is their sum).
 *
 * @example
 * ```ts
 * const step: ScriptedStep = { text: 'ok', usage: { inputTokens: 120, outputTokens: 3 } };
 * ```
 */
export interface ScriptedUsage {
  inputTokens: number;
  outputTokens: number;
}

/**
 * One model response. Text comes first (one assistant message), then tool calls (one
 * `function_call` each); a step with tool calls makes the engine run the tools and call the
 * model again, so it is usually followed by a text step. With `outputType` set on the agent,
 * `text` is the JSON string of the structured output.
 *
 * @example
 * ```ts
 * const steps: ScriptedStep[] = [
 *   { toolCalls: [{ name: 'lookup', arguments: { id: 42 } }], usage: { inputTokens: 50, outputTokens: 9 } },
 *   { text: ['Found ', 'it.'], delayMs: 20 }, // streamed as exactly two deltas, 20 ms apart
 *   { error: 'upstream overloaded' },          // this call fails
 * ];
 * ```
 */
export interface ScriptedStep {
  /**
   * Assistant text. A string is streamed in chunks of `chunkSize` characters; an array is
   * streamed one element per chunk (so tests control chunk boundaries exactly).
   */
  text?: string | string[];
  /** Tool calls to emit (after the text, if any). */
  toolCalls?: ScriptedToolCall[];
  /** Usage reported for this call. @default { inputTokens: 10, outputTokens: 5 } */
  usage?: ScriptedUsage;
  /**
   * Milliseconds to wait between streamed chunks. A non-streamed answer to the step comes
   * when its stream would have ended (after the same waits). @default 0
   */
  delayMs?: number;
  /** Characters per streamed chunk when `text` is a string. @default 4 */
  chunkSize?: number;
  /** Fail this call instead of answering (the message becomes the thrown error / HTTP 500 body). */
  error?: string;
}

/**
 * Default usage when a step names none.
 *
 * @example
 * ```ts
 * expect(result.state.usage.inputTokens).toBe(2 * DEFAULT_SCRIPTED_USAGE.inputTokens);
 * ```
 */
export const DEFAULT_SCRIPTED_USAGE: ScriptedUsage = { inputTokens: 10, outputTokens: 5 };

/** Split a step's text into the chunks that will be streamed. */
export function textChunks(step: ScriptedStep): string[] {
  if (step.text === undefined) return [];
  if (Array.isArray(step.text)) return step.text;
  const size = step.chunkSize ?? 4;
  const chunks: string[] = [];
  for (let i = 0; i < step.text.length; i += size) chunks.push(step.text.slice(i, i + size));
  return chunks;
}

/** The arguments of a scripted tool call as the JSON string a model sends. */
export function toolArguments(call: ScriptedToolCall): string {
  if (call.arguments === undefined) return '{}';
  return typeof call.arguments === 'string' ? call.arguments : JSON.stringify(call.arguments);
}

/** A scripted tool call with its call id and JSON arguments resolved. */
export interface ResolvedToolCall {
  name: string;
  callId: string;
  arguments: string;
}

/**
 * The queue of steps behind a scripted double, with the bookkeeping both doubles share:
 * the number of steps left, unconsumed-script checks and generated ids.
 */
export class StepQueue {
  readonly #label: string;
  readonly #steps: ScriptedStep[];
  #nextId = 0;

  constructor(label: string, steps: readonly ScriptedStep[]) {
    this.#label = label;
    this.#steps = [...steps];
  }

  /** Number of steps not yet consumed. */
  get remaining(): number {
    return this.#steps.length;
  }

  /** Append steps to the end of the script. */
  push(...steps: ScriptedStep[]): void {
    this.#steps.push(...steps);
  }

  /** Take the next step, or `undefined` when the script is exhausted. */
  shift(): ScriptedStep | undefined {
    return this.#steps.shift();
  }

  /** Throw when steps remain. */
  assertConsumed(): void {
    const left = this.#steps.length;
    if (left > 0) {
      throw new Error(
        `${this.#label}: ${left} scripted step${left === 1 ? '' : 's'} left unconsumed`,
      );
    }
  }

  /** The error for a call that arrived after the last step. */
  exhausted(summary: string): Error {
    return new Error(
      `${this.#label}: script exhausted, no scripted step left for this call (last input: ${summary})`,
    );
  }

  /** A fresh id with the given prefix, unique within this queue (`call_1`, `msg_2`, ...). */
  id(prefix: string): string {
    this.#nextId += 1;
    return `${prefix}_${this.#nextId}`;
  }

  /** The step's tool calls with call ids generated where the script names none. */
  toolCalls(step: ScriptedStep): ResolvedToolCall[] {
    return (step.toolCalls ?? []).map((call) => ({
      name: call.name,
      callId: call.callId ?? this.id('call'),
      arguments: toolArguments(call),
    }));
  }
}

/** A step with everything a response needs decided: ids, chunks, tool calls and usage. */
export interface StepPlan {
  /** Response id (`resp_<n>`). */
  id: string;
  /** Assistant message id (`msg_<n>`), when the step has text. */
  messageId?: string;
  /** Full assistant text, when the step has text. */
  text?: string;
  /** Text chunks to stream (empty when there is no text). */
  chunks: string[];
  /** Tool calls, each with its output item id (`fc_<n>`). */
  toolCalls: Array<ResolvedToolCall & { itemId: string }>;
  usage: ScriptedUsage & { totalTokens: number };
  /** Milliseconds to wait between streamed chunks. */
  delayMs: number;
}

/** Decide ids, chunks, tool calls and usage for a step (ids come from the queue). */
export function planStep(queue: StepQueue, step: ScriptedStep): StepPlan {
  const chunks = textChunks(step);
  const id = queue.id('resp');
  const message =
    step.text === undefined ? {} : { messageId: queue.id('msg'), text: chunks.join('') };
  return {
    id,
    ...message,
    chunks,
    toolCalls: queue.toolCalls(step).map((call) => ({ ...call, itemId: queue.id('fc') })),
    usage: stepUsage(step),
    delayMs: step.delayMs ?? 0,
  };
}

/** How long streaming a plan takes (a wait before each chunk but the first): a whole answer waits as long. */
export function streamDurationMs(plan: StepPlan): number {
  return plan.delayMs * Math.max(0, plan.chunks.length - 1);
}

/** Usage of a step with the default applied and the total computed. */
export function stepUsage(step: ScriptedStep): ScriptedUsage & { totalTokens: number } {
  const usage = step.usage ?? DEFAULT_SCRIPTED_USAGE;
  return { ...usage, totalTokens: usage.inputTokens + usage.outputTokens };
}

/** A one-line, length-capped rendering of a value for error messages. */
export function summarize(value: unknown, max = 200): string {
  let text: string;
  try {
    text =
      typeof value === 'string' ? JSON.stringify(value) : (JSON.stringify(value) ?? 'undefined');
  } catch {
    text = String(value);
  }
  return text.length > max ? `${text.slice(0, max)}…` : text;
}

/** An error the agents engine (and most code) recognises as an abort (`name === 'AbortError'`). */
export function abortError(signal?: AbortSignal): Error {
  const error = new Error('The scripted model call was aborted', { cause: signal?.reason });
  error.name = 'AbortError';
  return error;
}

/** Wait `ms` milliseconds; rejects with an AbortError as soon as `signal` aborts. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  if (signal?.aborted) return Promise.reject(abortError(signal));
  if (ms <= 0) return Promise.resolve();
  return new Promise((resolve, reject) => {
    const onAbort = () => {
      clearTimeout(timer);
      reject(abortError(signal));
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/** One server-sent event a scripted server writes. */
export interface SseFrame {
  /** SSE `event:` name (the Responses API names every event; Chat Completions names none). */
  event?: string;
  /** Payload: JSON-encoded, except a string which is written as is (e.g. `[DONE]`). */
  data: unknown;
  /** A text delta: the server waits the step's `delayMs` before each one but the first. */
  delta?: boolean;
}
