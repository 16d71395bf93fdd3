/**
 * The agent engine's own spans, in a neutral form. An engine records spans of its own
 * (agent, model response, function call...) that the canonical events do not carry; an
 * observer that asks for them (the Langfuse observer's `sdkSpans`) receives them through
 * this port, so no observer imports an engine.
 *
 * Tested in test/engine-spans.test.ts and src/observers/langfuse/langfuse.test.ts.
 */

/** One finished engine span that belongs to one of our runs. */
export interface EngineSpan {
  /** Our run the span belongs to. */
  runId: string;
  sessionId: string | null;
  /** The agent the caller addressed. */
  origin: string;
  /** The engine's own ids: the span, its parent span (`null` at the top of the engine's trace). */
  spanId: string;
  parentId: string | null;
  /** The engine's span kind (`agent`, `response`, `generation`, `function`, `handoff`, ...). */
  type: string;
  name: string;
  /** ISO timestamps, when the engine recorded them. */
  startedAt: string | null;
  endedAt: string | null;
  /** Scalar facts of the span (model, token counts, tool names); never inputs or outputs. */
  attributes: Record<string, string | number | boolean>;
  /** Token counts, when the span is a model call that reported them. */
  usage: { inputTokens: number; outputTokens: number } | null;
  error: string | null;
}

/** Receives engine spans; called inline by the engine, so it must only do in-memory work. */
export type EngineSpanSink = (span: EngineSpan) => void;
