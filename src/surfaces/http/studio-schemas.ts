/** The zod schemas of the studio's routes (`studio.ts`), described once for the app and OpenAPI. */
import { z } from 'zod';
import { ScheduleView } from './schemas.js';

const jsonSchema = z.unknown().describe('A JSON schema.');
const approval = z
  .union([z.boolean(), z.literal('conditional')])
  .describe('Whether a person approves each call; `conditional`: a function of the call decides.');

const description = z
  .string()
  .describe("Its `description`, or a sentence generated from its name (and an agent's tools).");

const CatalogAgent = z.object({
  name: z.string(),
  description,
  instructions: z.string().nullable().describe('As written; null when computed from the context.'),
  instructions_computed: z.boolean(),
  model: z.string().nullable().describe("The agent's own model; null: the deck's default."),
  tools: z.array(
    z.object({
      name: z.string(),
      kind: z.enum(['tool', 'workflow', 'skill', 'built']),
      description: z.string(),
      parameters: jsonSchema,
      needs_approval: approval,
    }),
  ),
  skills: z.array(z.string()),
  mcp_servers: z.array(z.string()),
  needs_approval: z.array(z.string()),
  output_schema: jsonSchema,
});

export const GraphShape = z
  .object({
    nodes: z.array(z.object({ id: z.string() })),
    edges: z.array(
      z.object({
        source: z.string(),
        target: z.string(),
        conditional: z.boolean(),
        label: z.string().nullable(),
        guessed: z
          .boolean()
          .describe(
            'A target LangGraph lists without knowing it: a conditional edge added without a path map, drawn to every node.',
          ),
      }),
    ),
  })
  .meta({
    id: 'GraphShape',
    description: "A workflow's graph, as LangGraph's `getGraph()` draws it.",
  });

export const Catalog = z
  .object({
    agents: z.array(CatalogAgent),
    workflows: z.array(
      z.object({
        name: z.string(),
        description,
        durable: z.boolean(),
        state_schema: jsonSchema,
        graph: GraphShape,
      }),
    ),
    skills: z.array(z.object({ name: z.string(), description: z.string(), body: z.string() })),
    mcp_servers: z.array(
      z.object({
        name: z.string(),
        transport: z.enum(['stdio', 'http']),
        status: z.enum(['connected', 'failed', 'starting']),
        error: z.string().nullable(),
        tools: z.array(
          z.object({ name: z.string(), description: z.string(), parameters: jsonSchema }),
        ),
      }),
    ),
    schedules: z.array(ScheduleView),
  })
  .meta({
    id: 'Catalog',
    description:
      'Every agent, workflow, skill, MCP server and schedule the service serves; never a secret (no MCP command, URL, environment or header, no key).',
  });

export const ThreadStateView = z
  .object({
    workflow: z.string(),
    thread_id: z.string(),
    values: z.unknown().describe("The thread's state."),
    next: z.array(z.string()).describe('The nodes that run when it goes on.'),
    waiting: z.array(
      z.object({
        id: z.string(),
        payload: z.unknown(),
        wake_at: z.string().nullable().describe('A timer: when it wakes; null for a question.'),
      }),
    ),
    updated_at: z.string(),
  })
  .meta({ id: 'ThreadState', description: "A thread's state, read from its checkpointer." });

export const SessionQuery = z.object({
  limit: z.coerce
    .number()
    .int()
    .min(1)
    .max(1000)
    .default(200)
    .describe('How many of the latest items.'),
});

export const SessionView = z
  .object({
    session_id: z.string(),
    items: z
      .array(z.unknown())
      .describe('The latest history items, oldest first, as the engine keeps them.'),
  })
  .meta({ id: 'SessionView', description: "A conversation's history." });
