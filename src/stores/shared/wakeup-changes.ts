/**
 * What a checkpointer's `putWrites` means for a task's timer, for the timer indexes of the
 * SQLite and Postgres checkpointers (`lg_wakeups`, `agentdeck_wakeups`): both keep one row
 * per interrupted task, so finding the due threads, and the next wake-up, reads an index.
 */
import { INTERRUPT, RESUME } from '@langchain/langgraph-checkpoint';
import { wakeTimeOf } from '../../core/wakeups.js';

/** What one `putWrites` call means for the task's timer. */
export type WakeupChange =
  | { kind: 'set'; wakeAtMs: number; wakeAt: string }
  | { kind: 'clear' }
  | { kind: 'keep' };

/**
 * The task's timer after these writes. An interrupt write replaces the task's interrupt: it
 * sets the earliest timer among its interrupts, or clears the timer when none is a timer (the
 * task now waits on a person). Writes of a task that finished clear it. Resume writes alone
 * keep it: the resumed run may still crash, and the timer must then fire again.
 */
export function wakeupChange(writes: readonly (readonly [string, unknown])[]): WakeupChange {
  const interrupts = writes.filter(([channel]) => channel === INTERRUPT);
  if (interrupts.length === 0) {
    return writes.every(([channel]) => channel === RESUME) ? { kind: 'keep' } : { kind: 'clear' };
  }
  let earliest: number | null = null;
  for (const [, value] of interrupts) {
    for (const item of Array.isArray(value) ? value : [value]) {
      const when = wakeTimeOf(isRecord(item) && 'value' in item ? item.value : item);
      const ms = when === null ? Number.NaN : Date.parse(when);
      if (!Number.isNaN(ms) && (earliest === null || ms < earliest)) earliest = ms;
    }
  }
  if (earliest === null) return { kind: 'clear' };
  return { kind: 'set', wakeAtMs: earliest, wakeAt: new Date(earliest).toISOString() };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null;
}
