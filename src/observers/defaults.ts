/**
 * Which observers a deck starts (SPEC.md, Observers table): the `observers` option when it
 * is given, even an empty list; otherwise the Langfuse tracing observer when the
 * environment holds both tracer keys, else none, silently.
 */
import { LangfuseObserver } from './langfuse/observer.js';
import { tracingConfigured } from './langfuse/settings.js';
import type { Observer } from './observer.js';

export function resolveObservers(
  option: readonly Observer[] | undefined,
  env: NodeJS.ProcessEnv = process.env,
): readonly Observer[] {
  if (option !== undefined) return option;
  return tracingConfigured(env) ? [new LangfuseObserver()] : [];
}
