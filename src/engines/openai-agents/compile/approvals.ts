/**
 * Tool approvals (#19): the one approval policy every tool of a compiled agent carries, which
 * is how the engine is told to stop before dispatching a call. A call stops the turn when a
 * person must approve it (the tool's `needsApproval`, or its name in the agent's
 * `needsApproval` list), or when a pause is pending (the safe point before a tool,
 * `../compiled-agent.ts`). The calls held for a person are marked in the run's ledger, so the
 * turn's end tells them from calls held for a pause (`heldForApproval`), and a call still
 * undecided when a later segment of the run plays is asked again, whatever the policy says
 * then: none runs unapproved. Which held calls wait for a person is read from the ledger
 * (`tool-ledger.ts` `heldForApproval`).
 */
import type { RunContext, Tool } from '@openai/agents-core';
import type { AgentDefinition } from '../../../authoring/agent-definition.js';
import { isDeckTool, type ToolApproval } from '../../../authoring/tool.js';
import { attachFailureDetails } from '../../../core/failure-details.js';
import { asRunScope, contextFor } from '../../../runtime/run-scope.js';
import { pauseBeforeDispatch } from '../compiled-agent.js';
import { toolLedger } from './tool-ledger.js';

/** The engine's `needsApproval` of a tool: approval by a person, or the pause's safe point. */
export type ApprovalGate = (
  runContext: RunContext<unknown>,
  input: unknown,
  callId?: string,
) => Promise<boolean>;

/** The gate of tool `toolName`, whose policy is `policy` (`false`: only pauses hold it). */
export function approvalGate(toolName: string, policy: ToolApproval<never, never>): ApprovalGate {
  if (policy === false) return gateOf(toolName, null);
  if (policy === true) return gateOf(toolName, async () => true);
  const ask = policy as (args: unknown, ctx: unknown) => boolean | Promise<boolean>;
  return gateOf(
    toolName,
    async (runContext, input) =>
      (await ask(input, contextFor(asRunScope(runContext.context)))) === true,
  );
}

function gateOf(toolName: string, asks: ApprovalGate | null): ApprovalGate {
  return async (runContext, input, callId) => {
    const scope = asRunScope(runContext.context);
    const ledger = scope ? toolLedger(scope) : null;
    if (callId !== undefined && ledger?.awaiting.has(callId)) return true;
    if (asks && (await askNamed(toolName, asks, runContext, input, callId))) {
      if (ledger && callId !== undefined) {
        ledger.awaiting.set(callId, { tool: toolName, call_id: callId, arguments: input });
      }
      return true;
    }
    return pauseBeforeDispatch(runContext);
  };
}

/**
 * The tool's own approval policy, asked: what it throws ends the run (the engine does not
 * send it to the model), so it names the tool and the call's arguments for `run.failed`.
 */
async function askNamed(
  toolName: string,
  asks: ApprovalGate,
  runContext: RunContext<unknown>,
  input: unknown,
  callId: string | undefined,
): Promise<boolean> {
  try {
    return await asks(runContext, input, callId);
  } catch (error) {
    throw attachFailureDetails(error, { tool: toolName, input });
  }
}

/** The JSON Schema of the reason for approving `toolName` (`tool({ approvalReason })`), if any. */
export function approvalReasonSchema(
  def: AgentDefinition,
  toolName: string,
): Record<string, unknown> | undefined {
  const found = def.tools.find((t) => isDeckTool(t) && t.name === toolName);
  return found && isDeckTool(found) ? found.approvalReasonSchema : undefined;
}

/** Whether the agent's `needsApproval` list names this tool (or the workflow it runs). */
export function listedForApproval(
  def: AgentDefinition,
  ...names: readonly (string | undefined)[]
): boolean {
  const listed = def.needsApproval ?? [];
  return names.some((name) => name !== undefined && listed.includes(name));
}

/**
 * A tool built elsewhere (an MCP tool, a built `@openai/agents` function tool) with the gate
 * in front of its own policy: its own `needsApproval` still asks, as a function of the call.
 */
export function gatedTool<T extends Tool<never>>(def: AgentDefinition, tool: T): T {
  if (tool.type !== 'function') return tool;
  const own = (tool as { needsApproval?: ApprovalGate }).needsApproval;
  const asks: ApprovalGate | null = listedForApproval(def, tool.name)
    ? async () => true
    : (own ?? null);
  return { ...tool, needsApproval: gateOf(tool.name, asks) };
}
