/**
 * RunStatus is never stored: it is folded from a run's events, so every process that can
 * read the log agrees on it.
 */
import type { Event } from './events.js';

export type RunStatus =
  | 'pending'
  /** A background run waiting in the queue for a worker (`run.queued`). */
  | 'queued'
  | 'running'
  | 'paused'
  | 'waiting_human'
  | 'completed'
  | 'failed'
  | 'cancelled';

/** Every status, in the order a run usually passes through them. */
export const RUN_STATUSES = [
  'pending',
  'queued',
  'running',
  'paused',
  'waiting_human',
  'completed',
  'failed',
  'cancelled',
] as const satisfies readonly RunStatus[];

export const TERMINAL_STATUSES: readonly RunStatus[] = ['completed', 'failed', 'cancelled'];

/** Fold a run's events (in seq order) into its status; `null` for no events. */
export function foldStatus(events: Iterable<Event>): RunStatus | null {
  let status: RunStatus | null = null;
  for (const event of events) {
    status = nextStatus(status, event);
  }
  return status;
}

/** One step of the fold. Terminal statuses never change. */
export function nextStatus(current: RunStatus | null, event: Event): RunStatus {
  if (current && TERMINAL_STATUSES.includes(current)) return current;
  switch (event.kind) {
    case 'run.queued':
      return 'queued';
    case 'run.started':
    case 'run.resumed':
      return 'running';
    case 'run.paused':
      return 'paused';
    case 'run.interrupted':
      return 'waiting_human';
    case 'run.completed':
      return 'completed';
    case 'run.failed':
      return 'failed';
    case 'run.cancelled':
      return 'cancelled';
    default:
      return current ?? 'pending';
  }
}
