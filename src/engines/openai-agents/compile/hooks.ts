/**
 * An agent's hooks on the engine's lifecycle events. Each hook method gets the run's
 * Context, checked against what it declared (`needsContext`); hooks observe and do not
 * steer: the engine does not wait for them, and an error in one is logged, not raised.
 */
import type { Agent as EngineAgent } from '@openai/agents-core';
import type { AgentHooks, HOOK_METHODS } from '../../../authoring/agent-definition.js';
import { declaredRequirement } from '../../../authoring/context.js';
import { errorMessage } from '../../../core/errors.js';
import { log } from '../../../core/log.js';
import { contextFor, type RunScope } from '../../../runtime/run-scope.js';
import { checkScope } from './scope-check.js';

export function attachHooks(
  agent: EngineAgent<RunScope | undefined>,
  name: string,
  hooks: AgentHooks,
) {
  const guard = (hook: string, fn: () => void | Promise<void>) => {
    Promise.resolve()
      .then(fn)
      .catch((error) =>
        log.error(`[agentdeck] hook ${hook} of agent '${name}' failed: ${errorMessage(error)}`),
      );
  };
  /** The Context for a hook method, after checking the value against what it declared. */
  const contextOf = (hook: (typeof HOOK_METHODS)[number], engineContext: unknown) => {
    const requirement = declaredRequirement(hooks[hook]);
    if (requirement)
      checkScope(requirement, engineContext, `hook method ${hook} of agent '${name}'`);
    return contextFor(engineContext);
  };
  const { onStart, onEnd, onToolStart, onToolEnd } = hooks;
  if (onStart) {
    agent.on('agent_start', (rc) =>
      guard('onStart', () => onStart.call(hooks, contextOf('onStart', rc.context))),
    );
  }
  if (onEnd) {
    agent.on('agent_end', (rc, output) =>
      guard('onEnd', () => onEnd.call(hooks, contextOf('onEnd', rc.context), output)),
    );
  }
  if (onToolStart) {
    agent.on('agent_tool_start', (rc, t) =>
      guard('onToolStart', () =>
        onToolStart.call(hooks, contextOf('onToolStart', rc.context), t.name),
      ),
    );
  }
  if (onToolEnd) {
    agent.on('agent_tool_end', (rc, t, result) =>
      guard('onToolEnd', () =>
        onToolEnd.call(hooks, contextOf('onToolEnd', rc.context), t.name, result),
      ),
    );
  }
}
