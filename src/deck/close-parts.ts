/**
 * Closing an open deck's parts (`deck.close()`): the runtime first, which stops the
 * background work and records the cancelled turns' ends (observers still get them), then
 * the rest together; the first failure is thrown once all have been tried.
 */
import type { OpenParts } from './open-parts.js';

/** Close `parts`, and `others` (the workflow engine, the MCP connections) beside them. */
export async function closeParts(
  parts: OpenParts,
  others: readonly ({ close(): Promise<unknown> } | null)[],
): Promise<void> {
  await parts.runtime.close();
  const results = await Promise.allSettled([
    parts.engine.close(),
    ...others.map((other) => other?.close()),
    parts.checkpointer.close(),
    parts.observers.close(),
    parts.sessions?.close(),
    parts.ownsStore ? parts.store.close() : undefined,
  ]);
  const failed = results.find((r) => r.status === 'rejected');
  if (failed) throw (failed as PromiseRejectedResult).reason;
}
