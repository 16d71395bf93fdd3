/**
 * Trace and span ids derived from the run id, so every process that renders a run (the one
 * that started it, the one that answered it after a restart) puts it in the same trace, and
 * a resumed segment can name the run's root observation as its parent without having seen
 * it. The trace id is the one Langfuse's own `createTraceId(runId)` gives (the first 16
 * bytes of SHA-256 of the seed), so a caller holding a run id can find its trace.
 */
import { createHash } from 'node:crypto';
import type { IdGenerator } from '@opentelemetry/sdk-trace-base';

export interface RunIds {
  traceId: string;
  /** The span id of the run's root observation (its first segment). */
  rootSpanId: string;
}

export function runIds(runId: string): RunIds {
  const digest = createHash('sha256').update(runId, 'utf8').digest('hex');
  return { traceId: digest.slice(0, 32), rootSpanId: digest.slice(32, 48) };
}

/** The trace of the engine's own spans for a run (`sdkSpans`): separate from the run's trace, and as stable. */
export function engineTraceId(runId: string): string {
  return runIds(`engine:${runId}`).traceId;
}

/** An OpenTelemetry span id (16 hex digits) derived from any id, such as the engine's own span ids. */
export function spanIdFrom(seed: string): string {
  return createHash('sha256').update(seed, 'utf8').digest('hex').slice(0, 16);
}

/**
 * Random ids, except for the next span started after `assign()`: the tracer asks for a span
 * id, then (for a span without a parent) a trace id, and gets the assigned pair. The
 * renderer assigns the ids just before it starts a run's root span, in the same
 * synchronous step, so nothing else can take them.
 */
export class RunIdGenerator implements IdGenerator {
  #spanId: string | null = null;
  #traceId: string | null = null;

  assign(ids: RunIds): void {
    this.#spanId = ids.rootSpanId;
    this.#traceId = ids.traceId;
  }

  generateSpanId(): string {
    const assigned = this.#spanId;
    this.#spanId = null;
    return assigned ?? randomHex(8);
  }

  generateTraceId(): string {
    const assigned = this.#traceId;
    this.#traceId = null;
    return assigned ?? randomHex(16);
  }
}

function randomHex(bytes: number): string {
  return crypto
    .getRandomValues(new Uint8Array(bytes))
    .reduce((hex, byte) => hex + byte.toString(16).padStart(2, '0'), '');
}
