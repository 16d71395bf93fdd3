/**
 * Winding down a turn that stopped early (a cancel, a consumer gone) on either loop: the
 * engine finishes what it is doing (it was aborted) before the caller frees the session,
 * bounded so that a stuck tool cannot hold it.
 */

/** How long a turn that stops early waits for the engine to wind down (a tool batch in flight). */
export const SETTLE_MS = 5_000;

/** Wait for `done`, at most `ms`. */
export async function settleWithin(done: Promise<unknown>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([done, new Promise<void>((resolve) => (timer = setTimeout(resolve, ms)))]);
  clearTimeout(timer);
}
