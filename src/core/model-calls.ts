/**
 * What the model saw (#41), read back from a run's events: each `model.call.started` (the
 * request, its large values as digests, each value stored once per run in the `values` of the
 * event that first sent it) paired with its `model.call.completed` (the response). Pure: the
 * HTTP route (`GET /runs/{run_id}/model-calls`), the run inspector and the embedded API all
 * rebuild a request here from the events they already read.
 *
 * Tested in src/deck/model-calls.test.ts.
 */
import type { ModelCallCompleted, ModelCallStarted } from './event-kinds.js';
import type { Event } from './events.js';

/**
 * What a deck records of each model request: `on`, the request and response in full;
 * `metadata`, the model, settings, digests, tokens, latency, finish reason and request id but
 * no bodies; `off`, nothing.
 */
export type ModelCallRecording = 'on' | 'metadata' | 'off';

export const MODEL_CALL_RECORDINGS: readonly ModelCallRecording[] = ['on', 'metadata', 'off'];

/** One model request of a run, rebuilt whole, with its response (absent while it is made). */
export interface ModelCall {
  callId: string;
  model: string | null;
  settings: Record<string, unknown>;
  /** `full`: the bodies below were kept; `metadata`: they are `null` (only digests were kept). */
  detail: 'full' | 'metadata';
  /** The instructions sent, `null` without instructions or without bodies. */
  instructions: unknown;
  /** The tool definitions offered, in order (each `null` when its body was not kept). */
  tools: unknown[];
  /** The input items sent, history included, in order (each `null` when not kept). */
  messages: unknown[];
  /** The digests the request was recorded as (`v:` and 12 hex of a SHA-256), for comparing requests. */
  digests: { instructions: string | null; tools: string[]; messages: string[] };
  output: unknown[] | null;
  finishReason: string | null;
  inputTokens: number | null;
  outputTokens: number | null;
  latencyMs: number | null;
  providerRequestId: string | null;
  /** The request's error message when it failed; `null` otherwise (and while it is made). */
  error: string | null;
  startedAt: string;
  /** When its response ended, `null` while it is made (or when the run stopped during it). */
  endedAt: string | null;
}

/**
 * The model requests of one run, in order, each rebuilt from the values this run's earlier
 * `model.call.started` events carried, paired with its `model.call.completed`.
 *
 * @example
 * ```ts
 * const [first] = modelCallsOf(await deck.events(runId));
 * console.log(first?.model, first?.messages, first?.output);
 * ```
 */
export function modelCallsOf(events: readonly Event[]): ModelCall[] {
  const values = new Map<string, unknown>();
  const calls: ModelCall[] = [];
  const byId = new Map<string, ModelCall>();
  for (const event of events) {
    if (event.kind === 'model.call.started') {
      const started = event.payload;
      for (const [digest, value] of Object.entries(started.values ?? {})) values.set(digest, value);
      const call = startedCall(started, event.ts, values);
      calls.push(call);
      byId.set(call.callId, call);
    } else if (event.kind === 'model.call.completed') {
      const completed = event.payload;
      const call = byId.get(completed.callId);
      if (call) complete(call, completed, event.ts);
    }
  }
  return calls;
}

function startedCall(
  started: ModelCallStarted,
  ts: string,
  values: ReadonlyMap<string, unknown>,
): ModelCall {
  const resolve = (digest: string) => (values.has(digest) ? values.get(digest) : null);
  return {
    callId: started.callId,
    model: started.model,
    settings: started.settings,
    detail: started.detail,
    instructions: started.instructions === null ? null : resolve(started.instructions),
    tools: started.tools.map(resolve),
    messages: started.messages.map(resolve),
    digests: {
      instructions: started.instructions,
      tools: started.tools,
      messages: started.messages,
    },
    output: null,
    finishReason: null,
    inputTokens: null,
    outputTokens: null,
    latencyMs: null,
    providerRequestId: null,
    error: null,
    startedAt: ts,
    endedAt: null,
  };
}

function complete(call: ModelCall, completed: ModelCallCompleted, ts: string): void {
  call.output = completed.output;
  call.finishReason = completed.finishReason;
  call.inputTokens = completed.inputTokens;
  call.outputTokens = completed.outputTokens;
  call.latencyMs = completed.latencyMs;
  call.providerRequestId = completed.providerRequestId;
  call.error = completed.error;
  call.endedAt = ts;
}
