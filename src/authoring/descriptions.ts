/**
 * What an agent or a workflow is for, in one sentence, for the people reading the catalog and
 * for other agents' models choosing a tool (the MCP server's tools, the A2A cards): the
 * `description` its author wrote, or a sentence generated from its name and tools. Never
 * empty: a host shows an empty description as a tool nobody can pick (langgraph#5366).
 */
import { ConfigError } from '../core/errors.js';
import { snakeCase } from '../core/names.js';
import type { AgentDefinition } from './agent-definition.js';
import { isWorkflowDefinition, type WorkflowDefinition } from './workflow-definition.js';

/**
 * Check a `description` option: absent, or a string with something in it. `where` names the
 * definition in the error, e.g. "agent 'Greeter'".
 */
export function checkDescription(where: string, value: unknown): string | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'string' || value.trim() === '') {
    throw new ConfigError(
      `${where}: \`description\` must be a non-empty string saying what it does, got ${
        typeof value === 'string' ? 'an empty string' : (JSON.stringify(value) ?? typeof value)
      }; leave it out to get a sentence generated from the name and tools`,
    );
  }
  return value.trim();
}

/**
 * The description of an agent or a workflow: its own, or a generated sentence naming it and
 * (for an agent) its tools, skills and MCP servers.
 * @example descriptionOf(new Agent({ name: 'Greeter' })) // "Talk to the agent 'Greeter' (it has no tools)."
 */
export function descriptionOf(definition: AgentDefinition | WorkflowDefinition): string {
  if (definition.description !== undefined) return definition.description;
  return isWorkflowDefinition(definition)
    ? `Run the workflow '${definition.name}' from an initial state; the result is its final state, or what it waits for.`
    : agentSentence(definition);
}

function agentSentence(agent: AgentDefinition): string {
  const tools = agent.tools.map((t) => (isWorkflowDefinition(t) ? snakeCase(t.name) : t.name));
  const abilities: string[] = [];
  if (tools.length > 0) abilities.push(`call the ${plural('tool', tools)} ${listed(tools)}`);
  if (agent.skills.length > 0) {
    abilities.push(`read the ${plural('skill', agent.skills)} ${listed(agent.skills)}`);
  }
  if (agent.mcpServers.length > 0) {
    abilities.push(
      `use the tools of the MCP ${plural('server', agent.mcpServers)} ${listed(agent.mcpServers)}`,
    );
  }
  if (abilities.length === 0) return `Talk to the agent '${agent.name}' (it has no tools).`;
  return `Talk to the agent '${agent.name}', which can ${englishList(abilities)}.`;
}

function plural(noun: string, items: readonly string[]): string {
  return items.length === 1 ? noun : `${noun}s`;
}

function listed(names: readonly string[]): string {
  return englishList(names.map((name) => `'${name}'`));
}

function englishList(items: readonly string[]): string {
  if (items.length <= 1) return items.join('');
  return `${items.slice(0, -1).join(', ')} and ${items.at(-1)}`;
}
