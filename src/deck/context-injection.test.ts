/**
 * The context reaches every injection site by reference and never the model: an agent
 * over the real OpenAI client path (the scripted HTTP server records each request body),
 * and a resumed node given no context, which reads null and fails where it first uses it.
 */
import { randomUUID } from 'node:crypto';
import { END, START, StateGraph } from '@langchain/langgraph';
import { describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import { openTestDeck } from '../../test/support/decks.js';
import { useScriptedModelServer } from '../../test/support/model-server.js';
import {
  Agent,
  type InterruptResult,
  interrupt,
  needsContext,
  tool,
  Workflow,
  withContext,
} from '../index.js';

class Calendar {
  readonly secret = `ctx-marker-${randomUUID()}`;
  readonly booked: string[] = [];
}

const modelServer = useScriptedModelServer();

describe('context injection', () => {
  it('hands the value by reference to a tool, instructions and every hook method; the model never sees it', async () => {
    const received: Array<[string, unknown]> = [];
    const book = tool({
      name: 'book',
      description: 'Book a slot',
      parameters: z.object({ slot: z.string() }),
      context: Calendar,
      execute: ({ slot }, ctx) => {
        received.push(['tool', ctx.data]);
        ctx.data.booked.push(slot);
        return `booked ${slot}`;
      },
    });
    const seen = (site: string) =>
      needsContext(Calendar, (ctx: { data: Calendar }) => void received.push([site, ctx.data]));
    const agent = new Agent({
      name: 'Booker',
      tools: [book],
      instructions: needsContext(Calendar, (ctx) => {
        received.push(['instructions', ctx.data]);
        return `You book meetings; ${ctx.data.booked.length} booked so far.`;
      }),
      hooks: {
        onStart: seen('onStart'),
        onToolStart: seen('onToolStart'),
        onToolEnd: seen('onToolEnd'),
        onEnd: seen('onEnd'),
      },
    });
    modelServer().push({ toolCalls: [{ name: 'book', arguments: { slot: '9am' } }] });
    modelServer().push({ text: 'Booked 9am.' });
    const { deck } = await openTestDeck({ context: Calendar, agents: [agent] });
    const calendar = new Calendar();
    const result = await deck.run('Booker', 'Book 9am', { context: calendar });
    await vi.waitFor(() => expect(received.some(([site]) => site === 'onEnd')).toBe(true));

    expect(result.output).toBe('Booked 9am.');
    expect(calendar.booked).toEqual(['9am']);
    expect(new Set(received.map(([site]) => site))).toEqual(
      new Set(['tool', 'instructions', 'onStart', 'onToolStart', 'onToolEnd', 'onEnd']),
    );
    for (const [site, value] of received) expect(value, site).toBe(calendar);

    expect(modelServer().requests).toHaveLength(2);
    type Body = { tools: Array<{ name: string; parameters: { properties: object } }> };
    const tools = (modelServer().requests[0]?.body as Body | undefined)?.tools ?? [];
    expect(tools.map((t) => t.name)).toEqual(['book']);
    expect(tools[0]?.parameters).toMatchObject({
      type: 'object',
      properties: { slot: { type: 'string' } },
      required: ['slot'],
    });
    expect(Object.keys(tools[0]?.parameters.properties ?? {})).toEqual(['slot']);
    for (const request of modelServer().requests) {
      const body = JSON.stringify(request.body);
      expect(body).not.toContain(calendar.secret);
      expect(body).not.toMatch(/"(ctx|context|Calendar)"/);
    }
    modelServer().assertConsumed();
  });

  it('gives a resumed node null when answer() passes no context; it fails where it first uses it', async () => {
    const steps: string[] = [];
    const State = z.object({ answer: z.string().optional(), secret: z.string().optional() });
    const flow = new Workflow({
      name: 'vault',
      state: State,
      graph: (state) =>
        new StateGraph(state)
          .addNode(
            'ask',
            withContext(Calendar, (_s: z.infer<typeof State>, ctx) => {
              const answer = interrupt<string>('open?');
              steps.push(`resumed with ${ctx.data === null ? 'null' : 'a Calendar'}`);
              return { answer, secret: ctx.data.secret };
            }),
          )
          .addEdge(START, 'ask')
          .addEdge('ask', END),
    });
    const { deck } = await openTestDeck({ context: Calendar, workflows: [flow] });
    const paused = (await deck.run('vault', {}, { context: new Calendar() })) as InterruptResult;
    const runId = paused.runId as string;
    await expect(deck.answer(runId, 'yes')).rejects.toThrow(TypeError);
    // The node ran up to its first use of the context: the check did not refuse it earlier.
    expect(steps).toEqual(['resumed with null']);
    expect(await deck.status(runId)).toBe('failed');
  });
});
