/**
 * Renders the agent engine's own spans (`sdkSpans: true`) as a second Langfuse trace per
 * agent turn, separate from the run's trace (its id is derived from the run id too, with
 * another seed) and named `<agent> (engine)`. The engine hands spans over as it ends them,
 * children before parents, so a turn's spans are held until its top span (the one without
 * a parent) ends, then rendered parents first with real parent links.
 */
import type { Attributes, Context, Span, Tracer } from '@opentelemetry/api';
import type { EngineSpan } from '../../runtime/engine-spans.js';
import { engineTraceId, type RunIdGenerator, spanIdFrom } from './ids.js';
import type { LangfuseModules } from './load.js';

type EngineObservationType = 'span' | 'agent' | 'tool' | 'generation' | 'guardrail';

const TYPES: Record<string, EngineObservationType> = {
  agent: 'agent',
  function: 'tool',
  generation: 'generation',
  response: 'generation',
  guardrail: 'guardrail',
};

/** Turns whose spans are held at most; past it the oldest turn's spans are dropped. */
const MAX_PENDING_TURNS = 1_000;

export class EngineSpanRenderer {
  readonly #pending = new Map<string, EngineSpan[]>();

  constructor(
    private readonly modules: LangfuseModules,
    private readonly tracer: Tracer,
    private readonly ids: RunIdGenerator,
  ) {}

  render(span: EngineSpan): void {
    const held = this.#pending.get(span.runId) ?? [];
    held.push(span);
    if (span.parentId !== null) {
      this.#pending.set(span.runId, held);
      if (this.#pending.size > MAX_PENDING_TURNS) {
        this.#pending.delete(this.#pending.keys().next().value as string);
      }
      return;
    }
    this.#pending.delete(span.runId);
    this.#renderTree(span, held);
  }

  #renderTree(root: EngineSpan, spans: readonly EngineSpan[]): void {
    const { api } = this.modules;
    const children = new Map<string, EngineSpan[]>();
    for (const span of spans) {
      if (span.parentId === null) continue;
      children.set(span.parentId, [...(children.get(span.parentId) ?? []), span]);
    }
    const ended: [Span, Date][] = [];
    const visit = (span: EngineSpan, parent: Context | null) => {
      if (parent === null) {
        this.ids.assign({
          traceId: engineTraceId(span.runId),
          rootSpanId: spanIdFrom(span.spanId),
        });
      }
      const end = span.endedAt ? new Date(span.endedAt) : new Date();
      const start = span.startedAt ? new Date(span.startedAt) : end;
      const otel = this.tracer.startSpan(
        span.name,
        { startTime: start, attributes: this.#attributes(span) },
        parent ?? api.ROOT_CONTEXT,
      );
      if (span.error) otel.setStatus({ code: api.SpanStatusCode.ERROR, message: span.error });
      ended.push([otel, end]);
      const context = api.trace.setSpan(api.ROOT_CONTEXT, otel);
      for (const child of children.get(span.spanId) ?? []) visit(child, context);
    };
    visit(root, null);
    // Children first, as they ended; spans whose parent never arrived are left out.
    for (const [otel, end] of ended.reverse()) otel.end(end);
  }

  #attributes(span: EngineSpan): Attributes {
    const { tracing } = this.modules;
    const type = TYPES[span.type] ?? 'span';
    const keys = tracing.LangfuseOtelSpanAttributes;
    const model = span.attributes.model;
    const usage = span.usage;
    return {
      ...tracing.createObservationAttributes(type, {
        metadata: { ...span.attributes, engine_span_type: span.type, run_id: span.runId },
        ...(span.error ? { level: 'ERROR', statusMessage: span.error } : {}),
        ...(type === 'generation' && typeof model === 'string' ? { model } : {}),
        ...(usage
          ? {
              usageDetails: {
                input: usage.inputTokens,
                output: usage.outputTokens,
                total: usage.inputTokens + usage.outputTokens,
              },
            }
          : {}),
      }),
      [keys.TRACE_NAME]: `${span.origin} (engine)`,
      ...(span.sessionId !== null ? { [keys.TRACE_SESSION_ID]: span.sessionId } : {}),
    };
  }
}
