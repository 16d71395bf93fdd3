/**
 * A tool call by the name a tool's author gave it, where the model was offered the engine's form
 * of that name, goes to that tool. The engine offers every function tool under
 * `toFunctionToolName(name)` (each character that is not a letter or a digit becomes `_`), so an
 * MCP server's `get-env` is offered, listed in the catalog and recorded as `get_env`; a model that
 * calls `get-env` anyway (as its server, or its own training, names it) would fail the run with
 * `Tool get-env not found`. Such a call is renamed to the name offered; a call whose name was
 * offered, or whose engine form matches nothing offered, is left for the engine to judge.
 */
import type { ModelRequest, ModelResponse } from '@openai/agents-core';
import { toFunctionToolName } from '@openai/agents-core/utils';

/** `response`, with calls by a tool's unconverted name renamed; the same object when none is. */
export function withOfferedNames(request: ModelRequest, response: ModelResponse): ModelResponse {
  const output = withOfferedCallNames(request, response.output);
  return output === response.output ? response : { ...response, output };
}

/**
 * `output` (a response's items, as `ModelResponse` or a stream's `response_done` has them), with
 * calls by a tool's unconverted name renamed; the same array when none is.
 */
export function withOfferedCallNames<T>(request: ModelRequest, output: T[]): T[] {
  let offered: Set<string> | null = null;
  let renamed: T[] | null = null;
  output.forEach((item, index) => {
    const call = item as { type?: unknown; name?: unknown; namespace?: unknown };
    if (call.type !== 'function_call' || typeof call.name !== 'string') return;
    if (call.namespace !== undefined) return;
    offered ??= offeredNames(request);
    if (offered.has(call.name)) return;
    const name = engineForm(call.name);
    if (name === null || !offered.has(name)) return;
    renamed ??= [...output];
    renamed[index] = { ...item, name };
  });
  return renamed ?? output;
}

function offeredNames(request: ModelRequest): Set<string> {
  const names = new Set<string>();
  for (const tool of request.tools) if (tool.type === 'function') names.add(tool.name);
  for (const handoff of request.handoffs) names.add(handoff.toolName);
  return names;
}

/** The engine's form of a tool name, or `null` for a name it refuses (an empty one). */
function engineForm(name: string): string | null {
  try {
    return toFunctionToolName(name);
  } catch {
    return null;
  }
}
