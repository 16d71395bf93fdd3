import {
  type Model,
  type ModelRequest,
  type ModelResponse,
  type StreamEvent,
  type StreamEventResponseCompleted,
  Usage,
} from '@openai/agents-core';
import {
  abortError,
  planStep,
  type ScriptedStep,
  type StepPlan,
  StepQueue,
  sleep,
  streamDurationMs,
  summarize,
} from './script.js';

/**
 * Options for {@link ScriptedModel}.
 *
 * @example
 * ```ts
 * const planner = new ScriptedModel([{ text: 'plan' }], { name: 'planner' });
 * ```
 */
export interface ScriptedModelOptions {
  /** Name used in error messages. @default 'ScriptedModel' */
  name?: string;
}

/**
 * An in-process {@link Model} that answers from a script instead of calling an LLM.
 *
 * Each call (`getResponse` or `getStreamedResponse`) consumes the next {@link ScriptedStep}:
 * its `text` becomes an assistant message (streamed as one `output_text_delta` per chunk),
 * its `toolCalls` become `function_call` items the engine executes before calling the model
 * again, its `usage` is reported on the response, and its `error` makes the call throw.
 * Every request is recorded in {@link ScriptedModel.calls}. A call with no step left throws
 * (the script is exhausted), so a test fails loudly instead of hanging.
 *
 * @example
 * ```ts
 * import { Agent, Runner, tool } from '@openai/agents-core';
 * import { z } from 'zod';
 * import { ScriptedModel } from 'agentdeck/testing';
 *
 * const model = new ScriptedModel([
 *   { toolCalls: [{ name: 'get_weather', arguments: { city: 'Paris' } }] },
 *   { text: 'It is sunny in Paris.' },
 * ]);
 * const getWeather = tool({
 *   name: 'get_weather',
 *   description: 'Weather for a city',
 *   parameters: z.object({ city: z.string() }),
 *   execute: async ({ city }) => `sunny in ${city}`,
 * });
 * const agent = new Agent({ name: 'weather', instructions: 'Be brief.', model, tools: [getWeather] });
 * const result = await new Runner({ tracingDisabled: true }).run(agent, 'Weather in Paris?');
 *
 * expect(result.finalOutput).toBe('It is sunny in Paris.');
 * expect(model.calls[0]?.systemInstructions).toBe('Be brief.');
 * model.assertConsumed();
 * ```
 */
export class ScriptedModel implements Model {
  /** Every request received, in order (including failed and unexpected calls). */
  readonly calls: ModelRequest[] = [];
  /** Name used in error messages. */
  readonly name: string;
  readonly #queue: StepQueue;

  /**
   * @param steps - The script: one step per expected model call, in order.
   * @param options - See {@link ScriptedModelOptions}.
   */
  constructor(steps: ScriptedStep[], options: ScriptedModelOptions = {}) {
    this.name = options.name ?? 'ScriptedModel';
    this.#queue = new StepQueue(this.name, steps);
  }

  /**
   * Number of steps not yet consumed.
   *
   * @example
   * ```ts
   * expect(model.remaining).toBe(0);
   * ```
   */
  get remaining(): number {
    return this.#queue.remaining;
  }

  /**
   * Append steps to the end of the script.
   *
   * @example
   * ```ts
   * model.push({ text: 'one more answer' });
   * ```
   */
  push(...steps: ScriptedStep[]): void {
    this.#queue.push(...steps);
  }

  /**
   * Throw when steps remain unconsumed (the error says how many).
   *
   * @example
   * ```ts
   * afterEach(() => model.assertConsumed());
   * ```
   */
  assertConsumed(): void {
    this.#queue.assertConsumed();
  }

  /** Consume the next step and answer it in one piece, when its stream would have ended. */
  async getResponse(request: ModelRequest): Promise<ModelResponse> {
    // A call aborted before it starts never reaches a model: it consumes no step.
    if (request.signal?.aborted) throw abortError(request.signal);
    const step = this.#take(request);
    if (step.error !== undefined) throw new Error(step.error);
    const plan = planStep(this.#queue, step);
    const wait = streamDurationMs(plan);
    if (wait > 0) await sleep(wait, request.signal);
    if (request.signal?.aborted) throw abortError(request.signal);
    return {
      usage: new Usage(responseUsage(plan)),
      output: outputItems(plan),
      responseId: plan.id,
    };
  }

  /** Consume the next step and stream it: started, one text delta per chunk, done. */
  getStreamedResponse(request: ModelRequest): AsyncIterable<StreamEvent> {
    let step: ScriptedStep;
    try {
      // A call aborted before it starts never reaches a model: it consumes no step.
      if (request.signal?.aborted) throw abortError(request.signal);
      step = this.#take(request);
    } catch (error) {
      return failing(error);
    }
    return this.#stream(step, request.signal);
  }

  async *#stream(step: ScriptedStep, signal: AbortSignal | undefined): AsyncGenerator<StreamEvent> {
    if (signal?.aborted) throw abortError(signal);
    if (step.error !== undefined) throw new Error(step.error);
    const plan = planStep(this.#queue, step);
    yield { type: 'response_started' };
    for (const [index, delta] of plan.chunks.entries()) {
      if (index > 0) await sleep(plan.delayMs, signal);
      if (signal?.aborted) throw abortError(signal);
      yield {
        type: 'output_text_delta',
        delta,
        ...(plan.messageId === undefined ? {} : { itemId: plan.messageId }),
      };
    }
    if (signal?.aborted) throw abortError(signal);
    yield {
      type: 'response_done',
      response: { id: plan.id, usage: responseUsage(plan), output: outputItems(plan) },
    };
  }

  #take(request: ModelRequest): ScriptedStep {
    this.calls.push({
      ...request,
      input: Array.isArray(request.input) ? [...request.input] : request.input,
    });
    const step = this.#queue.shift();
    if (step === undefined) throw this.#queue.exhausted(lastInput(request));
    return step;
  }
}

/** The usage of one scripted response, as the engine's stream protocol carries it. */
function responseUsage(plan: StepPlan) {
  const { inputTokens, outputTokens, totalTokens } = plan.usage;
  return { requests: 1, inputTokens, outputTokens, totalTokens };
}

type OutputItems = StreamEventResponseCompleted['response']['output'];

/** The engine output items of a planned step: the assistant message, then function calls. */
function outputItems(plan: StepPlan): OutputItems {
  const output: OutputItems = [];
  if (plan.text !== undefined) {
    output.push({
      type: 'message',
      role: 'assistant',
      status: 'completed',
      ...(plan.messageId === undefined ? {} : { id: plan.messageId }),
      content: [{ type: 'output_text', text: plan.text }],
    });
  }
  for (const call of plan.toolCalls) {
    output.push({
      type: 'function_call',
      status: 'completed',
      id: call.itemId,
      callId: call.callId,
      name: call.name,
      arguments: call.arguments,
    });
  }
  return output;
}

/** An async iterable that rejects on first `next()` (errors surface where the stream is read). */
function failing(error: unknown): AsyncIterable<StreamEvent> {
  return {
    [Symbol.asyncIterator]: () => ({ next: () => Promise.reject(error) }),
  };
}

/** A short rendering of the last input item of a request, for the exhausted-script error. */
function lastInput(request: ModelRequest): string {
  const { input } = request;
  if (typeof input === 'string') return summarize(input);
  return summarize(input.at(-1));
}
