import { StateGraph } from '@langchain/langgraph';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ConfigError } from '../core/errors.js';
import { Agent } from './agent.js';
import { descriptionOf } from './descriptions.js';
import { tool } from './tool.js';
import { Workflow } from './workflow.js';

const graph = (state: unknown) => new StateGraph(state as z.ZodObject<{ n: z.ZodNumber }>);
const lookup = tool({
  name: 'lookup',
  description: 'Look an order up',
  parameters: z.object({ id: z.string() }),
  execute: () => 'found',
});
const expenseReport = new Workflow({ name: 'Expense Report', state: z.object({}), graph });

describe('descriptionOf', () => {
  it('gives the description as written, trimmed', () => {
    const agent = new Agent({ name: 'Greeter', description: '  Greets people.  ' });
    expect(agent.description).toBe('Greets people.');
    expect(descriptionOf(agent)).toBe('Greets people.');
    const workflow = new Workflow({ name: 'w', description: 'Adds.', state: z.object({}), graph });
    expect(descriptionOf(workflow)).toBe('Adds.');
  });

  it('generates a sentence naming the agent and what it can use', () => {
    expect(descriptionOf(new Agent({ name: 'Greeter' }))).toBe(
      "Talk to the agent 'Greeter' (it has no tools).",
    );
    expect(descriptionOf(new Agent({ name: 'Clerk', tools: [lookup] }))).toBe(
      "Talk to the agent 'Clerk', which can call the tool 'lookup'.",
    );
    const busy = new Agent({
      name: 'Clerk',
      tools: [lookup, expenseReport],
      skills: ['a', 'b', 'c'],
      mcpServers: ['files'],
    });
    expect(descriptionOf(busy)).toBe(
      "Talk to the agent 'Clerk', which can call the tools 'lookup' and 'expense_report', read the skills 'a', 'b' and 'c' and use the tools of the MCP server 'files'.",
    );
  });

  it('generates a sentence naming the workflow', () => {
    expect(descriptionOf(expenseReport)).toBe(
      "Run the workflow 'Expense Report' from an initial state; the result is its final state, or what it waits for.",
    );
  });

  it('refuses an empty or non-string description with a ConfigError naming the definition', () => {
    for (const bad of ['', '   ', 42, null]) {
      const attempt = () => new Agent({ name: 'Greeter', description: bad as string });
      expect(attempt).toThrow(ConfigError);
      expect(attempt).toThrow(/agent 'Greeter': `description` must be a non-empty string/);
    }
    expect(() => new Workflow({ name: 'w', description: '', state: z.object({}), graph })).toThrow(
      /workflow 'w': `description` must be a non-empty string saying what it does, got an empty string/,
    );
  });
});
