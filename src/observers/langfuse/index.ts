/**
 * `agentdeck/observers/langfuse`: the Langfuse tracing observer. Its packages
 * (`@langfuse/tracing`, `@langfuse/otel` and their OpenTelemetry peers) are optional peer
 * dependencies, imported when the observer starts.
 */
export { LangfuseObserver, type LangfuseObserverOptions } from './observer.js';
export { LANGFUSE_CLOUD_URL } from './settings.js';
