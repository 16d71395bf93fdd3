/**
 * The Langfuse tracing observer. It renders each run as a Langfuse trace (`render.ts`) on
 * an OpenTelemetry tracer provider of its own, whose only span processor is Langfuse's
 * `LangfuseSpanProcessor` (OTLP over HTTP to `<host>/api/public/otel/v1/traces`, batched).
 * The provider is private: nothing is registered globally, so an application's own
 * OpenTelemetry or Langfuse setup neither sees these spans nor leaks into them.
 */
import type { BasicTracerProvider } from '@opentelemetry/sdk-trace-base';
import { ConfigError } from '../../core/errors.js';
import type { Event } from '../../core/events.js';
import type { EngineSpan } from '../../runtime/engine-spans.js';
import type { EngineSpanObserver } from '../observer.js';
import { EngineSpanRenderer } from './engine-render.js';
import { RunIdGenerator } from './ids.js';
import { loadLangfuse } from './load.js';
import { TraceRenderer } from './render.js';
import { tracerSettingsFromEnv } from './settings.js';

export interface LangfuseObserverOptions {
  /** The Langfuse public key. @default SERVICE_TRACER_PUBLIC_KEY */
  publicKey?: string;
  /** The Langfuse secret key. @default SERVICE_TRACER_SECRET_KEY */
  secretKey?: string;
  /** The Langfuse host. @default SERVICE_TRACER_BASE_URL, else https://cloud.langfuse.com */
  baseUrl?: string;
  /** Langfuse's `environment` attribute on every observation (e.g. 'production'). */
  environment?: string;
  /** How long one export request may take, retries included, in seconds. @default 5 */
  timeoutSeconds?: number;
  /**
   * Also export the agent engine's own spans, as a second trace per agent turn (separate
   * from the run's trace, not nested in it). @default false
   */
  sdkSpans?: boolean;
}

/**
 * @example
 * // Named explicitly (keys from SERVICE_TRACER_PUBLIC_KEY / SERVICE_TRACER_SECRET_KEY):
 * new Deck({ agents, observers: [new LangfuseObserver({ sdkSpans: true })] });
 * // Or omit `observers`: with both keys set, the deck starts one of these by itself.
 */
export class LangfuseObserver implements EngineSpanObserver {
  readonly name = 'langfuse';
  readonly #options: LangfuseObserverOptions;
  #provider: BasicTracerProvider | null = null;
  #renderer: TraceRenderer | null = null;
  #engineRenderer: EngineSpanRenderer | null = null;

  constructor(options: LangfuseObserverOptions = {}) {
    this.#options = options;
  }

  /** Whether the engine's own spans are wanted too. */
  get sdkSpans(): boolean {
    return this.#options.sdkSpans === true;
  }

  /** Check the keys, import the Langfuse packages and build the private tracer provider. */
  async start(): Promise<void> {
    const settings = tracerSettingsFromEnv();
    const publicKey = this.#options.publicKey ?? settings.publicKey;
    const secretKey = this.#options.secretKey ?? settings.secretKey;
    if (!publicKey || !secretKey) {
      const missing = [
        publicKey ? null : 'SERVICE_TRACER_PUBLIC_KEY',
        secretKey ? null : 'SERVICE_TRACER_SECRET_KEY',
      ].filter(Boolean);
      throw new ConfigError(
        `the Langfuse tracing observer was named but has no keys: set ${missing.join(' and ')} ` +
          "(or pass publicKey and secretKey), or remove it from the deck's observers",
      );
    }
    const modules = await loadLangfuse();
    const ids = new RunIdGenerator();
    const processor = new modules.otel.LangfuseSpanProcessor({
      publicKey,
      secretKey,
      baseUrl: (this.#options.baseUrl ?? settings.baseUrl).replace(/\/+$/, ''),
      // Every span of this private provider is ours: export them all.
      shouldExportSpan: () => true,
      mediaUploadEnabled: false,
      ...(this.#options.environment ? { environment: this.#options.environment } : {}),
      ...(this.#options.timeoutSeconds ? { timeout: this.#options.timeoutSeconds } : {}),
    });
    this.#provider = new modules.sdk.BasicTracerProvider({
      idGenerator: ids,
      spanProcessors: [processor],
    });
    const tracer = this.#provider.getTracer('agentdeck');
    this.#renderer = new TraceRenderer(modules, tracer, ids);
    if (this.sdkSpans) this.#engineRenderer = new EngineSpanRenderer(modules, tracer, ids);
  }

  emit(event: Event): void {
    this.#renderer?.render(event);
  }

  /** With `sdkSpans`, one of the engine's own spans, rendered into the run's engine trace. */
  emitEngineSpan(span: EngineSpan): void {
    this.#engineRenderer?.render(span);
  }

  /** End what is still open, export everything buffered, and shut the provider down. */
  async close(): Promise<void> {
    this.#renderer?.closeAll('the deck closed before the run ended');
    this.#renderer = null;
    this.#engineRenderer = null;
    const provider = this.#provider;
    this.#provider = null;
    if (!provider) return;
    await provider.forceFlush();
    await provider.shutdown();
  }
}
