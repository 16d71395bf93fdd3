/**
 * The engine's own spans, relayed to observers that ask for them (`sdkSpans`). The engine
 * keeps one process-wide list of trace processors, so one relay is registered the first
 * time spans are wanted and then pointed at the open deck's sink (or at nothing). A turn
 * that should be traced runs with trace metadata naming its run (`turnTraceMetadata`),
 * which is how the relay keeps our runs' spans and ignores any other tracing in the process.
 * The engine records spans without sensitive data, so no inputs or outputs (and never the
 * run context) are in them. They go to the relay (and to OpenAI with `SERVICE_SDK_TRACING`),
 * never to the stdout exporter the engine registers by default (`trace-processors.ts`).
 */
import { getGlobalTraceProvider, type Span, type TracingProcessor } from '@openai/agents-core';
import type { EngineSpan, EngineSpanSink } from '../../runtime/engine-spans.js';
import { installTraceProcessor } from './trace-processors.js';

const RUN_KEY = 'agentdeck_run_id';
const SESSION_KEY = 'agentdeck_session_id';
const ORIGIN_KEY = 'agentdeck_origin';

/** The trace metadata that ties the engine's trace of one turn to our run. */
export function turnTraceMetadata(
  runId: string,
  sessionId: string | null,
  origin: string,
): Record<string, string> {
  return {
    [RUN_KEY]: runId,
    [ORIGIN_KEY]: origin,
    ...(sessionId !== null ? { [SESSION_KEY]: sessionId } : {}),
  };
}

class SpanRelay implements TracingProcessor {
  sink: EngineSpanSink | null = null;

  async onTraceStart(): Promise<void> {}
  async onTraceEnd(): Promise<void> {}
  async onSpanStart(): Promise<void> {}
  async onSpanEnd(span: Span<never>): Promise<void> {
    const sink = this.sink;
    if (!sink) return;
    const converted = toEngineSpan(span);
    if (converted) sink(converted);
  }
  async shutdown(): Promise<void> {}
  async forceFlush(): Promise<void> {}
}

let relay: SpanRelay | null = null;

/**
 * Send the engine's spans of our runs to `sink`; `null` stops. Turns the engine's global
 * trace provider on (it starts off under NODE_ENV=test); a runner without tracing still
 * records nothing.
 */
export function relaySpans(sink: EngineSpanSink | null): void {
  if (!relay) {
    if (!sink) return;
    relay = new SpanRelay();
    installTraceProcessor(relay); // never beside the SDK's console exporter
  }
  relay.sink = sink;
  if (sink) getGlobalTraceProvider().setDisabled(false);
}

/** Our neutral form of an engine span, or `null` for a span of a trace that is not one of our runs. */
export function toEngineSpan(span: Span<never>): EngineSpan | null {
  const metadata = span.traceMetadata ?? {};
  const runId = metadata[RUN_KEY];
  if (typeof runId !== 'string') return null;
  const data = span.spanData as Record<string, unknown> & { type: string };
  return {
    runId,
    sessionId: typeof metadata[SESSION_KEY] === 'string' ? metadata[SESSION_KEY] : null,
    origin: String(metadata[ORIGIN_KEY] ?? ''),
    spanId: span.spanId,
    parentId: span.parentId,
    type: data.type,
    name: spanName(data),
    startedAt: span.startedAt,
    endedAt: span.endedAt,
    attributes: scalars(data),
    usage: usageOf(data.usage),
    error: span.error?.message ?? null,
  };
}

function spanName(data: Record<string, unknown> & { type: string }): string {
  if (typeof data.name === 'string' && data.name !== '') return data.name;
  if (data.type === 'turn') return `turn ${String(data.turn)}`;
  if (typeof data.model === 'string') return data.model;
  return data.type;
}

/** Scalar fields (and lists of names), leaving out inputs, outputs and private fields. */
function scalars(data: Record<string, unknown>): Record<string, string | number | boolean> {
  const out: Record<string, string | number | boolean> = {};
  for (const [key, value] of Object.entries(data)) {
    if (key.startsWith('_') || ['input', 'output', 'mcp_data', 'usage', 'type'].includes(key)) {
      continue;
    }
    if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') {
      out[key] = value;
    } else if (Array.isArray(value) && value.every((v) => typeof v === 'string')) {
      out[key] = value.join(', ');
    }
  }
  return out;
}

function usageOf(usage: unknown): EngineSpan['usage'] {
  const u = usage as { input_tokens?: unknown; output_tokens?: unknown } | undefined;
  if (typeof u?.input_tokens !== 'number' && typeof u?.output_tokens !== 'number') return null;
  return {
    inputTokens: typeof u.input_tokens === 'number' ? u.input_tokens : 0,
    outputTokens: typeof u.output_tokens === 'number' ? u.output_tokens : 0,
  };
}
