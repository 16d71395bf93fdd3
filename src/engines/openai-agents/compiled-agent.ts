/**
 * What `compile/` hands to `turn/`, the one file both wings import: the compiled agent, the
 * fact about its tools that decides which loop may play it, and the approval policy every
 * tool of ours carries, which is how a turn's pause reaches a tool the engine is about to
 * dispatch. `compile/` imports nothing else from `turn/`, and `turn/` nothing from
 * `compile/` but the tool ledger.
 */
import type { Agent as EngineAgent, RunContext } from '@openai/agents-core';
import { asRunScope } from '../../runtime/run-scope.js';

/**
 * The engine agent a definition compiles to. One per definition and engine, shared by every
 * turn of that definition (live or not), so nothing of one turn may be kept on it (the MCP
 * servers the engine sets on it before each turn are the deck's, the same for every turn).
 */
// biome-ignore lint/suspicious/noExplicitAny: the engine's and the catalog's types are generic over any agent
export type CompiledAgent = EngineAgent<any, any>;

/** A compiled definition: its engine agent, and what the choice of turn loop needs to know of it. */
export interface Compiled {
  readonly agent: CompiledAgent;
  /**
   * Every tool is the deck's own (a `tool()`, a workflow listed as a tool, `load_skill`): each
   * sends its output back to the model as text and records its value itself, which is what
   * the plain loop relies on (`turn/turn-loop.ts`). A tool built for the engine directly may
   * return values other than text, which the runner's tool hook would not tell.
   */
  readonly ownToolsOnly: boolean;
}

/**
 * The approval policy of our tools (the safe point before a tool is dispatched, SPEC.md
 * "Agent run control"): approval is asked, and so the engine stops with the call
 * undispatched and a resumable state, exactly when the run's pause is pending. Read through
 * the engine's run context, which is the turn's `RunScope`; a headless run has none and never
 * pauses. On resume the held calls are asked again (`turn/safe-points.ts`) and run once.
 */
export async function pauseBeforeDispatch(runContext: RunContext<unknown>): Promise<boolean> {
  return asRunScope(runContext.context)?.pauseRequested() ?? false;
}
