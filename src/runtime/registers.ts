/**
 * Registers: a named value shared by every process on one event store, kept in a claim whose
 * holder is the value and which never goes stale (no table of our own). Schedules keep their
 * last fire, last run and pause in them (schedules.ts); `agentdeck serve` keeps the project it
 * serves (surfaces/cli/served-state.ts). A write is a read, a release and a claim: two writers
 * at once may both succeed, the later one's value staying, which suits a last-written value.
 */
import type { Claims } from '../core/store.js';

const FOREVER_MS = Number.MAX_SAFE_INTEGER;

/** The register's value, or `null` when it has none. */
export async function readRegister(store: Claims, register: string): Promise<string | null> {
  return (await store.claimHolder(register))?.runId ?? null;
}

/** Set the register's value (in every process sharing the store, across restarts). */
export async function writeRegister(store: Claims, register: string, value: string): Promise<void> {
  const holder = await store.claimHolder(register);
  if (holder?.runId === value) return;
  if (holder) await store.release(register, holder.runId);
  await store.claim({ key: register, runId: value, staleAfterMs: FOREVER_MS });
}
