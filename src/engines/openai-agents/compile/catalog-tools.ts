/**
 * Tools and instructions an agent gets from the deck's catalog rather than from its own
 * definition: the generated `load_skill` tool and the list of skills in its instructions,
 * and a workflow of the deck listed as a tool (played as a recorded child run).
 */
import { tool as engineTool, type RunContext, type Tool } from '@openai/agents-core';
import { z } from 'zod';
import type { Skill } from '../../../authoring/skills.js';
import { isStateSchema, stateSchemaJson } from '../../../authoring/state-schema.js';
import { tool } from '../../../authoring/tool.js';
import type { WorkflowDefinition } from '../../../authoring/workflow-definition.js';
import { InterruptResult } from '../../../core/interrupt-result.js';
import { snakeCase } from '../../../core/names.js';
import { asRunScope, type RunScope } from '../../../runtime/run-scope.js';
import { approvalGate } from './approvals.js';
import { NeedsDeckError, toolErrorFunction } from './tool-errors.js';

/** `load_skill`: returns a skill's body; a name outside the agent's list is an error for the model. */
export function loadSkillTool(agentName: string, skills: readonly Skill[]) {
  const byName = new Map(skills.map((s) => [s.name, s]));
  const listed = skills.map((s) => `'${s.name}'`).join(', ');
  return tool({
    name: 'load_skill',
    description: `Read the full instructions of one of your skills (${listed}) before a task that needs it.`,
    parameters: z.object({ name: z.string().describe(`The skill's name: one of ${listed}`) }),
    execute: ({ name }) => {
      const skill = byName.get(name);
      if (!skill) {
        throw new Error(
          `agent '${agentName}' has no skill '${name}'; its skills are ${listed}. Call load_skill with one of those names`,
        );
      }
      return skill.body;
    },
  });
}

/** The section appended to an agent's instructions: its skills, by name and description. */
export function skillsSection(skills: readonly Skill[]): string {
  if (skills.length === 0) return '';
  const lines = skills.map((s) => `- ${s.name}: ${s.description}`);
  return (
    '\n\nYou have skills: instructions you can read when a task needs one. ' +
    `Call load_skill with the skill's name to read it.\n${lines.join('\n')}`
  );
}

/**
 * The JSON schema of a workflow's state, for the model: a zod object's own or a LangGraph
 * `StateSchema`'s (fields the nodes fill are optional there too, so this is not strict), else
 * any object.
 */
function parametersOf(state: unknown): Record<string, unknown> {
  const declared = isStateSchema(state) ? stateSchemaJson(state) : null;
  if (declared) return { ...declared, additionalProperties: true };
  const candidate = state as { _zod?: { def?: { type?: string } } } | null;
  if (candidate?._zod?.def?.type === 'object') {
    const { $schema: _, ...schema } = z.toJSONSchema(state as z.ZodObject, { io: 'input' });
    return { ...schema, additionalProperties: true };
  }
  return { type: 'object', properties: {}, required: [], additionalProperties: true };
}

/**
 * A non-durable workflow as a tool: its name in snake_case, its state schema as
 * parameters, its final state (or its interrupt) as JSON. The run is recorded as its own
 * run, linked to the calling turn (`parent_run_id` on its `run.started`).
 */
export function workflowTool(
  workflow: WorkflowDefinition,
  needsApproval: boolean,
): Tool<RunScope | undefined> {
  const name = snakeCase(workflow.name);
  return engineTool({
    name,
    description: `Run the workflow '${workflow.name}' with the given initial state; returns its final state as JSON.`,
    parameters: parametersOf(workflow.state) as never,
    strict: false,
    errorFunction: toolErrorFunction(name),
    needsApproval: approvalGate(name, needsApproval),
    execute: async (args: unknown, runContext?: RunContext<unknown>, details?) => {
      const scope = asRunScope(runContext?.context);
      if (!scope?.runWorkflow) {
        throw new NeedsDeckError(
          `tool '${name}' runs workflow '${workflow.name}', which needs a Deck; a headless run cannot play it`,
        );
      }
      const result = await scope.runWorkflow(
        workflow,
        (args ?? {}) as Record<string, unknown>,
        details?.signal ?? scope.signal,
      );
      if (result instanceof InterruptResult) {
        return JSON.stringify({
          type: 'interrupt',
          payload: result.payload,
          run_id: result.runId,
          thread_id: result.threadId,
          note: 'the workflow waits for a person to answer it; it is listed in pending()',
        });
      }
      return JSON.stringify(result);
    },
  });
}
