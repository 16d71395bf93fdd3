/**
 * Renders canonical events as Langfuse observations (OpenTelemetry spans carrying Langfuse's
 * attributes), one trace per run, the same shape for agent turns and workflow runs:
 *
 * - the run's root observation (named after the agent or workflow) spans its first segment,
 *   from `run.started` to the event that ends or pauses it; a resumed segment
 *   (`run.resumed`, perhaps in another process) is a child of that root, found by id;
 * - tool calls are `tool` observations, workflow nodes `chain` observations, and each
 *   `usage.reported` a `generation` with its model, token counts and cost, and as its input
 *   the request the model saw (`model.call.started`, when recorded with its bodies);
 * - a failed run sets level ERROR, a cancelled one WARNING, with the reason as status message.
 *
 * Times come from the events' own timestamps, so a backlog in the observer's queue does not
 * distort the trace. Only event payloads are rendered: the run context is never recorded,
 * so it cannot appear here.
 */
import type { Attributes, Context, Span, Tracer } from '@opentelemetry/api';
import type { Event, KnownEvent } from '../../core/events.js';
import {
  endFields,
  type Fields,
  type ObservationType,
  renderBlocks,
  type SegmentEnd,
  textOf,
} from './fields.js';
import { type RunIdGenerator, runIds } from './ids.js';
import type { LangfuseModules } from './load.js';

interface PendingGeneration {
  span: Span;
  end: Date;
  text: string | null;
  calls: { name: string; arguments: unknown }[];
}

/** What the renderer holds for a run between the event that opens a segment and the one that ends it. */
interface Segment {
  span: Span;
  children: Context;
  trace: Attributes;
  tools: Map<string, Span>;
  generation: PendingGeneration | null;
  /** Where the next generation or node starts: the last step's end. */
  boundary: Date;
  /** The values this segment's model calls stored (`model.call.started`), by digest. */
  values: Map<string, unknown>;
  /** The model request whose usage comes next, rebuilt: the next generation's input. */
  request: { instructions: unknown; messages: unknown[] } | null;
}

/** Open segments kept at most; past it the oldest (a run whose end was never seen) is closed. */
const MAX_OPEN_SEGMENTS = 10_000;

export class TraceRenderer {
  readonly #segments = new Map<string, Segment>();

  constructor(
    private readonly modules: LangfuseModules,
    private readonly tracer: Tracer,
    private readonly ids: RunIdGenerator,
  ) {}

