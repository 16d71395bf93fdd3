/**
 * Quickstart: open a Deck on its embedded defaults (SQLite event log at
 * ./.agentdeck/state.db, in-process session memory), play two turns of one conversation,
 * stream the second, and read the run's status back from the log.
 *
 * With OPENAI_API_KEY set it talks to OpenAI (or OPENAI_BASE_URL); without it, the agent
 * uses a ScriptedModel so the example runs on a fresh machine with no network.
 *
 *   npm run example
 */
import { z } from 'zod';
import { Agent, Deck, tool } from '../src/index.js';
import { ScriptedModel } from '../src/testing/index.js';

const findSlots = tool({
  name: 'find_slots',
  description: 'Free meeting slots on a weekday',
  parameters: z.object({ day: z.string() }),
  execute: async ({ day }) => ({ day, slots: ['9am', '2pm'] }),
});

const offline = !process.env.OPENAI_API_KEY;
const model = offline
  ? new ScriptedModel([
      { text: 'Hello! I can book meetings. Which day suits you?' },
      { toolCalls: [{ name: 'find_slots', arguments: { day: 'tuesday' } }] },
      { text: ['Tuesday ', 'at 9am ', 'or 2pm ', 'are free.'], delayMs: 80 },
    ])
  : undefined;

const booker = new Agent({
  name: 'Booker',
  instructions: 'You book meetings. Use find_slots to see free slots. Be brief.',
  tools: [findSlots],
  ...(model ? { model } : {}),
});

await using deck = await new Deck({ name: 'quickstart', agents: [booker] }).open();
console.log(offline ? '(no OPENAI_API_KEY: using a scripted model)\n' : '');

const first = await deck.run('Booker', 'Hi, I need a meeting.', { sessionId: 'demo' });
console.log(`Booker: ${first.output}`);
console.log(
  `  run ${first.runId}, ${first.usage.inputTokens} in / ${first.usage.outputTokens} out tokens\n`,
);

process.stdout.write('Booker (streamed): ');
let runId = '';
for await (const event of deck.stream('Booker', 'Tuesday, please.', { sessionId: 'demo' })) {
  runId = event.runId;
  if (event.kind === 'text.delta') process.stdout.write(event.payload.text);
  if (event.kind === 'tool.call.started') process.stdout.write(`[calling ${event.payload.name}] `);
}
console.log(`\n  status of ${runId}: ${await deck.status(runId)}`);
console.log('\nEvery event is in ./.agentdeck/state.db (SQLite).');
