/**
 * The engine's process-wide trace processors: exactly the ones the deck asked for. Importing
 * `@openai/agents-core` registers a default processor that prints every trace and span to
 * stdout (`[Exporter] Export span ...`, its `ConsoleSpanExporter`); it stays silent while
 * tracing is off, which is how a deck runs unless an observer wants the engine's spans
 * (`sdkSpans`) or `SERVICE_SDK_TRACING=true` sends them to OpenAI. Either turns tracing on, so
 * the first processor the deck installs replaces the whole list (the SDK's own way to discard
 * its default, as `setDefaultOpenAITracingExporter()` does) and later ones are added to it.
 * A processor registered by other code before that is dropped with the default; one added
 * after stays.
 */
import {
  addTraceProcessor,
  BatchTraceProcessor,
  setTraceProcessors,
  type TracingProcessor,
} from '@openai/agents-core';
import { OpenAITracingExporter } from '@openai/agents-openai';

let installed = false;
let openAIExport: TracingProcessor | null = null;

/** Add `processor` to the engine's trace processors, the SDK's default dropped the first time. */
export function installTraceProcessor(processor: TracingProcessor): void {
  if (installed) {
    addTraceProcessor(processor);
  } else {
    setTraceProcessors([processor]);
    installed = true;
  }
}

/** `SERVICE_SDK_TRACING=true`: the engine exports its traces to OpenAI (installed once). */
export function exportTracesToOpenAI(): void {
  if (openAIExport) return;
  openAIExport = new BatchTraceProcessor(new OpenAITracingExporter());
  installTraceProcessor(openAIExport);
}
