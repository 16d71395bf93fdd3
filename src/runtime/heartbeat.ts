/**
 * Keeps a claim fresh while its run is alive, so that only a run whose process is gone
 * ever looks stale. If the claim was taken over anyway (the process stalled past the
 * timeout), the run is told through `onLost` and stops.
 */
import { errorMessage } from '../core/errors.js';
import type { EventStore } from '../core/store.js';

/** Stops renewing; resolves once no renewal is in flight (so a release cannot be undone by one). */
export type StopHeartbeat = () => Promise<void>;

export function startHeartbeat(
  store: EventStore,
  key: string,
  runId: string,
  staleAfterMs: number,
  onLost: (holderRunId: string) => void,
): StopHeartbeat {
  let inFlight: Promise<void> | null = null;
  const timer = setInterval(
    () => {
      if (inFlight) return;
      inFlight = store
        .claim({ key, runId, staleAfterMs })
        .then(
          (result) => {
            if (!result.acquired) onLost(result.holder.runId);
          },
          (error) => console.error(`[agentdeck] renewing ${key} failed: ${errorMessage(error)}`),
        )
        .finally(() => {
          inFlight = null;
        });
    },
    Math.max(10, Math.floor(staleAfterMs / 3)),
  );
  timer.unref();
  return async () => {
    clearInterval(timer);
    await inFlight;
  };
}
