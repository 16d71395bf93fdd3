/**
 * Runtime settings, read from the environment when the deck opens.
 *
 * Tested in src/deck/stale-claims.test.ts (read from the environment, and refused when invalid).
 */
import { ConfigError } from '../core/errors.js';
import { MODEL_CALL_RECORDINGS, type ModelCallRecording } from '../core/model-calls.js';

export interface RuntimeSettings {
  /**
   * `SERVICE_RUNTIME_STALE_RUN_AFTER_SECONDS`: a session/thread claim older than this is
   * taken over, and the run that held it is closed with `run.failed`. @default 3600
   */
  staleRunAfterSeconds: number;
  /**
   * `SERVICE_RUNTIME_CONTROL_POLL_MS`: how often a process reads the pause and cancel
   * requests of the runs it plays (requests made in the same process are seen at once).
   * @default 200
   */
  controlPollMs: number;
  /**
   * `SERVICE_RUNTIME_HEARTBEAT_SECONDS`: how often a live run renews its claim. A live run's
   * claim not renewed for three of these is stale (its process is taken to be gone) and is
   * taken over at once, whatever the stale-run timeout; a paused run's kept claim is not
   * renewed and follows the timeout. @default 10
   */
  heartbeatSeconds: number;
  /**
   * `SERVICE_RETENTION_DAYS`: runs that ended longer ago than this are removed, with the
   * checkpoints of workflow threads all of whose runs are gone (retention.ts); `null` keeps
   * every run forever. Every open deck with background work (the default of `open()`;
   * `serve()`, `agentdeck serve`) sweeps by itself. @default null
   */
  retentionDays: number | null;
  /**
   * `SERVICE_QUEUE_CONCURRENCY`: how many background runs this process plays at once, taken
   * from the queue (runtime/queue-worker.ts); `0` takes none. @default 4
   */
  queueConcurrency: number;
  /**
   * `SERVICE_QUEUE_POLL_MS`: how often an idle worker looks at the queue without being told
   * (on Postgres every enqueue is told at once; on SQLite, other processes' are found so).
   * @default 500
   */
  queuePollMs: number;
  /**
   * `SERVICE_RECORD_MODEL_CALLS`: what each agent turn records of its model requests
   * (`model.call.started` / `model.call.completed`): `on` the request and response in full,
   * `metadata` without their bodies, `off` nothing. @default `on`, `metadata` when
   * `NODE_ENV=production`
   */
  recordModelCalls: ModelCallRecording;
}

export const DEFAULT_CONTROL_POLL_MS = 200;

export const DEFAULT_STALE_RUN_AFTER_SECONDS = 3600;
export const DEFAULT_HEARTBEAT_SECONDS = 10;
export const DEFAULT_QUEUE_CONCURRENCY = 4;
export const DEFAULT_QUEUE_POLL_MS = 500;

export function runtimeSettingsFromEnv(env: NodeJS.ProcessEnv = process.env): RuntimeSettings {
  return {
    staleRunAfterSeconds: positive(
      env,
      'SERVICE_RUNTIME_STALE_RUN_AFTER_SECONDS',
      DEFAULT_STALE_RUN_AFTER_SECONDS,
      'seconds',
    ),
    heartbeatSeconds: positive(
      env,
      'SERVICE_RUNTIME_HEARTBEAT_SECONDS',
      DEFAULT_HEARTBEAT_SECONDS,
      'seconds',
    ),
    controlPollMs: positive(
      env,
      'SERVICE_RUNTIME_CONTROL_POLL_MS',
      DEFAULT_CONTROL_POLL_MS,
      'milliseconds',
    ),
    retentionDays: env.SERVICE_RETENTION_DAYS?.trim()
      ? positive(env, 'SERVICE_RETENTION_DAYS', 0, 'days')
      : null,
    queueConcurrency: wholeNumber(env, 'SERVICE_QUEUE_CONCURRENCY', DEFAULT_QUEUE_CONCURRENCY),
    queuePollMs: positive(env, 'SERVICE_QUEUE_POLL_MS', DEFAULT_QUEUE_POLL_MS, 'milliseconds'),
    recordModelCalls: modelCallRecording(env),
  };
}

/** `SERVICE_RECORD_MODEL_CALLS`, else `on` (`metadata` in production: no bodies kept by default). */
function modelCallRecording(env: NodeJS.ProcessEnv): ModelCallRecording {
  const raw = env.SERVICE_RECORD_MODEL_CALLS?.trim().toLowerCase();
  if (raw === undefined || raw === '') return env.NODE_ENV === 'production' ? 'metadata' : 'on';
  if ((MODEL_CALL_RECORDINGS as readonly string[]).includes(raw)) return raw as ModelCallRecording;
  throw new ConfigError(
    `SERVICE_RECORD_MODEL_CALLS=${env.SERVICE_RECORD_MODEL_CALLS} is not one of ${MODEL_CALL_RECORDINGS.join(', ')}`,
  );
}

function positive(env: NodeJS.ProcessEnv, name: string, fallback: number, unit: string): number {
  const raw = env[name];
  if (raw === undefined || raw.trim() === '') return fallback;
  const value = Number(raw);
  if (!Number.isFinite(value) || value <= 0) {
    throw new ConfigError(`${name}=${raw} is not a positive number of ${unit}`);
  }
  return value;
}

function wholeNumber(env: NodeJS.ProcessEnv, name: string, fallback: number): number {
  const raw = env[name];
  if (raw === undefined || raw.trim() === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 0) {
    throw new ConfigError(`${name}=${raw} is not a whole number of at least 0`);
  }
  return value;
}
