/**
 * Readiness: whether every backend an open deck was configured with answers now (the event
 * store, the session backend, the checkpointer when it has a server of its own), for a load
 * balancer or an orchestrator's probe (`GET /health/ready`). Liveness stays `GET /health`:
 * a process whose database is down is alive, keeps its runs and serves again when the
 * database is back, so it must not be restarted, only taken out of rotation.
 */
import { DEFAULT_RETRY_AFTER_SECONDS, errorMessage, isBackendOutage } from '../core/errors.js';
import { hasLayout, isPingable, type Pingable, type StoreLayout } from '../core/store.js';
import { eventStoreBackend, sessionBackendName } from './metered-stores.js';
import type { OpenParts } from './open-parts.js';

/** How long one backend may take to answer before it counts as down, in ms. */
export const READINESS_TIMEOUT_MS = 2_000;

/** One backend's answer. */
export interface BackendCheck {
  /** What the deck uses it for. */
  role: 'events' | 'sessions' | 'checkpoints';
  /** `postgres`, `redis`, `sqlite`, `memory`, or `custom` for one passed in. */
  backend: string;
  ok: boolean;
  /** How long it took to answer (or to fail), in ms. */
  ms: number;
  /** What failed, when it did. */
  detail?: string;
}

export interface Readiness {
  ready: boolean;
  checks: BackendCheck[];
  /** Seconds a client should wait before trying again, when not ready. */
  retryAfterSeconds: number;
  /**
   * The event store's schema layout, when it has one (the SQL stores) and answered: its
   * version, this code's, and the oldest layout (and release) that can use it.
   */
  layout?: StoreLayout;
}

/** Ask every configured backend at once; each gets {@link READINESS_TIMEOUT_MS}. */
export async function checkReadiness(
  parts: Pick<OpenParts, 'store' | 'sessions' | 'checkpointer'>,
  timeoutMs = READINESS_TIMEOUT_MS,
): Promise<Readiness> {
  const probes: Promise<BackendCheck>[] = [];
  // A backend that cannot be asked (memory, an in-process SQLite session file) is not listed.
  if (isPingable(parts.store)) {
    probes.push(probe('events', eventStoreBackend(parts.store), parts.store, timeoutMs));
  }
  if (parts.sessions && isPingable(parts.sessions)) {
    probes.push(probe('sessions', sessionBackendName(parts.sessions), parts.sessions, timeoutMs));
  }
  const { checkpointer } = parts;
  if (checkpointer.ping) {
    const ping = checkpointer.ping;
    probes.push(probe('checkpoints', checkpointer.location.backend, { ping }, timeoutMs));
  }
  const store = parts.store;
  // Read beside the probes; a store that cannot answer has already failed its check.
  const layout = hasLayout(store) ? store.layout().catch(() => undefined) : undefined;
  const checks = await Promise.all(probes);
  const found = await layout;
  return {
    ready: checks.every((check) => check.ok),
    checks,
    retryAfterSeconds: DEFAULT_RETRY_AFTER_SECONDS,
    ...(found ? { layout: found } : {}),
  };
}

async function probe(
  role: BackendCheck['role'],
  backend: string,
  target: Pingable,
  timeoutMs: number,
): Promise<BackendCheck> {
  const started = performance.now();
  const ms = () => Math.round((performance.now() - started) * 10) / 10;
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, fail) => {
    timer = setTimeout(
      () => fail(new Error(`${backend} (${role}) did not answer within ${timeoutMs} ms`)),
      timeoutMs,
    );
  });
  try {
    await Promise.race([target.ping(), timeout]);
    return { role, backend, ok: true, ms: ms() };
  } catch (error) {
    const detail = isBackendOutage(error)
      ? errorMessage(error)
      : `${backend} (${role}): ${errorMessage(error)}`;
    return { role, backend, ok: false, ms: ms(), detail };
  } finally {
    clearTimeout(timer);
  }
}
