/** Runtime settings, read from the environment when the deck opens. */
import { ConfigError } from '../core/errors.js';

export interface RuntimeSettings {
  /**
   * `SERVICE_RUNTIME_STALE_RUN_AFTER_SECONDS`: a session/thread claim older than this is
   * taken over, and the run that held it is closed with `run.failed`. @default 3600
   */
  staleRunAfterSeconds: number;
}

export const DEFAULT_STALE_RUN_AFTER_SECONDS = 3600;

export function runtimeSettingsFromEnv(env: NodeJS.ProcessEnv = process.env): RuntimeSettings {
  const raw = env.SERVICE_RUNTIME_STALE_RUN_AFTER_SECONDS;
  if (raw === undefined || raw.trim() === '') {
    return { staleRunAfterSeconds: DEFAULT_STALE_RUN_AFTER_SECONDS };
  }
  const value = Number(raw);
  if (!Number.isFinite(value) || value <= 0) {
    throw new ConfigError(
      `SERVICE_RUNTIME_STALE_RUN_AFTER_SECONDS=${raw} is not a positive number of seconds`,
    );
  }
  return { staleRunAfterSeconds: value };
}
