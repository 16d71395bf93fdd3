/**
 * Instructions a caller adds to an agent's own for one turn (the system and developer
 * messages of an OpenAI API request): kept beside the turn's `RunScope`, never in the
 * compiled agent, which every turn of the definition shares. The compiled agent's
 * instructions read them at each model call and put them after the agent's own, so a
 * caller can add to what an agent is told but never replace it.
 */
import type { Agent as EngineAgent, RunContext } from '@openai/agents-core';
import { asRunScope, type RunScope } from '../../../runtime/run-scope.js';

const added = new WeakMap<RunScope, string>();

/** Add `text` after the agent's instructions for the turn of `scope` (an empty text adds nothing). */
export function addCallerInstructions(scope: RunScope, text: string | undefined): void {
  if (text) added.set(scope, text);
}

/** What the caller added for the turn of `scope`, if anything. */
export function callerInstructions(scope: RunScope): string | undefined {
  return added.get(scope);
}

type Instructions<T> = string | ((runContext: RunContext<T>, agent: EngineAgent<T>) => unknown);

/** The agent's instructions, then (after a blank line) what the turn's caller added. */
export function withCallerInstructions<T>(own: Instructions<T>) {
  return async (runContext: RunContext<T>, agent: EngineAgent<T>): Promise<string> => {
    const base = typeof own === 'string' ? own : String(await own(runContext, agent));
    const scope = asRunScope(runContext.context);
    const extra = scope ? added.get(scope) : undefined;
    return extra ? `${base}\n\n${extra}` : base;
  };
}
