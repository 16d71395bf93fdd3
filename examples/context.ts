/**
 * Passing your application's objects: one Calendar per run reaches a tool, an instructions
 * function, a hook and a graph node by reference, checked against what each declares; then
 * a deck that declares the wrong type is refused by build() with every site listed.
 *
 * Without OPENAI_API_KEY the agent uses a ScriptedModel, so it runs offline.
 *
 *   npm run example:context
 */
import { END, START, StateGraph } from '@langchain/langgraph';
import { z } from 'zod';
import {
  Agent,
  ContextTypeError,
  Deck,
  needsContext,
  tool,
  Workflow,
  withContext,
} from '../src/index.js';
import { ScriptedModel } from '../src/testing/index.js';

class Calendar {
  constructor(readonly owner: string) {}
  free(day: string) {
    return [`${day} 9am`, `${day} 2pm`];
  }
}
class TeamCalendar extends Calendar {}
class Clock {
  now() {
    return new Date();
  }
}

const findSlots = tool({
  name: 'find_slots',
  description: 'Free slots on a day',
  parameters: z.object({ day: z.string() }),
  context: Calendar,
  execute: ({ day }, ctx) => ctx.data.free(day),
});

const offline = !process.env.OPENAI_API_KEY;
const model = offline
  ? new ScriptedModel([
      { toolCalls: [{ name: 'find_slots', arguments: { day: 'Tuesday' } }] },
      { text: 'Tuesday 9am or 2pm are free.' },
    ])
  : undefined;

const booker = new Agent({
  name: 'Booker',
  tools: [findSlots],
  instructions: needsContext(Calendar, (ctx) => `You book meetings for ${ctx.data.owner}.`),
  hooks: {
    onToolEnd: needsContext(Calendar, (ctx, tool) =>
      console.log(`  (${ctx.data.owner}'s calendar used by ${tool})`),
    ),
  },
  ...(model ? { model } : {}),
});

const State = z.object({ day: z.string(), slot: z.string().optional() });
const planner = new Workflow({
  name: 'planner',
  state: State,
  graph: (state) =>
    new StateGraph(state)
      .addNode(
        'pick',
        withContext(Calendar, (s: z.infer<typeof State>, ctx) => ({
          slot: ctx.data.free(s.day)[0],
        })),
      )
      .addEdge(START, 'pick')
      .addEdge('pick', END),
});

{
  await using deck = await new Deck({
    name: 'context-example',
    context: TeamCalendar,
    agents: [booker],
    workflows: [planner],
  }).open();
  const calendar = new TeamCalendar('ada');
  const turn = await deck.run('Booker', 'Find me a slot on Tuesday', { context: calendar });
  console.log(`Booker: ${turn.output}`);
  console.log('planner:', await deck.run('planner', { day: 'Tuesday' }, { context: calendar }));
}

// A deck declaring a Clock cannot serve these sites; the compiler says so too, hence the cast.
try {
  new Deck({ context: Clock, agents: [booker] as never, workflows: [planner] }).build();
} catch (error) {
  if (!(error instanceof ContextTypeError)) throw error;
  console.log(`\nbuild() refused a Clock context:\n${error.message}`);
}
