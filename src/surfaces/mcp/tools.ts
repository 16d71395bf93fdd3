/**
 * The tools `/mcp` offers, read from the catalog once when the app is built: one per agent
 * (`{message, session_id?}`), one per workflow (its state's fields, flat at the top level, and
 * an optional `thread_id`), and the service's own three (`get_run`, `list_pending`,
 * `answer_run`). A tool's name is its agent's or workflow's name and its description the
 * definition's (`descriptionOf()`: its own, or a generated sentence, never empty).
 */
import type { AgentDefinition } from '../../authoring/agent-definition.js';
import { descriptionOf } from '../../authoring/descriptions.js';
import { stateJsonSchema } from '../../authoring/state-schema.js';
import type { WorkflowDefinition } from '../../authoring/workflow-definition.js';
import { ConfigError } from '../../core/errors.js';
import type { Role } from '../../core/identity.js';
import type { ServedDeck } from '../http/served-deck.js';
import { checkServiceToolNames, type McpSettings, SERVICE_TOOL_NAMES } from './options.js';

type JsonSchema = Record<string, unknown>;

/** A tool as `tools/list` describes it, and what a call of it plays. */
export interface CatalogTool {
  name: string;
  description: string;
  inputSchema: JsonSchema;
  kind: 'agent' | 'workflow' | 'service';
  /** The role a caller needs to call it (core/identity.ts): what the call does over HTTP. */
  role: Role;
  /** A workflow's: whether its threads are durable (a call without `thread_id` gets a new one). */
  durable?: boolean;
}

const AGENT_INPUT: JsonSchema = {
  type: 'object',
  properties: {
    message: { type: 'string', minLength: 1, description: 'What to say to the agent.' },
    session_id: {
      type: 'string',
      description:
        'The conversation to continue (the `session_id` of an earlier result); a new one when left out.',
    },
  },
  required: ['message'],
  additionalProperties: false,
};

const THREAD_ID = {
  type: 'string',
  description: "The workflow thread to run on; a new one when left out (the result's `thread_id`).",
};

const RUN_ID = { type: 'string', description: 'The run id a tool result gave (`run_id`).' };

const SERVICE_TOOLS: readonly CatalogTool[] = [
  {
    name: 'get_run',
    kind: 'service',
    role: 'read',
    description:
      "A run's status (running, waiting_human, paused, completed, failed, cancelled), its output " +
      'or final state once completed, and what it waits for: follow a call that answered ' +
      '`{"status": "running"}`.',
    inputSchema: {
      type: 'object',
      properties: { run_id: RUN_ID },
      required: ['run_id'],
      additionalProperties: false,
    },
  },
  {
    name: 'list_pending',
    kind: 'service',
    role: 'read',
    description:
      "Every run waiting for a person: workflows' questions (reason `interrupt`) and agents' " +
      'tool calls held for approval (reason `approval`), oldest first. Answer one with `answer_run`.',
    inputSchema: { type: 'object', properties: {}, additionalProperties: false },
  },
  {
    name: 'answer_run',
    kind: 'service',
    role: 'answer',
    description:
      "Answer a run waiting for a person: for a workflow's question, `value` is what the " +
      'question asks for; for a tool call held for approval, `{"approved": true}` or ' +
      '`{"approved": false, "reason": "..."}`. The run goes on; the result is as its tool gives it.',
    inputSchema: {
      type: 'object',
      properties: {
        run_id: RUN_ID,
        value: { description: 'The answer: any JSON value the question asks for.' },
      },
      required: ['run_id', 'value'],
      additionalProperties: false,
    },
  },
];

/**
 * The tools of `deck`'s catalog under `settings`, the service's own last. Refuses (ConfigError)
 * a served name the catalog does not have, and a catalog name that is a service tool's.
 */
export function catalogTools(deck: ServedDeck, settings: McpSettings): CatalogTool[] {
  const names = [...deck.agents.keys(), ...deck.workflows.keys()];
  checkServiceToolNames(names);
  const served = settings.tools ?? names;
  const unknown = served.filter((name) => !deck.agents.has(name) && !deck.workflows.has(name));
  if (unknown.length > 0) {
    throw new ConfigError(
      `SERVICE_MCP_TOOLS (mcp.tools) names ${unknown.map((n) => `'${n}'`).join(', ')}, which ` +
        `deck '${deck.name}' does not have; its agents and workflows are ${names.map((n) => `'${n}'`).join(', ') || 'none'}`,
    );
  }
  const tools = served.map((name) => {
    const agent = deck.agents.get(name) as AgentDefinition | undefined;
    if (agent) return agentTool(agent);
    return workflowTool(deck.workflows.get(name) as WorkflowDefinition);
  });
  return [...tools, ...SERVICE_TOOLS];
}

/** Whether `name` is one of the service's own tools. */
export function isServiceTool(name: string): name is (typeof SERVICE_TOOL_NAMES)[number] {
  return (SERVICE_TOOL_NAMES as readonly string[]).includes(name);
}

function agentTool(agent: AgentDefinition): CatalogTool {
  return {
    name: agent.name,
    kind: 'agent',
    role: 'run',
    description: descriptionOf(agent),
    inputSchema: AGENT_INPUT,
  };
}

/**
 * A workflow's tool takes its initial state's fields at the top level, none required (nodes
 * fill what is missing, as `deck.run` accepts), and `thread_id` beside them.
 */
function workflowTool(workflow: WorkflowDefinition): CatalogTool {
  const state = stateJsonSchema(workflow.state) ?? {};
  const properties = (state.properties ?? {}) as Record<string, unknown>;
  const { required: _required, properties: _properties, $defs, ...rest } = state;
  return {
    name: workflow.name,
    kind: 'workflow',
    role: 'run',
    durable: workflow.durable,
    description: descriptionOf(workflow),
    inputSchema: {
      ...rest,
      type: 'object',
      properties: { ...properties, thread_id: THREAD_ID },
      ...($defs === undefined ? {} : { $defs }),
    },
  };
}
