/**
 * Closing what an open deck started, once its Runtime has stopped: the engines, the
 * checkpointer, the MCP servers, the observers, the sessions and (when the deck opened it)
 * the event store, all attempted; the first failure is thrown after. Tested through
 * `Deck.close()` (src/deck/lifecycle.test.ts).
 */
import type { LangGraphEngine } from '../engines/langgraph/index.js';
import type { McpConnections } from '../engines/openai-agents/index.js';
import type { OpenParts } from './open-parts.js';

export async function closeParts(
  parts: OpenParts,
  workflowEngine: LangGraphEngine | null,
  mcp: McpConnections | null,
): Promise<void> {
  // Stops the background work, and records the cancelled turns' ends, which observers still get.
  await parts.runtime.close();
  const results = await Promise.allSettled([
    parts.engine.close(),
    workflowEngine?.close(),
    parts.checkpointer.close(),
    mcp?.close(),
    parts.observers.close(),
    parts.sessions?.close(),
    parts.ownsStore ? parts.store.close() : undefined,
  ]);
  const failed = results.find((r) => r.status === 'rejected');
  if (failed) throw (failed as PromiseRejectedResult).reason;
}