  render(event: Event): void {
    if (event.kind === 'unknown') return;
    if (event.kind === 'run.started' || event.kind === 'run.resumed') {
      this.#open(event);
      return;
    }
    const segment = this.#segments.get(event.runId) ?? this.#open(event);
    const at = new Date(event.ts);
    switch (event.kind) {
      case 'model.call.started': {
        // What the model saw becomes the input of the generation its usage opens.
        const { values, instructions, messages, detail } = event.payload;
        for (const [digest, value] of Object.entries(values)) segment.values.set(digest, value);
        const resolve = (digest: string) => segment.values.get(digest) ?? null;
        segment.request =
          detail === 'full'
            ? {
                instructions: instructions === null ? null : resolve(instructions),
                messages: messages.map(resolve),
              }
            : null;
        return;
      }
      case 'usage.reported': {
        this.#settleGeneration(segment);
        const { model, inputTokens, outputTokens, totalTokens, usd } = event.payload;
        const request = segment.request;
        segment.request = null;
        const span = this.#child(segment, 'generation', model ?? 'model', segment.boundary, {
          ...(request ? { input: request } : {}),
          ...(model ? { model } : {}),
          usageDetails: { input: inputTokens, output: outputTokens, total: totalTokens },
          ...(usd !== null ? { costDetails: { total: usd } } : {}),
        });
        segment.generation = { span, end: at, text: null, calls: [] };
        segment.boundary = at;
        return;
      }
      case 'message.completed':
        if (segment.generation) segment.generation.text = textOf(event.payload.content);
        return;
      case 'tool.call.started': {
        const { callId, name } = event.payload;
        segment.generation?.calls.push({ name, arguments: event.payload.arguments });
        const span = this.#child(segment, 'tool', name, at, {
          input: event.payload.arguments,
          metadata: { call_id: callId },
        });
        segment.tools.set(callId, span);
        return;
      }
      case 'tool.call.completed': {
        this.#settleGeneration(segment);
        const { callId, name, output, error } = event.payload;
        const span =
          segment.tools.get(callId) ?? this.#child(segment, 'tool', name, at, { input: null });
        segment.tools.delete(callId);
        this.#update(span, 'tool', error ? { level: 'ERROR', statusMessage: error } : { output });
        span.end(at);
        segment.boundary = at;
        return;
      }
      case 'node.updated': {
        this.#settleGeneration(segment);
        const span = this.#child(segment, 'chain', event.payload.node, segment.boundary, {
          output: event.payload.delta,
        });
        span.end(at);
        segment.boundary = at;
        return;
      }
      case 'status.reported': {
        const { level, message } = event.payload;
        const levels = { info: 'DEFAULT', warning: 'WARNING', error: 'ERROR' } as const;
        this.#child(segment, 'event', 'status', at, {
          level: levels[level],
          statusMessage: message,
        }).end(at);
        return;
      }
      case 'run.completed':
      case 'run.failed':
      case 'run.cancelled':
      case 'run.interrupted':
      case 'run.paused':
        this.#close(segment, event);
        return;
      default:
        // Deltas (the message arrives whole), control and progress events: not rendered.
        return;
    }
  }

  /** End every open segment (the deck is closing); their runs' ends were not seen. */
  closeAll(reason: string): void {
    for (const segment of this.#segments.values()) this.#abandon(segment, reason, new Date());
    this.#segments.clear();
  }

  /** Start a segment: the run's root observation, or a child of it (resumed, or first seen mid-run). */
  #open(event: KnownEvent): Segment {
    const { api } = this.modules;
    const ids = runIds(event.runId);
    const at = new Date(event.ts);
    const trace: Attributes = this.#traceAttributes(event);
    const metadata = {
      run_id: event.runId,
      namespace: event.namespace,
      ...(event.kind === 'run.started' ? { invocable_type: event.payload.invocableType } : {}),
    };
    let span: Span;
    if (event.kind === 'run.started') {
      const input = renderBlocks(event.payload.input);
      this.ids.assign(ids);
      span = this.tracer.startSpan(
        event.origin,
        {
          startTime: at,
          attributes: {
            ...this.#attributes('span', { input, metadata }),
            ...this.modules.tracing.createTraceAttributes({ input }),
            ...trace,
          },
        },
        api.ROOT_CONTEXT,
      );
    } else {
      const root = api.trace.setSpanContext(api.ROOT_CONTEXT, {
        traceId: ids.traceId,
        spanId: ids.rootSpanId,
        traceFlags: api.TraceFlags.SAMPLED,
        isRemote: true,
      });
      const name = `${event.origin} ${event.kind === 'run.resumed' ? 'resumed' : 'continued'}`;
      const attributes = { ...this.#attributes('span', { metadata }), ...trace };
      span = this.tracer.startSpan(name, { startTime: at, attributes }, root);
    }
    const segment: Segment = {
      span,
      children: api.trace.setSpan(api.ROOT_CONTEXT, span),
      trace,
      tools: new Map(),
      generation: null,
      boundary: at,
      values: new Map(),
      request: null,
    };
    this.#segments.set(event.runId, segment);
    if (this.#segments.size > MAX_OPEN_SEGMENTS) {
      const [oldestRun, oldest] = this.#segments.entries().next().value as [string, Segment];
      this.#abandon(oldest, 'its end was never seen by this observer', at);
      this.#segments.delete(oldestRun);
    }
    return segment;
  }

  #close(segment: Segment, event: SegmentEnd): void {
    const at = new Date(event.ts);
    this.#settleGeneration(segment);
    const fields = endFields(event);
    for (const tool of segment.tools.values()) {
      this.#update(tool, 'tool', {
        level: 'WARNING',
        statusMessage: `the run ended (${event.kind}) before the tool call completed`,
      });
      tool.end(at);
    }
    this.#update(segment.span, 'span', fields);
    if (event.kind === 'run.completed') {
      segment.span.setAttributes(
        this.modules.tracing.createTraceAttributes({ output: fields.output }),
      );
    }
    if (fields.level === 'ERROR') {
      segment.span.setStatus({
        code: this.modules.api.SpanStatusCode.ERROR,
        message: fields.statusMessage ?? '',
      });
    }
    segment.span.end(at);
    this.#segments.delete(event.runId);
  }

  #abandon(segment: Segment, reason: string, at: Date): void {
    this.#settleGeneration(segment);
    for (const tool of segment.tools.values()) tool.end(at);
    this.#update(segment.span, 'span', { level: 'WARNING', statusMessage: reason });
    segment.span.end(at);
  }

  #settleGeneration(segment: Segment): void {
    const pending = segment.generation;
    if (!pending) return;
    segment.generation = null;
    const output =
      pending.text ?? (pending.calls.length > 0 ? { tool_calls: pending.calls } : null);
    if (output !== null) this.#update(pending.span, 'generation', { output });
    pending.span.end(pending.end);
  }

  #child(segment: Segment, type: ObservationType, name: string, at: Date, fields: Fields): Span {
    const attributes = { ...this.#attributes(type, fields), ...segment.trace };
    return this.tracer.startSpan(name, { startTime: at, attributes }, segment.children);
  }

  #update(span: Span, type: ObservationType, fields: Fields): void {
    span.setAttributes(this.#attributes(type, fields));
  }

  #attributes(type: ObservationType, fields: Fields): Attributes {
    return this.modules.tracing.createObservationAttributes(type, fields);
  }

  /** Trace-level attributes, set on every observation of the run (as Langfuse's own propagation does). */
  #traceAttributes(event: KnownEvent): Attributes {
    const keys = this.modules.tracing.LangfuseOtelSpanAttributes;
    return {
      [keys.TRACE_NAME]: event.origin,
      ...(event.sessionId !== null ? { [keys.TRACE_SESSION_ID]: event.sessionId } : {}),
    };
  }
}
