/**
 * The office concierge: tools of its own (`local_time`, and `book_room`, which a person
 * approves before it runs), a skill (`house-rules`, read with the generated `load_skill`
 * tool), and the tools of the `everything` MCP server (`echo`, `get-sum`, ...) from
 * `../../../.mcp.json`.
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

const bookRoom = tool({
  name: 'book_room',
  description: 'Book a meeting room for a 30-minute slot',
  parameters: z.object({
    room: z.string().describe('e.g. Orion'),
    start: z.string().describe('the slot start, e.g. 2026-12-01 14:30'),
  }),
  // A booking holds a room others may want: the turn waits for a person to approve it.
  needsApproval: true,
  execute: ({ room, start }) => `Booked ${room} from ${start} for 30 minutes.`,
});

export default new Agent({
  name: 'concierge',
  instructions:
    'You are the office concierge. Answer briefly. Read the house-rules skill before answering questions about expenses, rooms or visitors.',
  tools: [localTime, bookRoom],
  skills: ['house-rules'],
  mcpServers: ['everything'],
});
