/**
 * The office concierge: a tool of its own (`local_time`), a skill (`house-rules`, read with
 * the generated `load_skill` tool), and the tools of the `everything` MCP server
 * (`echo`, `get-sum`, ...) from `../../../.mcp.json`.
 */
import { Agent, tool } from 'agentdeck';
import { z } from 'zod';

const localTime = tool({
  name: 'local_time',
  description: 'The current date and time in an IANA time zone',
  parameters: z.object({ timeZone: z.string().describe('e.g. Europe/Paris') }),
  execute: ({ timeZone }) =>
    new Date().toLocaleString('en-GB', { timeZone, dateStyle: 'full', timeStyle: 'short' }),
});

export default new Agent({
  name: 'concierge',
  instructions:
    'You are the office concierge. Answer briefly. Read the house-rules skill before answering questions about expenses, rooms or visitors.',
  tools: [localTime],
  skills: ['house-rules'],
  mcpServers: ['everything'],
});
