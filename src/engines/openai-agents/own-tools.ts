/**
 * Which compiled tools are the deck's own (deck tools, workflows as tools, `load_skill`):
 * they send their output back to the model as text and record the value themselves, so a
 * turn whose tools are all of them may run on the engine's plain loop (`plain-turn.ts`).
 */

const OWN_TOOLS = new WeakSet<object>();

/** Mark a compiled tool as the deck's own. */
export function ownTool<T extends object>(tool: T): T {
  OWN_TOOLS.add(tool);
  return tool;
}

/**
 * Whether a turn of `agent` may run on the plain loop: all its tools are the deck's own (a
 * tool built for the engine directly may return values other than text, which its hook
 * would not tell), and it uses no MCP server (whose tools come and go with the server).
 */
export function fitsPlainLoop(agent: {
  tools: readonly object[];
  mcpServers: readonly unknown[];
}): boolean {
  return agent.mcpServers.length === 0 && agent.tools.every((tool) => OWN_TOOLS.has(tool));
}
