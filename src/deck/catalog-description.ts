/**
 * The catalog as the studio shows it (#21, `GET /catalog`): every agent (its description,
 * instructions as written or a note that they are computed, model, tools with their parameter
 * JSON schemas and whether a person approves them, skills, MCP servers), every workflow (its
 * description, state schema, durable or not, its graph as LangGraph draws it), the skills, and the MCP servers with
 * their live status and tools. Never a secret: no MCP command, URL, environment or header,
 * no key, no model client setting.
 */
import { z } from 'zod';
import type { AgentDefinition } from '../authoring/agent-definition.js';
import { descriptionOf } from '../authoring/descriptions.js';
import type { Skill } from '../authoring/skills.js';
import { isStateSchema, stateSchemaJson } from '../authoring/state-schema.js';
import { isDeckTool } from '../authoring/tool.js';
import type { Workflow } from '../authoring/workflow.js';
import { isWorkflowDefinition } from '../authoring/workflow-definition.js';
import { snakeCase } from '../core/names.js';
import { graphShapeOf } from '../engines/langgraph/describe.js';
import type { McpConnections, OpenAIAgentsEngine } from '../engines/openai-agents/index.js';
import type { CatalogDescription } from '../surfaces/http/served-deck.js';

export interface CatalogSources {
  agents: ReadonlyMap<string, AgentDefinition>;
  workflows: ReadonlyMap<string, Workflow>;
  skills: ReadonlyMap<string, Skill>;
  engine: OpenAIAgentsEngine;
  mcp: McpConnections | null;
}

export async function describeCatalog(sources: CatalogSources): Promise<CatalogDescription> {
  const workflows = await Promise.all(
    [...sources.workflows.values()].map(async (workflow) => ({
      name: workflow.name,
      description: descriptionOf(workflow),
      durable: workflow.durable,
      state_schema: isStateSchema(workflow.state)
        ? stateSchemaJson(workflow.state)
        : jsonSchemaOf(workflow.state),
      graph: await graphShapeOf(workflow),
    })),
  );
  return {
    agents: [...sources.agents.values()].map((agent) => describeAgent(agent, sources.engine)),
    workflows,
    skills: [...sources.skills.values()].map(({ name, description, body }) => ({
      name,
      description,
      body,
    })),
    mcp_servers: sources.mcp ? await sources.mcp.describe() : [],
  };
}

type AgentEntry = CatalogDescription['agents'][number];

function describeAgent(def: AgentDefinition, engine: OpenAIAgentsEngine): AgentEntry {
  const listed = new Set(def.needsApproval ?? []);
  const ownTools = new Map<string, AgentEntry['tools'][number]['kind']>();
  const approvals = new Map<string, boolean | 'conditional'>();
  for (const t of def.tools) {
    if (isDeckTool(t)) {
      ownTools.set(t.name, 'tool');
      approvals.set(
        t.name,
        typeof t.needsApproval === 'function' ? 'conditional' : t.needsApproval,
      );
    } else if (isWorkflowDefinition(t)) {
      ownTools.set(snakeCase(t.name), 'workflow');
      if (listed.has(t.name)) approvals.set(snakeCase(t.name), true);
    }
  }
  const compiled = engine.compile(def).agent.tools as unknown as {
    name: string;
    description?: string;
    parameters?: unknown;
  }[];
  const model = def.model;
  return {
    name: def.name,
    description: descriptionOf(def),
    instructions: typeof def.instructions === 'string' ? def.instructions : null,
    instructions_computed: typeof def.instructions !== 'string',
    model:
      typeof model === 'string'
        ? model
        : model === undefined
          ? null
          : String((model as { name?: unknown }).name ?? 'a model object'),
    tools: compiled.map((t) => ({
      name: t.name,
      kind: t.name === 'load_skill' ? 'skill' : (ownTools.get(t.name) ?? 'built'),
      description: t.description ?? '',
      parameters: t.parameters ?? null,
      needs_approval: listed.has(t.name) || (approvals.get(t.name) ?? false),
    })),
    skills: [...def.skills],
    mcp_servers: [...def.mcpServers],
    needs_approval: [...listed],
    output_schema: jsonSchemaOf(def.outputType),
  };
}

/** The JSON schema of a zod schema, or `null` (not zod, or not expressible). */
function jsonSchemaOf(schema: unknown): unknown {
  if (typeof schema !== 'object' || schema === null || !('_zod' in schema)) return null;
  try {
    const { $schema: _, ...json } = z.toJSONSchema(schema as z.ZodType, { io: 'input' });
    return json;
  } catch {
    return null;
  }
}
