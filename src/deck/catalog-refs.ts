/**
 * `build()`'s check of what agents name from the rest of the catalog: the skills they may
 * load, the MCP servers whose tools they use, and the workflows they list as tools (which
 * must be in this deck and not durable: a tool call has no thread to come back to). Every
 * problem is reported at once, naming the agent and what it asked for.
 */
import type { Agent } from '../authoring/agent.js';
import type { Skill } from '../authoring/skills.js';
import { Workflow } from '../authoring/workflow.js';
import { ConfigError } from '../core/errors.js';

// biome-ignore lint/suspicious/noExplicitAny: the catalog's types are generic over any agent
type AnyAgent = Agent<any, any>;

export interface CatalogRefs {
  skills: ReadonlyMap<string, Skill>;
  /** The MCP server names configured (none when the deck has no `mcp`). */
  mcpServers: ReadonlySet<string>;
  workflows: ReadonlyMap<string, Workflow>;
}

const quoted = (names: Iterable<string>) => {
  const list = [...names].sort().map((n) => `'${n}'`);
  return list.length > 0 ? `[${list.join(', ')}]` : 'none';
};

export function checkCatalogRefs(agents: readonly AnyAgent[], refs: CatalogRefs): void {
  const problems: string[] = [];
  for (const agent of agents) {
    for (const name of agent.skills) {
      if (!refs.skills.has(name)) {
        problems.push(
          `agent '${agent.name}' lists skill '${name}', which the deck does not have. Available: ${quoted(refs.skills.keys())}`,
        );
      }
    }
    for (const name of agent.mcpServers) {
      if (!refs.mcpServers.has(name)) {
        problems.push(
          `agent '${agent.name}' uses MCP server '${name}', which the deck's mcp configuration does not define. Available: ${quoted(refs.mcpServers)}`,
        );
      }
    }
    for (const t of agent.tools) {
      if (!(t instanceof Workflow)) continue;
      const known = refs.workflows.get(t.name);
      if (!known) {
        problems.push(
          `agent '${agent.name}' lists workflow '${t.name}' as a tool, but the deck has no workflow of that name; add it to the deck's workflows. Available: ${quoted(refs.workflows.keys())}`,
        );
      } else if (known.durable) {
        problems.push(
          `agent '${agent.name}' lists workflow '${t.name}' as a tool, but it is durable: a tool call has no thread to come back to. Use a non-durable workflow, or run it with deck.run()`,
        );
      }
    }
  }
  if (problems.length > 0) throw new ConfigError(`invalid catalog: ${problems.join('; ')}`);
}
