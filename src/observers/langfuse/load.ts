/**
 * The tracing observer's optional packages, imported when it starts (never when agentdeck
 * is imported): a project that does not trace installs none of them. A missing one is a
 * ConfigError that says what to install.
 */
import { ConfigError } from '../../core/errors.js';

/** Everything the tracing observer needs installed. */
export const LANGFUSE_PACKAGES = [
  '@langfuse/tracing',
  '@langfuse/otel',
  '@opentelemetry/api',
  '@opentelemetry/core',
  '@opentelemetry/sdk-trace-base',
  '@opentelemetry/exporter-trace-otlp-http',
] as const;

export const LANGFUSE_INSTALL_COMMAND = `npm install ${LANGFUSE_PACKAGES.join(' ')}`;

export interface LangfuseModules {
  tracing: typeof import('@langfuse/tracing');
  otel: typeof import('@langfuse/otel');
  api: typeof import('@opentelemetry/api');
  sdk: typeof import('@opentelemetry/sdk-trace-base');
}

export async function loadLangfuse(): Promise<LangfuseModules> {
  const [tracing, otel, api, sdk] = await Promise.all([
    importOptional('@langfuse/tracing', () => import('@langfuse/tracing')),
    importOptional('@langfuse/otel', () => import('@langfuse/otel')),
    importOptional('@opentelemetry/api', () => import('@opentelemetry/api')),
    importOptional('@opentelemetry/sdk-trace-base', () => import('@opentelemetry/sdk-trace-base')),
  ]);
  return { tracing, otel, api, sdk };
}

/** Import an optional package; when it (or one it needs) is not installed, a ConfigError naming the install command. */
export async function importOptional<T>(specifier: string, load: () => Promise<T>): Promise<T> {
  try {
    return await load();
  } catch (error) {
    if (!isModuleNotFound(error)) throw error;
    throw new ConfigError(
      `the Langfuse tracing observer needs '${specifier}' (an optional peer dependency of agentdeck), ` +
        `which could not be loaded: ${(error as Error).message}. Install the tracing packages: ${LANGFUSE_INSTALL_COMMAND}`,
      { cause: error },
    );
  }
}

function isModuleNotFound(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  if (code === 'ERR_MODULE_NOT_FOUND' || code === 'MODULE_NOT_FOUND') return true;
  return /Cannot find (package|module)|Failed to (load|resolve)/i.test(String(error));
}
