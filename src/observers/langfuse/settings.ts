/**
 * The tracing observer's settings, read from the environment (SPEC.md, Authentication item
 * 3): two outbound credentials for Langfuse, and its host.
 */

/** Langfuse Cloud (EU), the host when `SERVICE_TRACER_BASE_URL` is not set. */
export const LANGFUSE_CLOUD_URL = 'https://cloud.langfuse.com';

export interface TracerSettings {
  /** `SERVICE_TRACER_PUBLIC_KEY`. */
  publicKey: string | undefined;
  /** `SERVICE_TRACER_SECRET_KEY`. */
  secretKey: string | undefined;
  /** `SERVICE_TRACER_BASE_URL`. @default LANGFUSE_CLOUD_URL */
  baseUrl: string;
}

export function tracerSettingsFromEnv(env: NodeJS.ProcessEnv = process.env): TracerSettings {
  return {
    publicKey: env.SERVICE_TRACER_PUBLIC_KEY?.trim() || undefined,
    secretKey: env.SERVICE_TRACER_SECRET_KEY?.trim() || undefined,
    baseUrl: (env.SERVICE_TRACER_BASE_URL?.trim() || LANGFUSE_CLOUD_URL).replace(/\/+$/, ''),
  };
}

/** Whether the environment configures tracing: both keys are set. */
export function tracingConfigured(env: NodeJS.ProcessEnv = process.env): boolean {
  const { publicKey, secretKey } = tracerSettingsFromEnv(env);
  return publicKey !== undefined && secretKey !== undefined;
}
